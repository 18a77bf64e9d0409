"""Scenario tests of predicted sleep from rosters (reference §3, §4, §5, §7, §9.4).

Rosters are built from domain objects in January (London = UTC, no DST). Local times
below are London times unless said otherwise. Episode times are whole minutes and the
gate bisection stops within 1 minute (§9.2), so clock times are compared within 3 min.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import grid_rows
from vigil import tz
from vigil.domain import (
    Activity,
    ActivityType,
    Airport,
    CrewComposition,
    Duty,
    DutyType,
    Period,
    Schedule,
    SleepClass,
)
from vigil.model import DEFAULT, CrewTimeline, simulate
from vigil.model.sleep import DEFAULT_SLEEP, body_clock_offset
from vigil.scoring import grid
from vigil.scoring.grid import SleepEpisode, epoch_hours
from vigil.scoring.predict import predict_sleep
from vigil.scoring.rest import rest_windows

LHR, SIN, LAX, CDG = (tz.airport(c) for c in ("LHR", "SIN", "LAX", "CDG"))
assert LHR and SIN and LAX and CDG
TOL = 0.05  # [h] 3 minutes, see module docstring


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, tzinfo=UTC)


def _h(day: int, hour: float) -> float:
    """Epoch hours of January ``day`` 2026 at ``hour`` UTC."""
    return epoch_hours(_at(day, 0)) + hour


def _duty(
    on: datetime, off: datetime, start: Airport = LHR, end: Airport = LHR, **kw: object
) -> Duty:
    return Duty(row=2, reference="P1", on_duty=on, off_duty=off, start_airport=start,
                end_airport=end, home_base=(LHR,), **kw)  # type: ignore[arg-type]  # fmt: skip


def _predict(*duties: Duty, activities: tuple[Activity, ...] = ()) -> list[SleepEpisode]:
    return predict_sleep([Schedule("P1", tuple(duties), activities=activities)])[0]


def _between(episodes: list[SleepEpisode], a: float, b: float) -> list[SleepEpisode]:
    return [e for e in episodes if e.start >= a and e.end <= b]


def prediction_horizon(schedule: Schedule) -> float:
    """End of prediction [epoch h]: the last off duty + 24 h (covers the last duty fully)."""
    return epoch_hours(max(d.off_duty for d in schedule.duties)) + DEFAULT_SLEEP.horizon_after_last


def _check_invariants(schedule: Schedule, episodes: list[SleepEpisode]) -> None:
    """Sorted, non-overlapping, inside [warm-up start, last off + 24 h], never in a duty
    or an awake activity except in the person's own rest windows (ref §4.1, §5, §7)."""
    t0 = epoch_hours(grid_rows.warmup_start(schedule))
    t1 = prediction_horizon(schedule)
    eps = 1e-6
    for a, b in zip(episodes, episodes[1:], strict=False):
        assert a.end <= b.start + eps
    for e in episodes:
        assert t0 - eps <= e.start < e.end <= t1 + eps
        assert e.source == "predicted" and e.kind in ("main", "nap", "inflight")
        assert 0.0 < e.quality <= 1.0
    for duty in schedule.duties:
        on, off = epoch_hours(duty.on_duty), epoch_hours(duty.off_duty)
        allowed = [
            (epoch_hours(r.sleep_start), epoch_hours(r.sleep_end)) for r in rest_windows(duty)
        ]
        for e in episodes:
            if e.end <= on + eps or e.start >= off - eps:
                continue
            assert any(a - eps <= e.start and e.end <= b + eps for a, b in allowed), (e, duty)
    for act in schedule.activities:
        if act.activity_type.awake_at_work:
            a, b = epoch_hours(act.start), epoch_hours(act.end)
            assert all(e.end <= a + eps or e.start >= b - eps for e in episodes)


def test_warmup_days_off_give_habitual_night() -> None:
    """Ref §4.2 calibration / §4.3.5 / §9.4: days off at home settle on 22:51-06:56 (8.1 h)."""
    duty = _duty(_at(10, 9), _at(10, 17))
    episodes = _predict(duty)
    assert episodes[0].start >= epoch_hours(grid_rows.warmup_start(Schedule("P1", (duty,))))
    nights = _between(episodes, _h(7, 0), _h(10, 7))
    assert len(nights) == 3
    for e in nights:
        assert e.start % 24 == pytest.approx(22.85, abs=TOL)
        assert e.end % 24 == pytest.approx(6.93, abs=TOL)
        assert e.end - e.start == pytest.approx(8.1, abs=TOL)
        assert (e.kind, e.quality) == ("main", 1.0)


