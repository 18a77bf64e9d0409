"""The measures the validation rows read, on hand-made schedules with known answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from vigil.scoring.grid import SleepEpisode
from vigil.scoring.service import DutyResult, ScheduleResult, ScoreReport
from vigil.validation import cases, scenarios
from vigil.validation.scenarios import Runs, epoch_hours

T0 = datetime(2026, 1, 15, tzinfo=UTC)


def _at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def _schedule(
    name: str, duties: list[tuple[float, float]], sleeps: list[tuple[float, float]]
) -> ScheduleResult:
    base = epoch_hours(T0)
    return ScheduleResult(
        reference=name,
        scores={"KSS": np.zeros(1)},
        duties=tuple(DutyResult(_at(a), _at(b), 0, 1, 1.0) for a, b in duties),
        sleep=tuple(SleepEpisode(base + a, base + b, 1.0, "given", "main") for a, b in sleeps),
    )


def _runs(*schedules: ScheduleResult) -> Runs:
    report = ScoreReport("KSS", "test", tuple(schedules), ())
    return Runs(report, {s.reference: s for s in schedules})


def test_sleep_between_counts_only_the_overlap() -> None:
    result = _schedule("X", [(0.0, 8.0)], [(-3.0, 1.0), (5.0, 6.5), (20.0, 22.0)])
    base = epoch_hours(T0)
    assert scenarios.sleep_between(result, base, base + 21.0) == 1.0 + 1.5 + 1.0
    assert scenarios.sleeps_starting(result, base, base + 21.0) == [
        (base + 5.0, base + 6.5),
        (base + 20.0, base + 21.0 + 1.0),
    ]


def test_layover_night_fractions_use_local_time() -> None:
    # away at UTC+8 (HKG): arrive 12:00 UTC day 0 (20:00 local), leave at 60 h UTC
    # (20:00 local day 2); sleep the whole first local night (15:00-23:00 UTC) and
    # half the second
    result = _schedule("TRIP", [(0.0, 12.0), (60.0, 73.0)], [(15.0, 23.0), (43.0, 47.0)])
    fractions = cases.layover_night_fractions(_runs(result), "TRIP", "HKG")
    assert fractions == [1.0, 0.5]


def test_prior_main_sleep_takes_the_longest_sleep_of_each_break() -> None:
    # three breaks: main sleeps 8, 6 and 7 h (a 1-h nap in the first is ignored)
    duties = [(0.0, 9.0), (24.0, 33.0), (48.0, 57.0), (72.0, 81.0)]
    sleeps = [(10.0, 11.0), (13.0, 21.0), (35.0, 41.0), (60.0, 67.0)]
    result = _schedule("BLOCK", duties, sleeps)
    assert cases.prior_main_sleep(_runs(result), "BLOCK") == 7.0
    assert cases.break_sleep_count(_runs(_schedule("B", duties[:2], sleeps)), "B") == 2.0


def test_local_night_sleeper_counts_nights_half_asleep() -> None:
    # the same trip as above: a whole first local night and exactly half the second
    result = _schedule("TRIP", [(0.0, 12.0), (60.0, 73.0)], [(15.0, 23.0), (43.0, 46.5)])
    assert cases.local_night_sleeper(_runs(result), "TRIP", "HKG") == 0.5


def test_roach_steps_scale_by_the_actigraphy_efficiency() -> None:
    # one schedule per report hour; sleep ends at each report and grows 0.5 h per step
    schedules = [
        _schedule(scenarios.report_schedule(h), [(h, h + 8.0)], [(h - 6.0 - k * 0.5, h)])
        for k, h in enumerate(scenarios.REPORT_HOURS)
    ]
    steps = cases.roach_steps(_runs(*schedules))
    assert np.allclose(steps, 60.0 * scenarios.ACTIGRAPHY_EFFICIENCY)


def test_score_at_top_of_descent_reads_the_interval_an_hour_before_off() -> None:
    from vigil.validation import independent_cases as ic

    # one 4-h duty from T0: 16 intervals; TOD = off - 1 h = 3.0 h -> interval 12
    result = ScheduleResult(
        reference="D",
        scores={"KSS": np.arange(16, dtype=float)},
        duties=(DutyResult(_at(0.0), _at(4.0), 0, 16, None),),
        sleep=(),
    )
    assert ic.top_of_descent(result) == 12.0
    assert np.isnan(ic.score_at(result, "KSS", epoch_hours(_at(5.0))))


def test_time_awake_at_report_and_preceding_sleep() -> None:
    from vigil.validation import independent_cases as ic

    # reports at 30 h and 54 h; sleeps end at 27 h (main, 8 h) and 46 h (main 7 h), and a
    # nap 50-51 h before the second report
    duties = [(30.0, 39.0), (54.0, 63.0)]
    sleeps = [(19.0, 27.0), (39.5, 46.5), (50.0, 51.0)]
    result = _schedule("V", duties, sleeps)
    assert ic.awake_at_report(result) == np.mean([3.0, 3.0])
    assert ic.prior_sleep(result, 0) == scenarios.actigraphic(8.0)
    assert ic.prior_sleep(result, 1) == scenarios.actigraphic(7.0)


def test_laboratory_rows_leave_exactly_the_time_in_bed_plus_the_wind_down() -> None:
    from vigil.validation import independent_cases as ic
    from vigil.validation.rosters import at

    beds = [(at(4, 7.0), at(4, 14.0))]
    scenario = ic.laboratory("LAB", at(3, 7.0), at(5, 6.0), beds)
    gaps = [
        (a.off_duty, b.on_duty)
        for a, b in zip(scenario.rows, scenario.rows[1:], strict=False)
        if a.off_duty != b.on_duty
    ]
    assert gaps == [(at(4, 6.5), at(4, 14.0))]
    assert scenario.rows[0].on_duty == at(3, 7.0) and scenario.rows[-1].off_duty == at(5, 6.0)
    assert all(r.off_duty - r.on_duty <= timedelta(hours=20) for r in scenario.rows)
