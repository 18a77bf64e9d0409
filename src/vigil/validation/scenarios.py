"""Run every validation scenario through the service's own scoring path, once.

All scenario rosters go into one :func:`vigil.scoring.service.score` request with
``include_sleep`` and ``risk`` on; the report and the tests read the resulting
:class:`Runs`. Only public entry points are used (``ScoreRequest``, ``score``,
``ScoreReport``), so the harness is independent of how sleep is predicted inside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from vigil.model.sleep_parameters import DEFAULT_SLEEP
from vigil.roster.synthetic import SyntheticDuty
from vigil.scoring.service import ScheduleResult, ScoreReport
from vigil.validation import rosters as r
from vigil.validation.risk_scenarios import risk_scenarios

#: Report hours of the Roach et al. 2012 sweep: 04:00 to 10:00 every 30 min (local = UTC).
REPORT_HOURS: tuple[float, ...] = tuple(4.0 + 0.5 * k for k in range(13))
#: Flight lengths of the in-flight sleep sweep (Gander et al. 2013) [h].
FLIGHT_HOURS: tuple[float, ...] = (12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0)
#: Departure (local = UTC, ACC) of every sweep flight: an evening departure
#: [C, fitted: gander2013-lr, gander2013-ulr, gander2013-slope].
DEPARTURE_HOUR = 21.0
#: Rest orders of the sweep: each flight is flown by both crews of the 4-pilot complement,
#: the one resting first (SleepOrder 1) and the one resting second (2). Gander et al. 2013
#: report the mean over every pilot of the augmented crews, so each sweep value is the
#: mean over both orders (up to 1.2.0 the sweep had the first-rest crew only).
REST_ORDERS: tuple[int, ...] = (1, 2)
#: Long-range and ultra-long-range flight lengths standing for Gander's two groups [h].
LONG_RANGE, ULTRA_LONG_RANGE = 13.0, 17.0
#: Habitual sleep before every scenario (given SleepData scenarios) [local h].
NIGHT = (23.0, 31.0)
#: Actigraphic sleep per hour of predicted ground sleep [-]: the model's own ground sleep
#: efficiency (:attr:`vigil.model.sleep.SleepParameters.ground_efficiency`, 0.88, Signal
#: et al. 2013), the share of a predicted sleep period the model reports as time asleep
#: (:func:`vigil.model.sleep.asleep_hours`). Applied to actigraphy rows of predicted
#: ground sleep; in-flight sleep is already time asleep (reference §5.2). Earlier versions
#: used 6.8/7.6 = 0.895 (Wu et al. 2016); the switch to 0.88 made roach2012-0900 pass
#: [C, fitted: roach2012-0400, roach2012-0900].
ACTIGRAPHY_EFFICIENCY = DEFAULT_SLEEP.ground_efficiency
#: UTC offsets of the scenario airports in January 2026 (no DST at any of them) [h].
UTC_OFFSET: dict[str, float] = {"ACC": 0.0, "HKG": 8.0, "DOH": 3.0, "IAH": -6.0, "JNB": 2.0}


def actigraphic(hours: float) -> float:
    """Predicted ground sleep [h] as actigraphy or polysomnography would count it: times
    :data:`ACTIGRAPHY_EFFICIENCY` (the one place measured and predicted sleep meet)."""
    return hours * ACTIGRAPHY_EFFICIENCY


def epoch_hours(instant: datetime) -> float:
    """Aware datetime -> hours since 1970-01-01T00:00Z (the unit of sleep episodes)."""
    return instant.timestamp() / 3600.0


def report_schedule(hour: float) -> str:
    """Reference of the Roach sweep schedule reported at ``hour``."""
    return f"R{hour:05.2f}"


def flight_schedule(hours: float, order: int = 1) -> str:
    """Reference of the in-flight sweep schedule with a ``hours``-h flight, rest ``order``."""
    return f"F{hours:04.1f}" if order == 1 else f"F{hours:04.1f}-{order}"


def _night_run() -> r.Scenario:
    """Four identical 22:00-06:00 nights (ACC), given 7-h day sleeps."""
    ref = "NIGHTS"
    rows = tuple(
        r.duty(ref, r.at(3 + k, 22.0), r.at(4 + k, 6.0), "ACC", "ACC", "ACC") for k in range(4)
    )
    sleep = [r.sleep_record(ref, r.at(d, NIGHT[0]), r.at(d, NIGHT[1])) for d in range(-1, 3)]
    sleep += [r.sleep_record(ref, r.at(4 + k, 7.5), r.at(4 + k, 14.5)) for k in range(4)]
    return r.Scenario(ref, rows, tuple(sleep))


def _reference_duty() -> r.Scenario:
    """Reference §8's standard duty: 10:00-20:00, 2 sectors, habitual sleep before (ACC)."""
    ref = "REFDUTY"
    row = r.duty(ref, r.at(3, 10.0), r.at(3, 20.0), "ACC", "ACC", "ACC", sectors=2)
    sleep = [r.sleep_record(ref, r.at(d, NIGHT[0]), r.at(d, NIGHT[1])) for d in range(-1, 3)]
    return r.Scenario(ref, (row,), tuple(sleep))