def test_early_report_shortens_the_night() -> None:
    """Ref §4.3.2 as recalibrated (docs/sleep.md): 05:00 report, 2 h commute + prep, forced
    wake 03:00. The habitual night is 22:51-06:56, so the alarm cuts 3.93 h; bedtime moves
    early_advance_fraction × 3.93 (0.66: 2.59 h) earlier, to 20:16, for 6.7 h. An 09:00
    report leaves the usual 8.1 h."""
    early = _between(_predict(_duty(_at(10, 5), _at(10, 13))), _h(9, 12), _h(10, 5))
    assert len(early) == 1
    assert early[0].end == pytest.approx(_h(10, 3.0), abs=1e-6)  # forced wake §4.3.1
    cut = 24.0 + 3.0 - (24.0 + 6.93)
    advance = DEFAULT.early_advance_fraction * cut
    assert early[0].start % 24 == pytest.approx(22.85 + advance, abs=TOL)
    assert early[0].end - early[0].start == pytest.approx(3.0 + 24 - 22.85 - advance, abs=TOL)
    late = _between(_predict(_duty(_at(10, 9), _at(10, 17))), _h(9, 12), _h(10, 9))
    assert late[0].end - late[0].start == pytest.approx(8.1, abs=TOL)


def test_night_duty_gets_nap_and_split_recovery() -> None:
    """Ref §4.3.3: a 22:00 report gets a 16:30-18:00 nap; §4.2: after the night duty the
    recovery sleep splits into a morning day-sleep and an evening sleep."""
    episodes = _predict(_duty(_at(12, 22), _at(13, 7)))
    naps = [e for e in episodes if e.kind == "nap"]
    assert [(n.start, n.end) for n in naps] == [
        pytest.approx((_h(12, 16.5), _h(12, 18.0)), abs=1e-6)
    ]
    after = _between(episodes, _h(13, 7), _h(14, 12))
    assert len(after) == 2
    day_sleep, evening = after
    assert day_sleep.start == pytest.approx(_h(13, 8.5), abs=1e-6)  # off + commute + wind-down
    assert 2.5 < day_sleep.end - day_sleep.start < 6.0  # short day sleep, ref §4.2 U-shape
    assert _h(13, 19) < evening.start < _h(14, 0)
    assert evening.end - evening.start > 7.0


def _layover(dest: Airport, out_on: datetime, back_on: datetime, block: float) -> Schedule:
    out = _duty(out_on, out_on + timedelta(hours=block + 1.5), LHR, dest,
                crew_composition=CrewComposition.THREE_PILOTS, sleep_count=1)  # fmt: skip
    back = _duty(back_on, back_on + timedelta(hours=block + 1.5), dest, LHR,
                 crew_composition=CrewComposition.THREE_PILOTS, sleep_count=1)  # fmt: skip
    return Schedule("P1", (out, back, _duty(_at(24, 9), _at(24, 17))))


def _body_midpoints(schedule: Schedule, episodes: list[SleepEpisode]) -> np.ndarray:
    start = grid_rows.warmup_start(schedule)
    t0 = epoch_hours(start)
    zones = grid_rows.zone_timeline(
        grid_rows.location_spans(schedule, start), prediction_horizon(schedule)
    )
    zt, zo = zip(*zones, strict=True)
    mids = np.array([(e.start + e.end) / 2 for e in episodes])
    return (mids + body_clock_offset(mids, t0, 0.0, zt, zo)) % 24.0


