"""A roster's duties grouped into trips: from leaving home base to landing there again.

A trip (a flown pairing) is the run of one crew member's duties from a duty that reports
at a home-base airport to the duty that lands at one. The rule, per schedule in duty
order (vectorised over the whole :class:`~vigil.fleet.table.DutyTable`):

- a duty starts a new trip when it is the schedule's first, when it reports at a home-base
  airport, or when the duty before it landed at one (that trip is over: a duty starting
  away after it, e.g. after positioning off the roster, opens a new trip);
- the trip ends with the duty before the next trip's first.

A day trip (out and back in one duty, or a turnaround) is a trip of one duty. "Home-base
airport" is any code the schedule's HomeBase cell lists (contract §3.1: the first sets the
base time zone), compared by airport, not by how it is written (IATA or ICAO). A trip that
does not report at home (it began before the roster) or does not land there (still away
when the roster ends) is kept and flagged (:attr:`Trips.starts_home`, :attr:`Trips.ends_home`).

Trip figures, in home-base local time (the time the crew member's days are counted in):
days away (calendar days from the first report to the last off duty, both counted),
layovers (rests between the trip's duties: all are away from home by construction),
nights away (home-base midnights inside those layovers: a red-eye that lands home has
none; a one-night New York layover has one), the highest and summed duty risk R and the
worst duty, duties per risk band, and the pattern: the route sequence (the first duty's
start airport then each duty's end; `` / `` where a duty does not start where the one
before it ended) with the nights, e.g. ``LHR-JFK-LHR, 1 night``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vigil.fleet.table import DutyTable, FloatArray, IntArray

__all__ = [
    "DAY_S",
    "Trips",
    "band_index",
    "canonical_airports",
    "group_trips",
    "home_local",
    "pattern_text",
]

BoolArray = npt.NDArray[np.bool_]
DAY_S = 86_400


@dataclass(frozen=True, slots=True)
class Trips:
    """The trips of a :class:`DutyTable`, one element per trip, in duty order.

    ``trip`` maps each duty to its trip; ``first`` is each trip's first duty and
    ``count`` its number of duties (a trip's duties are ``first … first + count - 1``).
    ``sequence`` indexes :attr:`sequences` (route sequences without the nights) and
    ``pattern`` indexes :attr:`patterns` (with them). ``worst`` is the duty of highest R
    (-1: no duty of the trip has a risk); ``band_counts`` has one column per band in force.
    """

    trip: IntArray
    first: IntArray
    count: IntArray
    sched: IntArray
    report_s: IntArray  #: the first duty's report, UTC [s]
    off_s: IntArray  #: the last duty's off duty, UTC [s]
    report_minute: IntArray  #: the first report, minutes after home-base local midnight
    days: IntArray
    nights: IntArray
    layovers: IntArray
    max_risk: FloatArray
    sum_risk: FloatArray
    worst: IntArray
    band_counts: IntArray
    starts_home: BoolArray
    ends_home: BoolArray
    sequence: IntArray
    sequences: list[str]
    pattern: IntArray
    patterns: list[str]

    def __len__(self) -> int:
        return int(self.first.shape[0])


def home_local(t: DutyTable, epoch_s: IntArray) -> IntArray:
    """Instants of each duty as home-base local seconds (the offset at its report)."""
    return epoch_s + t.home_offset * 60


def band_index(t: DutyTable) -> IntArray:
    """Each duty's position in the bands in force (``-1``: no risk)."""
    lowers = np.asarray([b.lower for b in t.bands[1:]], dtype=np.float64)
    out = np.searchsorted(lowers, np.nan_to_num(t.risk, nan=-np.inf), side="right")
    return np.where(np.isfinite(t.risk), out, -1).astype(np.int64)


def canonical_airports(t: DutyTable) -> IntArray:
    """Airport index → the index of its first spelling (ICAO, else IATA, else as written)."""
    a = t.airports
    first: dict[str, int] = {}
    return np.asarray(
        [first.setdefault(a.icao[i] or a.iata[i] or a.code[i], i) for i in range(len(a.code))],
        dtype=np.int64,
    )


def _at_home(t: DutyTable, airport: IntArray, bases: Sequence[Sequence[int]]) -> BoolArray:
    """Whether each duty's ``airport`` is one of its schedule's HomeBase airports."""
    canon = canonical_airports(t)
    width = max((len(b) for b in bases), default=0)
    if width == 0 or airport.size == 0:
        return np.zeros(airport.shape, dtype=bool)
    table = np.full((len(bases), width), -2, dtype=np.int64)
    for s, codes in enumerate(bases):
        table[s, : len(codes)] = canon[np.asarray(codes, dtype=np.int64)] if codes else -2
    known = airport >= 0
    mine = np.where(known, canon[np.where(known, airport, 0)], -3)
    return np.asarray((table[t.sched] == mine[:, None]).any(axis=1))


def _labels(t: DutyTable, style: str) -> npt.NDArray[np.object_]:
    """Airport labels by index, with ``?`` for a missing airport at index ``-1``."""
    return np.asarray([*(t.airports.label(i, style) for i in range(len(t.airports.code))), "?"])


def pattern_text(sequence: str, nights: int) -> str:
    """A trip's pattern: its route sequence and its nights away."""
    return f"{sequence}, {nights} night{'s' if nights != 1 else ''}"


def _trip_starts(
    t: DutyTable, bases: Sequence[Sequence[int]]
) -> tuple[BoolArray, BoolArray, BoolArray]:
    """Which duties start or end at a home base, and which begin a trip: the first of
    a schedule, one reporting at home, or one after a duty that ended at home."""
    starts_home = _at_home(t, t.start, bases)
    ends_home = _at_home(t, t.end, bases)
    new = np.ones(len(t), dtype=bool)
    if len(t):
        new[1:] = (t.sched[1:] != t.sched[:-1]) | starts_home[1:] | ends_home[:-1]
    return starts_home, ends_home, new


def _nights_away(
    t: DutyTable, new: BoolArray, trip: IntArray, m: int
) -> tuple[IntArray, IntArray, FloatArray]:
    """Home-local report and off times of every duty, and each trip's nights away: the
    home-base midnights inside its layovers (the rests between its duties)."""
    inner = ~new
    local_on = home_local(t, t.on_s)
    local_off = home_local(t, t.off_s)
    midnights = np.zeros(len(t), dtype=np.int64)
    if len(t):
        midnights[1:] = local_on[1:] // DAY_S - local_off[:-1] // DAY_S
    weights = np.where(inner, midnights, 0)
    nights = np.asarray(np.bincount(trip, weights=weights, minlength=m), dtype=np.float64)
    return local_on, local_off, nights


def _trip_risks(
    t: DutyTable, trip: IntArray, last: IntArray, m: int
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Each trip's worst duty (-1: none scored), its risk and the trip's summed risk
    (NaN when no duty of the trip has a risk)."""
    risk = t.risk
    finite = np.isfinite(risk)
    sum_risk = np.bincount(trip, weights=np.where(finite, risk, 0.0), minlength=m)
    # the worst duty: the last of each trip's duties sorted by (trip, risk), NaN lowest
    order = np.lexsort((np.where(finite, risk, -np.inf), trip))
    worst = order[last] if len(t) else np.empty(0, dtype=np.int64)
    has = np.bincount(trip, weights=finite, minlength=m) > 0
    worst = np.where(has, worst, -1)
    max_risk = np.where(has, risk[np.maximum(worst, 0)] if len(t) else 0.0, np.nan)
    return worst, max_risk, np.where(has, sum_risk, np.nan)


def _trip_patterns(
    sequence: IntArray, sequence_labels: list[str], nights: FloatArray
) -> tuple[IntArray, list[str]]:
    """Each trip's pattern (a route sequence with its nights away) and the patterns' text."""
    wide = int(nights.max()) + 1 if nights.size else 1
    pattern_codes, pattern = np.unique(
        sequence * wide + nights.astype(np.int64), return_inverse=True
    )
    pattern_labels = [
        pattern_text(sequence_labels[c // wide], c % wide) for c in pattern_codes.tolist()
    ]
    return pattern.reshape(-1).astype(np.int64), pattern_labels


def group_trips(
    t: DutyTable, bases: Sequence[Sequence[int]] | None = None, *, style: str = "iata"
) -> Trips:
    """The trips of every schedule of ``t`` (module docstring).

    ``bases`` lists each schedule's HomeBase airports (``RosterFacts.base_lists()``;
    default: ``t.home`` alone); ``style`` the airport codes of the patterns.
    """
    if bases is None:
        bases = [[h] if h >= 0 else [] for h in t.home]
    starts_home, ends_home, new = _trip_starts(t, bases)
    trip = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    m = first.size
    count = np.diff(np.append(first, len(t)))
    last = first + count - 1
    local_on, local_off, nights = _nights_away(t, new, trip, m)
    worst, max_risk, sum_risk = _trip_risks(t, trip, last, m)
    band = band_index(t)
    nb = len(t.bands)
    ok = band >= 0
    band_counts = np.bincount(trip[ok] * nb + band[ok], minlength=m * nb).reshape(m, nb)
    sequence, sequence_labels = _sequence_codes(t, new, trip, first, count, style)
    pattern, pattern_labels = _trip_patterns(sequence, sequence_labels, nights)
    return Trips(
        trip=trip.astype(np.int64),
        first=first.astype(np.int64),
        count=count.astype(np.int64),
        sched=t.sched[first],
        report_s=t.on_s[first],
        off_s=t.off_s[last],
        report_minute=(local_on[first] % DAY_S) // 60,
        days=(local_off[last] // DAY_S - local_on[first] // DAY_S + 1).astype(np.int64),
        nights=nights.astype(np.int64),
        layovers=(count - 1).astype(np.int64),
        max_risk=max_risk.astype(np.float64),
        sum_risk=sum_risk,
        worst=worst.astype(np.int64),
        band_counts=band_counts.astype(np.int64),
        starts_home=starts_home[first],
        ends_home=ends_home[last],
        sequence=sequence,
        sequences=sequence_labels,
        pattern=pattern,
        patterns=pattern_labels,
    )


def _sequence_codes(
    t: DutyTable, new: BoolArray, trip: IntArray, first: IntArray, count: IntArray, style: str
) -> tuple[IntArray, list[str]]:
    """Each trip's route sequence as a code, and the sequences' text (module docstring).

    A trip is written as one row of airport pairs, one pair per duty: the duty's start
    (``-2`` where it starts where the duty before ended) and its end, airports as one
    index however spelled (``-1`` unknown, ``-3`` past the trip's last duty); equal rows
    are equal sequences, so only the distinct ones are turned into text.
    """
    n, m = len(t), len(first)
    if n == 0:
        return np.zeros(0, dtype=np.int64), []
    canon = np.append(canonical_airports(t), -1)  # index -1: no airport
    start, end = canon[t.start], canon[t.end]
    broken = np.zeros(n, dtype=bool)
    broken[1:] = start[1:] != end[:-1]
    lead = np.where(new | broken, start, -2)
    position = np.arange(n) - first[trip]
    width = 2 * int(count.max())
    rows = np.full((m, width), -3, dtype=np.int32)
    rows[trip, 2 * position] = lead
    rows[trip, 2 * position + 1] = end
    # equal rows by their bytes (a dict: NumPy's unique over rows sorts far slower)
    raw, step = rows.tobytes(), 4 * width
    seen: dict[bytes, int] = {}
    inverse = np.fromiter(
        (seen.setdefault(raw[k * step : (k + 1) * step], len(seen)) for k in range(m)),
        dtype=np.int64,
        count=m,
    )
    distinct = rows[np.unique(inverse, return_index=True)[1]]
    names = [*(t.airports.label(i, style) for i in range(len(t.airports.code))), "?"]
    labels = []
    for row in distinct.tolist():
        parts = []
        for j in range(0, len(row), 2):
            lead_at, end_at = row[j], row[j + 1]
            if lead_at == -3:
                break
            if j == 0:
                parts.append(f"{names[lead_at]}-{names[end_at]}")
            elif lead_at == -2:
                parts.append(f"-{names[end_at]}")
            else:
                parts.append(f" / {names[lead_at]}-{names[end_at]}")
        labels.append("".join(parts))
    return inverse, labels
