"""Predicted sleep against published field data (issue 12; docs/sleep.md "Recalibration").

Home base London in January (UTC, no DST), default commute 60 min + prep 60 min. Predicted
episodes are sleep periods (time in bed less latency); actigraphy counts only time asleep,
so actigraphic figures are compared through a sleep efficiency of 0.89 (Wu et al. 2016,
Sleep Health 2:143: actigraphic sleep 6.8 h vs self-reported 7.6 h in long-haul pilots).
Diary figures are compared directly.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from vigil import tz
from vigil.domain import CrewComposition, Duty, Schedule
from vigil.scoring.grid import SleepEpisode, epoch_hours
from vigil.scoring.predict import predict_sleep

LHR, SIN = tz.airport("LHR"), tz.airport("SIN")
assert LHR and SIN
EFFICIENCY = 0.89  # actigraphy / predicted sleep period, Wu et al. 2016


def _at(day: int, hour: float) -> datetime:
    return datetime(2026, 1, day, tzinfo=UTC) + timedelta(hours=hour)


def _duty(on: datetime, hours: float, start: object = LHR, end: object = LHR, **kw: object) -> Duty:
    return Duty(row=2, reference="P1", on_duty=on, off_duty=on + timedelta(hours=hours),
                start_airport=start, end_airport=end, home_base=(LHR,), **kw)  # type: ignore[arg-type]  # fmt: skip


def _predict(*duties: Duty) -> list[SleepEpisode]:
    return predict_sleep([Schedule("P1", tuple(duties))])[0]


def _within(episodes: list[SleepEpisode], a: float, b: float, kind: str | None = None) -> float:
    return sum(
        max(0.0, min(e.end, b) - max(e.start, a))
        for e in episodes
        if kind is None or e.kind == kind
    )


def _before_report(hour: float) -> float:
    """Sleep [h] in the 12 h before an isolated 8-h duty reporting at ``hour`` (Roach 2012)."""
    on = _at(12, hour)
    t = epoch_hours(on)
    return _within(_predict(_duty(on, 8.0)), t - 12.0, t)


REPORTS = np.arange(4.0, 10.01, 0.5)


@pytest.fixture(scope="module")
def before_report() -> np.ndarray:
    return np.array([_before_report(h) for h in REPORTS])


def test_roach_2012_sleep_never_falls_as_report_gets_later(before_report: np.ndarray) -> None:
    """Roach et al. 2012 (Accid Anal Prev 45S:22): sleep before duty rises with start time;
    the old fixed 1.5-h advance made an 08:30 report sleep 0.9 h more than a 09:00 one."""
    assert np.all(np.diff(before_report) >= -1e-9)


def test_roach_2012_slope_10_to_20_min_per_hour(before_report: np.ndarray) -> None:
    """Roach et al. 2012: 5.4 h before 04:00-05:00 and 6.6 h before 09:00-10:00 starts, about
    15 min per hour; issue 12 accepts 10-20 min of actigraphic sleep per hour from 04 to 09."""
    upto9 = REPORTS <= 9.0
    slope = np.polyfit(REPORTS[upto9], before_report[upto9] * EFFICIENCY, 1)[0] * 60.0
    assert 10.0 <= slope <= 20.0
    steps = np.diff(before_report[upto9]) * EFFICIENCY / 0.5 * 60.0  # [min/h] per step
    assert np.all((steps >= 10.0) & (steps <= 20.0))


def test_roach_2012_levels(before_report: np.ndarray) -> None:
    """Roach et al. 2012: 5.4 h (± 0.6) of actigraphic sleep in the 12 h before 04:00-05:00
    reports and 6.6 h before 09:00-10:00 reports."""
    early = before_report[(REPORTS >= 4.0) & (REPORTS <= 5.0)].mean() * EFFICIENCY
    late = before_report[(REPORTS >= 9.0) & (REPORTS <= 10.0)].mean() * EFFICIENCY
    assert early == pytest.approx(5.4, abs=0.6)
    assert late == pytest.approx(6.6, abs=0.6)


def test_arsintescu_2021_sleep_in_after_late_finish_and_short_before_early() -> None:
    """Arsintescu et al. 2021 (J Sleep Res 31:e13521, diaries): 8.47 h of sleep before
    late-finishing duties (after the previous late finish), 6.94 h before early starts."""
    late = _predict(_duty(_at(12, 16.5), 8.0), _duty(_at(13, 16.5), 8.0))
    after = [e for e in late if epoch_hours(_at(13, 0.5)) < e.start < epoch_hours(_at(13, 12))]
    assert len(after) == 1 and after[0].kind == "main"
    assert after[0].end - after[0].start == pytest.approx(8.47, abs=0.5)
    early = _predict(*(_duty(_at(d, 6.0), 8.0) for d in range(12, 17)))
    nights = [
        _within(early, epoch_hours(_at(d, -12)), epoch_hours(_at(d, 6))) for d in range(12, 17)
    ]
    assert np.mean(nights) == pytest.approx(6.94, abs=1.0)
    assert max(nights) < after[0].end - after[0].start


def test_roach_2016_daytime_break_gets_two_sleeps() -> None:
    """Roach et al. 2016 (Chronobiol Int 33:653): in ~16-h breaks falling mainly in the
    daytime, more than one sleep on 41-50 % of occasions. A 07:00-23:00 break between two
    night duties gets a morning sleep and a pre-duty nap."""
    episodes = _predict(_duty(_at(12, 23.0), 8.0), _duty(_at(13, 23.0), 8.0))
    inside = [e for e in episodes if epoch_hours(_at(13, 7)) <= e.start < epoch_hours(_at(13, 23))]
    assert len(inside) >= 2
    assert {e.kind for e in inside} == {"main", "nap"}


def _inflight_hours(block: float, departure: float, count: int = 2) -> float:
    """Mean in-flight sleep per pilot, 4 pilots, bunk, LHR-SIN."""
    totals = []
    for order in (1, 2):
        duty = _duty(_at(12, departure), block + 1.5, LHR, SIN, sleep_order=order,
                     crew_composition=CrewComposition.FOUR_PILOTS, sleep_count=count)  # fmt: skip
        totals.append(_within(_predict(duty), -np.inf, np.inf, "inflight"))
    return float(np.mean(totals))


def test_gander_2013_inflight_sleep_level_and_slope() -> None:
    """Gander et al. 2013 (J Sleep Res 22:697): 3 h 15 min of sleep on long-range and 3 h 53 min
    on ultra-long-range flights, 12.3 min more per extra flight hour (4 pilots, 2 breaks
    each, B777 bunks). Evening departures; tolerance ± 30 min on levels, 6-19 min/h slope."""
    long_range = _inflight_hours(13.0, 20.0)
    ultra = _inflight_hours(16.0, 20.0)
    assert long_range == pytest.approx(3.25, abs=0.5)
    assert ultra == pytest.approx(3.0 + 53.0 / 60.0, abs=0.5)
    slope = (_inflight_hours(17.0, 20.0) - _inflight_hours(12.0, 20.0)) / 5.0 * 60.0
    assert 12.3 - 6.3 <= slope <= 12.3 + 6.7


def test_inflight_sleep_avoids_wake_maintenance_zone() -> None:
    """Sleep propensity is integrated across the rest window: a rest from ~18:00 home time
    (wake-maintenance zone, Lavie 1986) starts its sleep after 20:00, not at the window start."""
    duty = _duty(_at(12, 10.0), 14.5, LHR, SIN, crew_composition=CrewComposition.FOUR_PILOTS,
                 sleep_count=1, sleep_order=2)  # fmt: skip
    sleep = [e for e in _predict(duty) if e.kind == "inflight"]
    assert len(sleep) == 1
    assert sleep[0].start >= epoch_hours(_at(12, 20.0))


def test_layover_sleep_moves_to_local_night() -> None:
    """Holmes et al. 2012 (64 % slept in the local night on a 49.5-h layover); Darwent et
    al. 2010 (local-time sleepers grow with time in the zone). LHR-SIN (+8 h), three local
    nights: the first sleep after arrival has little overlap with 22:00-08:00 local, the
    last night's sleep lies inside it."""
    out = _duty(_at(10, 20.0), 14.5, LHR, SIN, crew_composition=CrewComposition.THREE_PILOTS,
                sleep_count=1)  # fmt: skip
    back = _duty(_at(14, 15.0), 14.5, SIN, LHR, crew_composition=CrewComposition.THREE_PILOTS,
                 sleep_count=1)  # fmt: skip
    episodes = _predict(out, back, _duty(_at(20, 9.0), 8.0))
    nights = [_within(episodes, epoch_hours(_at(d, 14.0)), epoch_hours(_at(d, 24.0)), "main")
              for d in (11, 12, 13)]  # fmt: skip  # 22:00-08:00 local = 14:00-24:00 UTC
    assert nights[-1] >= 5.0
    assert nights[-1] > nights[0]