@pytest.mark.parametrize(
    ("dest", "out_on", "back_on", "block", "local_offset"),
    [
        (SIN, _at(10, 20), _at(13, 15), 13.0, 8.0),  # eastbound, +8 h
        (LAX, _at(10, 11), _at(13, 1), 11.0, -8.0),  # westbound, -8 h
    ],
)
def test_long_haul_layover_sleep_follows_body_clock(
    dest: Airport, out_on: datetime, back_on: datetime, block: float, local_offset: float
) -> None:
    """Ref §3 / §4.2: on a 2-day layover the body clock moves only 1-3 h; the arrival
    sleep falls in the body-clock night, and later layover sleep moves toward the local
    night as the share of local-time sleepers grows (model 1.3.0, ref §4.3.4 recalibrated:
    Darwent et al. 2010, Holmes et al. 2012); after return φ re-adapts and home sleep
    drifts back to 22:51-06:56 within days."""
    schedule = _layover(dest, out_on, back_on, block)
    episodes = predict_sleep([schedule])[0]
    _check_invariants(schedule, episodes)
    arrive = epoch_hours(schedule.duties[0].off_duty)
    depart = epoch_hours(schedule.duties[1].on_duty)
    layover = [e for e in _between(episodes, arrive, depart) if e.end - e.start >= 5.0]
    assert layover, "a main sleep on the layover"
    assert len(layover) >= 2
    body = _body_midpoints(schedule, layover[:1])
    assert np.all((body >= 0.0) & (body <= 7.0) | (body >= 22.0))  # arrival: body-clock night
    local_mid = [((e.start + e.end) / 2 + local_offset) % 24 for e in layover]
    # distance of each sleep's midpoint from the habitual 02:54, on the local clock
    away = [abs((m - 2.9 + 12.0) % 24.0 - 12.0) for m in local_mid]
    assert away[-1] < away[0] - 1.0  # the last layover sleep is nearer the local night
    # φ after the layover: moved toward the destination, not arrived (EASA: no adaptation
    # within 48 h), then back home by the roster's last week (ref §3 rates)
    start = grid_rows.warmup_start(schedule)
    zones = grid_rows.zone_timeline(
        grid_rows.location_spans(schedule, start), prediction_horizon(schedule)
    )
    zt, zo = zip(*zones, strict=True)
    phi = body_clock_offset([depart, _h(23, 0)], epoch_hours(start), 0.0, zt, zo)
    assert 0.5 < abs(phi[0]) < 4.5 and np.sign(phi[0]) == np.sign(local_offset)
    assert phi[1] == pytest.approx(0.0, abs=1e-9)
    home = _between(episodes, _h(20, 12), _h(24, 7))
    assert all(e.start % 24 == pytest.approx(22.85, abs=TOL) for e in home)


def _sleep_at_off(sleep_class: SleepClass) -> tuple[float, float]:
    duty = _duty(_at(10, 20), _at(11, 9), LHR, SIN, crew_composition=CrewComposition.FOUR_PILOTS,
                 sleep_count=1, sleep_order=2, sleep_class=sleep_class)  # fmt: skip
    schedule = Schedule("P1", (duty,))
    episodes = predict_sleep([schedule])[0]
    inflight = [e for e in episodes if e.kind == "inflight"]
    start = grid_rows.warmup_start(schedule)
    t0 = epoch_hours(start)
    zones = grid_rows.zone_timeline(
        grid_rows.location_spans(schedule, start), prediction_horizon(schedule)
    )
    timeline = CrewTimeline(
        start=np.array([t0]),
        s_start=np.array([grid.S_AT_WAKING]),
        sleep_start=np.array([[e.start for e in episodes]]),
        sleep_end=np.array([[e.end for e in episodes]]),
        sleep_quality=np.array([[e.quality for e in episodes]]),
        zone_time=np.array([[z[0] for z in zones]]),
        zone_offset=np.array([[z[1] for z in zones]]),
        phase_start=np.array([grid.zone_offset(grid_rows.home_zone(schedule), t0)]),
    )
    state = simulate(timeline, np.array([[epoch_hours(duty.off_duty)]]))
    return inflight[0].quality, float(state.homeostatic[0, 0])


def test_bunk_restores_more_than_economy_seat() -> None:
    """Ref §5.2: q_1 = 0.70 (bunk) vs q_4 = 0.14 (economy); S at off-duty is higher."""
    q_bunk, s_bunk = _sleep_at_off(SleepClass.BUNK)
    q_econ, s_econ = _sleep_at_off(SleepClass.ECONOMY_SEAT)
    assert (q_bunk, q_econ) == (pytest.approx(0.70), pytest.approx(0.14))
    assert s_bunk > s_econ + 0.3


