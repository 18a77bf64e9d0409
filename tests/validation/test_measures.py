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