def _bedtime_rows(bedtime: float) -> tuple[SyntheticDuty, ...]:
    """Awake from 07:00 on day 3 until ``bedtime`` h after day 3's midnight, then free.

    Reference §4.2 check: back-to-back duties with no commute and no preparation keep
    the person awake; sleep may start 30 min (wind-down) after the last one ends.
    """
    ref = f"B{bedtime:05.2f}"
    start, end = r.at(3, 7.0), r.at(3, bedtime - 0.5)
    rows: list[SyntheticDuty] = []
    while start < end:
        stop = min(start + timedelta(hours=20), end)
        rows.append(
            r.duty(
                ref,
                start,
                stop,
                "ACC",
                "ACC",
                "ACC",
                duty_type=3,
                crew_prep_minutes=0,
                commute_minutes=0,
            )
        )
        start = stop
    return tuple(rows)


#: 8-h ground shifts of a rotating three-shift system (no sectors), by report hour (ACC).
SHIFTS: dict[str, float] = {"SHIFT-M": 6.0, "SHIFT-A": 14.0, "SHIFT-N": 22.0}

#: Bedtimes of reference §4.2's sleep-length table, hours after day 3's midnight.
BEDTIMES: tuple[float, ...] = (27.0, 31.5, 35.0, 39.0)


def scenarios() -> list[r.Scenario]:
    """Every validation scenario (one schedule each)."""
    out = [r.Scenario(report_schedule(h), r.report_time_rows([h])) for h in REPORT_HOURS]
    out += [
        r.Scenario("LATE", r.block_rows("LATE", 15.5, 9.0)),
        r.Scenario("EARLY", r.block_rows("EARLY", 5.5, 8.0)),
        r.Scenario("DAYBREAK", r.break_rows("DAYBREAK", 7.0, 16.0)),
        r.Scenario("NIGHTBREAK", r.break_rows("NIGHTBREAK", 17.0, 16.0)),
    ]
    out += [
        r.Scenario(
            flight_schedule(f, o),
            (r.long_range_row(flight_schedule(f, o), f, DEPARTURE_HOUR, sleep_order=o),),
        )
        for f in FLIGHT_HOURS
        for o in REST_ORDERS
    ]
    out += [
        # Holmes et al. 2012: Doha-Houston ULR, 49.5-h layover (HBT = UTC+3)
        r.Scenario("DOHIAH", r.layover_rows("DOHIAH", "DOH", "IAH", r.at(3, 5.0), 16.5, 49.5)),
        # 8-h eastward layover of three local nights (ACC -> HKG)
        r.Scenario("ACCHKG", r.layover_rows("ACCHKG", "ACC", "HKG", r.at(3, 8.0), 13.0, 72.0)),
        r.Scenario("EARLYWEEK", r.block_rows("EARLYWEEK", 5.0, 8.0, days=5, sectors=4)),
        _night_run(),
        _reference_duty(),
    ]
    out += [r.Scenario(f"B{b:05.2f}", _bedtime_rows(b)) for b in BEDTIMES]
    out += [
        r.Scenario(
            name, (r.duty(name, r.at(3, h), r.at(3, h + 8.0), "ACC", "ACC", "ACC", sectors=0),)
        )
        for name, h in SHIFTS.items()
    ]
    out += risk_scenarios()
    return out


@dataclass(frozen=True, slots=True)
class Runs:
    """The scored scenarios: one :class:`ScheduleResult` per scenario name."""

    report: ScoreReport
    by_name: dict[str, ScheduleResult]

    def __getitem__(self, name: str) -> ScheduleResult:
        return self.by_name[name]


def combined_sleep(items: Sequence[r.Scenario]) -> list[dict[str, str]]:
    """One SleepData list holding every scenario's given sleep."""
    return [rec for s in items for rec in s.sleep]


def sleep_between(result: ScheduleResult, start: float, end: float) -> float:
    """Hours asleep (any kind) within ``[start, end)`` [epoch h]."""
    return sum(max(0.0, min(e.end, end) - max(e.start, start)) for e in result.sleep)


def sleeps_starting(result: ScheduleResult, start: float, end: float) -> list[tuple[float, float]]:
    """``(start, end)`` of the sleeps that begin within ``[start, end)`` [epoch h]."""
    return [(e.start, e.end) for e in result.sleep if start <= e.start < end]


def local_night_sleep(result: ScheduleResult, night_start_local: float, offset: float) -> float:
    """Hours asleep within the local night 23:00-07:00 that begins ``night_start_local``.

    ``night_start_local`` is the local-clock epoch hour of 23:00; ``offset`` the zone's
    UTC offset [h].
    """
    start = night_start_local - offset
    return sleep_between(result, start, start + 8.0)