@pytest.mark.parametrize(
    ("crew", "pattern", "order", "count"),
    [
        (CrewComposition.THREE_PILOTS, 0, 1, 1),
        (CrewComposition.THREE_PILOTS, 0, 3, 2),
        (CrewComposition.FOUR_PILOTS, 0, 1, 2),
        (CrewComposition.FOUR_PILOTS, 0, 2, 1),
        (CrewComposition.CABIN_CREW, 0, 2, 2),
        (CrewComposition.CABIN_CREW, 1, 1, 1),
        (CrewComposition.CABIN_CREW, 2, 2, 1),
        (CrewComposition.CABIN_CREW, 3, 1, 2),
    ],
)
def test_inflight_sleep_sits_in_own_slot(
    crew: CrewComposition, pattern: int, order: int, count: int
) -> None:
    """Ref §5.1-5.2: in-flight sleep lies in the person's own slot(s), not before the latency
    L = min(0.33, 0.15·D) and ending at least B = min(0.25, 0.10·D) before the slot end
    (where inside that span is decided by the body clock, see test_inflight_* below)."""
    duty = _duty(_at(10, 20), _at(11, 9), LHR, SIN, crew_composition=crew, sleep_count=count,
                 sleep_order=order, cabin_crew_sleep_pattern=pattern)  # fmt: skip
    windows = rest_windows(duty)
    assert len(windows) == (1 if pattern == 2 else count)
    episodes = [e for e in _predict(duty) if e.kind == "inflight"]
    assert len(episodes) == len(windows)
    for e, w in zip(episodes, windows, strict=True):
        a, b = epoch_hours(w.start), epoch_hours(w.end)
        d = b - a
        assert e.start >= a + min(0.33, 0.15 * d) - 1e-6
        assert e.end <= b - min(0.25, 0.10 * d) + 1e-6
        assert e.quality == pytest.approx(0.70)


def test_three_vs_four_pilots_slot_placement() -> None:
    """Ref §5.1: SleepOrder 2 is the middle third for 3 pilots, the second half for 4."""

    def first_inflight(crew: CrewComposition) -> float:
        duty = _duty(_at(10, 20), _at(11, 9), LHR, SIN, crew_composition=crew, sleep_count=1,
                     sleep_order=2)  # fmt: skip
        return next(e.start for e in _predict(duty) if e.kind == "inflight")

    cruise0, cruise1 = _h(10, 21.5), _h(11, 8.0)
    third, half = (cruise1 - cruise0) / 3, (cruise1 - cruise0) / 2
    assert cruise0 + third < first_inflight(CrewComposition.THREE_PILOTS) < cruise0 + 2 * third
    assert cruise0 + half < first_inflight(CrewComposition.FOUR_PILOTS) < cruise1


def test_partial_augmentation_limits_inflight_sleep() -> None:
    """Ref §5.1 step 2: derived rest only inside the partial-augmentation period."""
    aug = Period(_at(11, 2), _at(11, 6))
    duty = _duty(_at(10, 20), _at(11, 9), LHR, SIN, crew_composition=CrewComposition.FOUR_PILOTS,
                 sleep_count=1, sleep_order=1, partial_augment=aug)  # fmt: skip
    (e,) = [e for e in _predict(duty) if e.kind == "inflight"]
    assert _h(11, 2) < e.start and e.end <= _h(11, 4)


def test_split_duty_break_sleep() -> None:
    """Ref §7: a 14 h split duty has a 6 h break (00:00-04:00 centred ±3 h) with bed
    quality 0.9, sleep only in [break + 30 min, break end - 45 min]."""
    duty = _duty(_at(10, 18), _at(11, 8), duty_type=DutyType.SPLIT_SHIFT)
    in_duty = _between(_predict(duty), _h(10, 18), _h(11, 8))
    assert len(in_duty) == 1
    (e,) = in_duty
    assert e.quality == pytest.approx(0.9) and e.kind == "nap"
    assert e.start >= _h(10, 22.5) - 1e-6 and e.end <= _h(11, 3.25) + 1e-6


def test_standby_duty_is_awake() -> None:
    """Ref §7: no sleep inside a standby row, even overnight."""
    duty = _duty(_at(10, 22), _at(11, 8), duty_type=DutyType.STANDBY)
    episodes = _predict(duty)
    assert not [e for e in episodes if e.end > _h(10, 22) and e.start < _h(11, 8)]


