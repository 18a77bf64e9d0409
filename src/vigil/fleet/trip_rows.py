"""Trips as rows for a page or a file: the most hazardous first, filtered, paged.

Order (:func:`trip_order`): duties in the upper bands (the top two in force), then the
highest duty risk R, then the summed R, then the earliest report: the trips an officer
reviews first are those holding the most duties to mitigate or redesign.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vigil.fleet.hot_spots import UPPER_BANDS
from vigil.fleet.records import local_text, utc_text
from vigil.fleet.table import DutyTable, IntArray
from vigil.fleet.trips import Trips

__all__ = ["trip_order", "trip_row", "upper_duties"]


def _num(value: float, digits: int = 3) -> float | None:
    return round(float(value), digits) if math.isfinite(float(value)) else None


def upper_duties(t: DutyTable, trips: Trips) -> IntArray:
    """Each trip's duties in the upper bands."""
    upper: IntArray = trips.band_counts[:, len(t.bands) - UPPER_BANDS :].sum(axis=1)
    return upper.astype(np.int64)


def trip_order(t: DutyTable, trips: Trips, query: str = "") -> IntArray:
    """Trips most hazardous first (module docstring), those whose Reference or pattern
    contains ``query`` (case-insensitive) when given."""
    keys = (
        trips.report_s,
        -np.nan_to_num(trips.sum_risk, nan=-1.0),
        -np.nan_to_num(trips.max_risk, nan=-1.0),
        -upper_duties(t, trips),
    )
    order = np.lexsort(keys)
    needle = query.strip().lower()
    if needle:
        refs = [r.lower() for r in t.references]
        patterns = [p.lower() for p in trips.patterns]
        hit = np.fromiter(
            (
                needle in refs[s] or needle in patterns[p]
                for s, p in zip(trips.sched.tolist(), trips.pattern.tolist(), strict=True)
            ),
            dtype=bool,
            count=len(trips),
        )
        order = order[hit[order]]
    return order.astype(np.int64)


def trip_row(t: DutyTable, trips: Trips, k: int, style: str = "iata") -> dict[str, Any]:
    """Trip ``k`` as a JSON object."""
    s = int(trips.sched[k])
    first = int(trips.first[k])
    worst = int(trips.worst[k])
    home = t.home[s]
    offset = int(t.home_offset[first])
    last = first + int(trips.count[k]) - 1
    worst_route = ""
    if worst >= 0 and t.start[worst] >= 0 and t.end[worst] >= 0:
        a, b = int(t.start[worst]), int(t.end[worst])
        worst_route = f"{t.airports.label(a, style)}–{t.airports.label(b, style)}"
    return {
        "trip": k,
        "reference": t.references[s],
        "fleet": t.fleet[s],
        "rank": t.rank[s],
        "base": t.airports.label(home, style) if home >= 0 else "",
        "pattern": trips.patterns[int(trips.pattern[k])],
        "sequence": trips.sequences[int(trips.sequence[k])],
        "reportUtc": utc_text(int(trips.report_s[k])),
        "offUtc": utc_text(int(trips.off_s[k])),
        "reportHome": local_text(int(trips.report_s[k]), offset),
        "offHome": local_text(int(trips.off_s[k]), int(t.home_offset[last])),
        "firstDuty": int(t.number[first]),
        "lastDuty": int(t.number[last]),
        "duties": int(trips.count[k]),
        "sectors": int(t.sectors[first : last + 1].sum()),
        "days": int(trips.days[k]),
        "nights": int(trips.nights[k]),
        "layovers": int(trips.layovers[k]),
        "maxRisk": _num(trips.max_risk[k]),
        "sumRisk": _num(trips.sum_risk[k]),
        "worstDuty": int(t.number[worst]) if worst >= 0 else None,
        "worstRoute": worst_route,
        "bandCounts": [int(c) for c in trips.band_counts[k]],
        "upper": int(trips.band_counts[k, len(t.bands) - UPPER_BANDS :].sum()),
        "startsHome": bool(trips.starts_home[k]),
        "endsHome": bool(trips.ends_home[k]),
    }
