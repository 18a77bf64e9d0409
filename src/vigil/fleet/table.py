"""One row per duty of a scored roster, columnar: the scores joined to the roster.

The one per-duty table of every user-facing surface: the dashboard and its exports, the
charts, ``vigil report roster`` and ``vigil score --per duty|schedule``. The scores give
every duty's report/off instants, its interval scores, its own rest and its risk; the
roster text gives what a person reads a duty by (route, sectors, Fleet, Rank, home base).
One builder joins the two (vectorised over the interval scores), from either source:
:func:`duty_table` from stored results (:mod:`vigil.results.compact`), so the summary,
the exports and the charts never re-score anything, and :func:`results_table` from a
scoring run's results, with no stored form in between. Both count time at or above the
warning level the same way (:func:`vigil.model.warning_level`, or the operator's level,
to the stored precision).

Per-duty summaries (peak, mean, top of descent, time at or above the warning level) count
only the intervals at work: the stored duties' rest runs give the mask
(:func:`vigil.scoring.controls.mask_from_ranges`) and :func:`vigil.scoring.controls.duty_summaries`
reduces, the same path as ``vigil score``'s tables.

Duty kinds follow the risk model's own classification (:func:`vigil.model.classify_duty`:
NIGHT touches 02:00-04:59, EARLY reports 05:00-06:59, night wins), applied to home-base
local time, i.e. the body clock of a crew member acclimatised to the home base (ours: the
simulated body-clock phase is not stored). The model's OTHER class is split for reading
into "late" (off duty after 23:00 or past midnight) and "day".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from itertools import accumulate
from typing import NamedTuple, cast

import numpy as np
import numpy.typing as npt

from vigil import tz
from vigil.contract import INTERVAL_SECONDS
from vigil.domain import Schedule
from vigil.model import EARLY, NIGHT, classify_duty, warning_level
from vigil.results.compact import IndexedDuty, IndexedSchedule, StoredScores, drivers_of
from vigil.results.routes import Airports, RouteFacts, route_facts, route_facts_of_columns
from vigil.scoring.controls import DutySummaries, duty_summaries, mask_from_ranges
from vigil.scoring.report import ScheduleResult
from vigil.settings.bands import RISK_BANDS, RiskBand

__all__ = [
    "DUTY_KINDS",
    "Airports",
    "DutyTable",
    "RosterFacts",
    "RouteFacts",
    "duty_table",
    "results_facts",
    "results_table",
    "roster_facts",
    "route_facts",
    "route_facts_of_columns",
    "schedule_table",
    "with_offsets",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: duty kinds, in display order; codes are indexes into this tuple
DUTY_KINDS = ("early", "day", "late", "night")
_EARLY, _DAY, _LATE, _NIGHT = range(4)
#: a non-night, non-early duty ending at or after this home-base hour (or past midnight)
LATE_OFF_HOUR = 23.0
INTERVAL_S = INTERVAL_SECONDS
#: half the stored scores' last decimal: a score equal to the level once rounded counts
LEVEL_TOLERANCE = 5e-4


@dataclass(frozen=True, slots=True)
class DutyTable:
    """Every scored duty of a roster (one element per duty, schedules in stored order).

    ``sched`` indexes the per-schedule lists; airports index :attr:`airports`; offsets are
    minutes east of UTC at that instant; minutes count the duty's 15-min intervals by
    their length; ``risk`` is NaN where the stored duty has none.
    """

    scale: str
    level: float  #: the scale's warning level (exact, :func:`vigil.model.warning_level`)
    references: list[str]
    fleet: list[str]
    rank: list[str]
    home: list[int]  #: airport index of each schedule's home base (-1: unknown)
    airports: Airports
    sched: IntArray
    number: IntArray  #: 1-based duty number within its schedule
    on_s: IntArray
    off_s: IntArray
    start: IntArray
    end: IntArray
    sectors: IntArray
    start_offset: IntArray
    end_offset: IntArray
    home_offset: IntArray
    kind: IntArray
    risk: FloatArray
    peak: FloatArray
    mean: FloatArray
    minutes: FloatArray
    above_minutes: FloatArray
    working_minutes: FloatArray  #: minutes at work (own in-flight rest left out)
    tod: FloatArray  #: top of descent: highest score at work in the duty's last hour
    rest_before_h: FloatArray  #: hours since the schedule's previous duty went off (NaN: first)
    intervals: IntArray  #: 15-min score intervals (contract §4)
    rest_intervals: IntArray  #: of them, the crew member's own rest (not at work)
    peak_at_s: IntArray  #: start of the peak's interval [s since the epoch]; on duty if none
    bands: tuple[RiskBand, ...] = RISK_BANDS  #: the risk bands in force (:mod:`.thresholds`)
    #: each duty's CrewComposition (2, 3, 4 pilots; 9 cabin crew; 0 unknown)
    crew: IntArray | None = None
    #: what drives each duty's risk as stored (:attr:`StoredScores.drivers`), or ``None``
    drivers: npt.NDArray[np.float32] | None = None

    def __len__(self) -> int:
        return int(self.sched.shape[0])


#: day 0 of the epoch-day numbers :func:`_offsets` groups instants by
_EPOCH_DAY = date(1970, 1, 1)


def _minutes(hours: float) -> int:
    """A UTC offset in hours as whole minutes (the facts' unit)."""
    return round(hours * 60)


@lru_cache(maxsize=65536)
def _offset_minutes(zone: str, epoch_s: int) -> int:
    if not zone:
        return 0
    return _minutes(tz.utc_offset_hours(zone, datetime.fromtimestamp(epoch_s, UTC)))


def _kinds(on_s: IntArray, off_s: IntArray, home_offset: IntArray) -> IntArray:
    """Early/day/late/night by :func:`vigil.model.classify_duty` on home-base time."""
    report = (on_s + home_offset * 60) / 3600.0
    off = (off_s + home_offset * 60) / 3600.0
    model = classify_duty(report, off)
    off_tod = np.mod(off, 24.0)
    past_midnight = np.floor(off / 24.0) > np.floor(report / 24.0)
    late = past_midnight | (off_tod >= LATE_OFF_HOUR)
    out = np.where(late, _LATE, _DAY)
    out = np.where(model == EARLY, _EARLY, out)
    return np.where(model == NIGHT, _NIGHT, out).astype(np.int64)


def _duty_values(
    column: npt.NDArray[np.floating], starts: IntArray, counts: IntArray
) -> FloatArray:
    """Each duty's rows of a stored score column, back to back in duty order (float64)."""
    total = int(counts.sum())
    if total == column.shape[0]:
        return np.asarray(column, dtype=np.float64)
    rows = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total)
    return np.asarray(column[rows], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class RosterFacts:
    """What the roster says about each stored duty, columnar and JSON-ready.

    Gathered once from the parsed roster (:func:`roster_facts`) and stored with the
    summary, so exports and charts on any scale never parse the roster again.
    """

    fleet: list[str]
    rank: list[str]
    home: list[int]
    airports: Airports
    start: list[int]
    end: list[int]
    sectors: list[int]
    start_offset: list[int]
    end_offset: list[int]
    home_offset: list[int]
    #: per schedule: its first row of the score matrix and its first duty (chart reads)
    row_offset: list[int] = field(default_factory=list)
    first_duty: list[int] = field(default_factory=list)
    #: per duty: its CrewComposition (empty in facts stored before it was kept)
    crew: list[int] = field(default_factory=list)
    #: per schedule: every airport its HomeBase cell lists, the home base first (empty in
    #: summaries stored before it was kept: :meth:`base_lists` falls back to ``home``)
    bases: list[list[int]] = field(default_factory=list)

    def base_lists(self) -> list[list[int]]:
        """:attr:`bases`, or ``[home]`` per schedule where it was not stored."""
        if len(self.bases) == len(self.home):
            return self.bases
        return [[h] if h >= 0 else [] for h in self.home]

    def to_json(self) -> dict[str, object]:
        names = [f.name for f in fields(self) if f.name != "airports"]
        out: dict[str, object] = {name: getattr(self, name) for name in names}
        out["airports"] = {
            "code": self.airports.code,
            "iata": self.airports.iata,
            "icao": self.airports.icao,
            "zone": self.airports.zone,
        }
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> RosterFacts:
        a = data["airports"]
        assert isinstance(a, dict)
        fields = {k: v for k, v in data.items() if k != "airports"}
        return cls(airports=Airports(a["code"], a["iata"], a["icao"], a["zone"]), **fields)  # type: ignore[arg-type]


def with_offsets(stored: StoredScores, routes: RouteFacts) -> RosterFacts:
    """:class:`RosterFacts` from ``routes`` of the same stored schedules: the local
    offsets at report and off duty (start, end and home-base airports) and the rows."""
    return _with_offsets(stored.schedules, routes)


def results_facts(results: Sequence[ScheduleResult], routes: RouteFacts) -> RosterFacts:
    """:func:`with_offsets` for a scoring run's results (``routes`` of its schedules)."""
    return _with_offsets(_index(results), routes)


def _index(results: Sequence[ScheduleResult]) -> list[IndexedSchedule]:
    """Results as the stored index reads them: instants, rows, risk and own rest."""
    return [
        IndexedSchedule(
            r.reference,
            sum(d.interval_count for d in r.duties),
            tuple(
                IndexedDuty(
                    int(d.on_duty.timestamp()),
                    int(d.off_duty.timestamp()),
                    d.first_interval,
                    d.interval_count,
                    d.risk,
                    d.rest,
                )
                for d in r.duties
            ),
        )
        for r in results
    ]


def _with_offsets(schedules: Sequence[IndexedSchedule], routes: RouteFacts) -> RosterFacts:
    counts = [len(entry.duties) for entry in schedules]
    if routes.duties != counts:
        raise ValueError("route facts do not match the stored schedules")
    on = np.fromiter((d[0] for e in schedules for d in e.duties), np.int64, sum(counts))
    off = np.fromiter((d[1] for e in schedules for d in e.duties), np.int64, sum(counts))
    rows = [entry.interval_count for entry in schedules]
    home = np.repeat(np.asarray(routes.home, dtype=np.int64), counts)
    zones = routes.airports.zone
    return RosterFacts(
        routes.fleet,
        routes.rank,
        routes.home,
        routes.airports,
        routes.start,
        routes.end,
        routes.sectors,
        _offsets(zones, np.asarray(routes.start, dtype=np.int64), on),
        _offsets(zones, np.asarray(routes.end, dtype=np.int64), off),
        _offsets(zones, home, on),
        [0, *accumulate(rows)][:-1],
        [0, *accumulate(counts)][:-1],
        bases=routes.base_lists(),
        crew=routes.crew,
    )


def _offsets(zones: Sequence[str], airport: IntArray, epoch_s: IntArray) -> list[int]:
    """UTC offsets [min] of the airports' zones at the instants (0 without an airport,
    ``-1``, or a zone). Each (zone, UTC day) is looked up once, its offset fixed all day
    (:func:`vigil.tz.fixed_offset_on`); only instants on a day of change are converted
    one by one (:func:`_offset_minutes`)."""
    out = np.zeros(epoch_s.shape, dtype=np.int64)
    known = np.flatnonzero(airport >= 0)
    if not known.size:
        return cast(list[int], out.tolist())
    day = epoch_s[known] // 86_400
    pairs, inverse = np.unique(np.stack([airport[known], day]), axis=1, return_inverse=True)
    fixed = np.array([_fixed_minutes(zones[a], d) for a, d in pairs.T.tolist()], dtype=np.float64)[
        inverse.reshape(-1)
    ]
    out[known] = np.nan_to_num(fixed).astype(np.int64)
    for i in known[np.isnan(fixed)].tolist():
        out[i] = _offset_minutes(zones[airport[i]], int(epoch_s[i]))
    return cast(list[int], out.tolist())


def _fixed_minutes(zone: str, day: int) -> float:
    """The zone's offset [min] throughout UTC day ``day`` (days since 1970), NaN if it
    changes on or next to that day."""
    if not zone:
        return 0.0
    offset = tz.fixed_offset_on(zone, _EPOCH_DAY + timedelta(days=day))
    return math.nan if offset is None else float(_minutes(offset.total_seconds() / 3600.0))


def roster_facts(stored: StoredScores, schedules: Sequence[Schedule]) -> RosterFacts:
    """Route, sectors, Fleet, Rank and local offsets of every stored duty
    (:func:`route_facts` of the parsed ``schedules``, then :func:`with_offsets`)."""
    entries = ((entry.reference, len(entry.duties)) for entry in stored.schedules)
    return with_offsets(stored, route_facts(entries, schedules))


def _ints(values: list[int]) -> IntArray:
    return np.asarray(values, dtype=np.int64)


def duty_table(
    stored: StoredScores,
    facts: RosterFacts,
    scale: str,
    *,
    level: float | None = None,
    bands: tuple[RiskBand, ...] = RISK_BANDS,
) -> DutyTable:
    """Every duty of ``stored`` on ``scale`` with its roster ``facts`` (vectorised).

    ``level`` is the warning level time above warning counts from (default: KSS 7 mapped,
    :func:`vigil.model.warning_level`); ``bands`` the risk bands in force.
    """
    column = stored.matrix[:, stored.scales.index(scale)]
    return _table(stored.schedules, column, facts, scale, level, bands, stored.drivers)


def results_table(
    results: Sequence[ScheduleResult],
    facts: RosterFacts | None,
    scale: str,
    *,
    level: float | None = None,
    bands: tuple[RiskBand, ...] = RISK_BANDS,
) -> DutyTable:
    """:func:`duty_table` of a scoring run's results on ``scale`` (one of those scored),
    with their ``facts`` (:func:`results_facts`): the same figures as once stored.

    Without ``facts`` (a table of scores alone) routes are unknown (airport ``-1``) and
    local offsets 0.
    """
    index = _index(results)
    # the 3-decimal scores as float32, as the store keeps them (results.compact): means
    # over a duty then agree with the stored table's to the last digit
    column = (
        np.concatenate([r.scores[scale] for r in results]).astype(np.float32)
        if results
        else np.zeros(0, dtype=np.float32)
    )
    drivers = drivers_of(results)
    return _table(index, column, facts or _no_facts(index), scale, level, bands, drivers)


def _no_facts(schedules: Sequence[IndexedSchedule]) -> RosterFacts:
    """Facts of schedules whose roster is not at hand: no airports, offsets 0."""
    n = sum(len(s.duties) for s in schedules)
    k = len(schedules)
    return RosterFacts(
        [""] * k, [""] * k, [-1] * k, Airports([], [], [], []),
        [-1] * n, [-1] * n, [0] * n, [0] * n, [0] * n, [0] * n,
    )  # fmt: skip


class _Duties(NamedTuple):
    """Every duty of a list of stored schedules, back to back in stored order."""

    sched: IntArray  #: index of the duty's schedule
    number: IntArray  #: 1-based duty number within its schedule
    on_s: IntArray
    off_s: IntArray
    starts: IntArray  #: first interval in the schedules' score column
    counts: IntArray  #: 15-min intervals
    risk: FloatArray  #: stored R (NaN where none)
    runs: list[tuple[tuple[int, int], ...]]  #: at-work runs of intervals

    @property
    def n(self) -> int:
        return int(self.sched.size)


def _flatten(schedules: Sequence[IndexedSchedule]) -> _Duties:
    """The duties of ``schedules`` as :class:`_Duties`, intervals counted across schedules."""
    n = sum(len(s.duties) for s in schedules)
    sched = np.empty(n, dtype=np.int64)
    number = np.empty(n, dtype=np.int64)
    flat = np.empty((n, 4), dtype=np.int64)
    risk = np.full(n, np.nan)
    runs_of: list[tuple[tuple[int, int], ...]] = []
    row = 0
    offset = 0
    for i, entry in enumerate(schedules):
        k = len(entry.duties)
        sched[row : row + k] = i
        number[row : row + k] = np.arange(1, k + 1)
        for on, off, first, count, r, runs in entry.duties:
            flat[row] = (on, off, offset + first, count)
            if r is not None and math.isfinite(r):
                risk[row] = r
            runs_of.append(runs)
            row += 1
        offset += entry.interval_count
    return _Duties(sched, number, flat[:, 0], flat[:, 1], flat[:, 2], flat[:, 3], risk, runs_of)


def _summarise(
    duties: _Duties, column: npt.NDArray[np.floating], level: float
) -> tuple[DutySummaries, npt.NDArray[np.bool_]]:
    """Each duty's score summaries (:func:`vigil.scoring.controls.duty_summaries`) and the
    at-work mask of its intervals.

    Only the intervals at work count (:mod:`vigil.scoring.controls`); "at or above" to the
    stored precision: scores are kept to 3 decimals (:mod:`vigil.results.compact`).
    """
    values = _duty_values(column, duties.starts, duties.counts)
    # interval lengths: 15 min, the last of each duty cut at off duty (contract §4)
    counts = duties.counts
    length = np.full(values.shape, float(INTERVAL_S))
    has = counts > 0
    ends = np.cumsum(counts) - 1
    length[ends[has]] = (duties.off_s - duties.on_s - INTERVAL_S * (counts - 1))[has]
    working = mask_from_ranges(counts, duties.runs)
    summary = duty_summaries(values, counts, length, working, level, LEVEL_TOLERANCE)
    return summary, working


def _rest_intervals(counts: IntArray, working: npt.NDArray[np.bool_]) -> IntArray:
    """Intervals of each duty not at work: the crew member's own rest."""
    n = counts.size
    at_work = np.bincount(np.repeat(np.arange(n), counts), weights=working, minlength=n)
    out: IntArray = counts - at_work.astype(np.int64)
    return out


def _peak_at(duties: _Duties, peak_index: IntArray) -> IntArray:
    """Start of each duty's peak interval [s since the epoch]; on duty where it has none."""
    first_row = np.cumsum(duties.counts) - duties.counts
    peak_at = duties.on_s + np.maximum(peak_index - first_row, 0) * INTERVAL_S
    out: IntArray = np.where(peak_index >= 0, peak_at, duties.on_s)
    return out


def _rest_before(duties: _Duties) -> FloatArray:
    """Hours since the schedule's previous duty went off (NaN for a schedule's first)."""
    same = np.zeros(duties.n, dtype=bool)
    same[1:] = duties.sched[1:] == duties.sched[:-1]
    rest = np.full(duties.n, np.nan)
    rest[1:] = (duties.on_s[1:] - duties.off_s[:-1]) / 3600.0
    out: FloatArray = np.where(same, rest, np.nan)
    return out


def _check_facts(facts: RosterFacts, n: int) -> None:
    """Raise ``ValueError`` unless ``facts`` describe ``n`` duties, as the stored scores do."""
    if len(facts.start) != n:
        raise ValueError("roster facts do not match the stored duties")


def _crew(facts: RosterFacts, n: int) -> IntArray:
    """Each duty's CrewComposition, or zeros (unknown) where the facts carry none."""
    return _ints(facts.crew) if len(facts.crew) == n else np.zeros(n, dtype=np.int64)


def _table(
    schedules: Sequence[IndexedSchedule],
    column: npt.NDArray[np.floating],
    facts: RosterFacts,
    scale: str,
    level: float | None,
    bands: tuple[RiskBand, ...],
    drivers: npt.NDArray[np.float32] | None = None,
) -> DutyTable:
    """The one builder: every duty of ``schedules``, its scores in ``column`` (the schedules'
    intervals back to back), and what drives each duty's risk where stored (``drivers``)."""
    level = warning_level(scale) if level is None else level
    duties = _flatten(schedules)
    _check_facts(facts, duties.n)
    summary, working = _summarise(duties, column, level)
    home_offset = _ints(facts.home_offset)
    return DutyTable(
        scale=scale,
        level=level,
        references=[s.reference for s in schedules],
        fleet=facts.fleet,
        rank=facts.rank,
        home=facts.home,
        airports=facts.airports,
        sched=duties.sched,
        number=duties.number,
        on_s=duties.on_s,
        off_s=duties.off_s,
        start=_ints(facts.start),
        end=_ints(facts.end),
        sectors=_ints(facts.sectors),
        start_offset=_ints(facts.start_offset),
        end_offset=_ints(facts.end_offset),
        home_offset=home_offset,
        kind=_kinds(duties.on_s, duties.off_s, home_offset),
        risk=duties.risk,
        peak=np.round(summary.peak, 3),
        mean=np.round(summary.mean, 3),
        minutes=(duties.off_s - duties.on_s) / 60.0,
        above_minutes=np.round(summary.above_minutes, 2),
        working_minutes=summary.working_minutes,
        tod=np.round(summary.tod, 3),
        rest_before_h=_rest_before(duties),
        intervals=duties.counts.copy(),
        rest_intervals=_rest_intervals(duties.counts, working),
        peak_at_s=_peak_at(duties, summary.peak_index),
        bands=bands,
        crew=_crew(facts, duties.n),
        drivers=drivers if drivers is not None and drivers.shape[0] == duties.n else None,
    )


def schedule_table(
    stored: StoredScores,
    facts: RosterFacts,
    index: int,
    scale: str,
    *,
    first_duty: int = -1,
    level: float | None = None,
    bands: tuple[RiskBand, ...] = RISK_BANDS,
) -> DutyTable:
    """The duties of schedule ``index`` alone (a chart page: no work on the others).

    ``stored`` is the whole roster's, or, with ``first_duty`` (the schedule's first duty
    among all the roster's), a one-schedule :class:`StoredScores` of
    :func:`vigil.results.one.one_schedule`.
    """
    if first_duty < 0:
        first_duty = sum(len(s.duties) for s in stored.schedules[:index])
        first_row = sum(s.interval_count for s in stored.schedules[:index])
        entry = stored.schedules[index]
        drivers = stored.drivers
        one = StoredScores(
            stored.scales,
            [entry],
            stored.matrix[first_row : first_row + entry.interval_count],
            drivers[first_duty : first_duty + len(entry.duties)] if drivers is not None else None,
        )
    else:
        one, entry = stored, stored.schedules[0]
    rows = slice(first_duty, first_duty + len(entry.duties))
    part = RosterFacts(
        fleet=[facts.fleet[index]],
        rank=[facts.rank[index]],
        home=[facts.home[index]],
        airports=facts.airports,
        start=facts.start[rows],
        end=facts.end[rows],
        sectors=facts.sectors[rows],
        start_offset=facts.start_offset[rows],
        end_offset=facts.end_offset[rows],
        home_offset=facts.home_offset[rows],
        crew=facts.crew[rows],
    )
    return duty_table(one, part, scale, level=level, bands=bands)