def test_activity_data() -> None:
    """Contract §5.1: SIMULATOR is awake at work (no sleep in it, bounds windows like a
    duty); home STANDBY is free for sleep with q = 0.9 (ref §4.3.6); DAYOFF changes nothing."""
    duty = _duty(_at(12, 9), _at(12, 17))
    sim = Activity(3, "P1", _at(10, 20), _at(11, 4), LHR, ActivityType.SIMULATOR)
    standby = Activity(4, "P1", _at(11, 20), _at(12, 6), LHR, ActivityType.STANDBY)
    dayoff = Activity(5, "P1", _at(8, 0), _at(9, 0), LHR, ActivityType.DAYOFF)
    base = _predict(duty)
    with_dayoff = _predict(duty, activities=(dayoff,))  # its start moves the warm-up earlier
    same_span = [e for e in with_dayoff if e.start >= base[0].start - 0.1]
    assert [e.kind for e in same_span] == [e.kind for e in base]
    # a longer warm-up reaches the same steady state (ref §9.4) to within a minute or two
    np.testing.assert_allclose([e.start for e in same_span], [e.start for e in base], atol=TOL)
    np.testing.assert_allclose([e.end for e in same_span], [e.end for e in base], atol=TOL)
    episodes = _predict(duty, activities=(sim, standby))
    _check_invariants(Schedule("P1", (duty,), activities=(sim, standby)), episodes)
    after_sim = _between(episodes, _h(11, 4), _h(11, 18))
    assert after_sim[0].start == pytest.approx(_h(11, 5.5), abs=1e-6)  # end + 1 h + 30 min
    assert after_sim[0].quality == 1.0
    on_standby = [e for e in episodes if e.start < _h(12, 6) and e.end > _h(11, 20)]
    assert on_standby and all(e.quality == pytest.approx(0.9) for e in on_standby)


def test_batch_is_independent_per_schedule() -> None:
    """The crew axis: predicting schedules together equals predicting them one by one."""
    a = Schedule("A", (_duty(_at(10, 5), _at(10, 13)),))
    b = Schedule("B", (_duty(_at(12, 22), _at(13, 7)),))
    together = predict_sleep([a, b])
    assert together == [predict_sleep([a])[0], predict_sleep([b])[0]]


_AIRPORTS = (LHR, SIN, LAX, CDG)


@st.composite
def _schedules(draw: st.DrawFn) -> Schedule:
    n = draw(st.integers(1, 6))
    t = _at(10, 0) + timedelta(minutes=draw(st.integers(0, 24 * 60)))
    where = LHR
    duties = []
    for _ in range(n):
        length = timedelta(minutes=draw(st.integers(60, 20 * 60)))
        end = draw(st.sampled_from(_AIRPORTS))
        crew = draw(st.sampled_from(list(CrewComposition)))
        rest: dict[str, object] = {}
        if draw(st.booleans()):  # RosterData times are whole minutes (contract §3.1)
            minutes = length // timedelta(minutes=1)
            r0 = t + timedelta(minutes=round(minutes * draw(st.floats(0.0, 0.6))))
            rest_length = round(minutes * draw(st.floats(0.05, 0.35)))
            rest["first_rest"] = Period(r0, r0 + timedelta(minutes=rest_length))
        duties.append(
            _duty(
                t,
                t + length,
                where,
                end,
                crew_composition=crew,
                sleep_count=draw(st.integers(0, 2)),
                sleep_order=draw(st.integers(1, 3)),
                sleep_class=draw(st.sampled_from(list(SleepClass))),
                duty_type=draw(st.sampled_from(list(DutyType))),
                cabin_crew_sleep_pattern=draw(st.integers(0, 3)),
                commute_minutes=draw(st.sampled_from([0, 30, 60, 90])),
                crew_prep_minutes=draw(st.sampled_from([0, 60, 120])),
                **rest,
            )  # fmt: skip
        )
        where = end
        t = t + length + timedelta(minutes=draw(st.integers(30, 72 * 60)))
    activities = []
    if draw(st.booleans()):
        a0 = _at(10, 0) + timedelta(minutes=draw(st.integers(-48 * 60, 10 * 24 * 60)))
        kind = draw(st.sampled_from(list(ActivityType)))
        a1 = a0 + timedelta(minutes=draw(st.integers(30, 12 * 60)))
        activities.append(Activity(9, "P1", a0, a1, LHR, kind))
    return Schedule("P1", tuple(duties), activities=tuple(activities))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_schedules())
def test_property_no_overlap(schedule: Schedule) -> None:
    """Ref §4.1 / §5 / §7: for any valid schedule, predicted sleep never overlaps a duty
    (except the person's own rest windows), an awake activity or another sleep, and lies in
    [warm-up start, last off-duty + 24 h]."""
    _check_invariants(schedule, predict_sleep([schedule])[0])
