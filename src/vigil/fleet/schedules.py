"""Sorting, filtering and searching the stored schedules table.

The table is the columnar ``schedules`` part of the stored summary
(:func:`vigil.fleet.summary.schedule_rows`); selecting from 10,000 schedules is a sort of
10,000 keys, with no access to the scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SORT_KEYS", "Selection", "select"]

#: sort key name -> column of the stored table
SORT_KEYS: dict[str, str] = {
    "risk": "maxRisk",
    "peak": "peak",
    "above": "aboveMinutes",
    "share": "aboveShare",
    "duties": "duties",
    "reference": "reference",
}


@dataclass(frozen=True, slots=True)
class Selection:
    """Which schedules a page shows: positions in the stored table, and how many matched."""

    positions: list[int]
    matched: int
    fleets: list[str]
    ranks: list[str]


def select(
    rows: dict[str, list[Any]],
    *,
    sort: str = "risk",
    descending: bool = True,
    fleet: str = "",
    rank: str = "",
    query: str = "",
    offset: int = 0,
    limit: int = 100,
) -> Selection:
    """Schedules matching ``fleet``/``rank`` (exact) and ``query`` (a case-insensitive part
    of the Reference), sorted by ``sort`` (:data:`SORT_KEYS`; absent values last), paged."""
    column = rows[SORT_KEYS.get(sort, "maxRisk")]
    needle = query.strip().casefold()
    fleets, ranks, refs = rows["fleet"], rows["rank"], rows["reference"]
    keep = [
        i
        for i in range(len(refs))
        if (not fleet or fleets[i] == fleet)
        and (not rank or ranks[i] == rank)
        and (not needle or needle in refs[i].casefold())
    ]
    present = [i for i in keep if column[i] is not None]
    absent = [i for i in keep if column[i] is None]
    present.sort(key=lambda i: (column[i], refs[i]), reverse=descending)
    ordered = present + absent
    return Selection(
        ordered[offset : offset + limit],
        len(ordered),
        sorted({f for f in fleets if f}),
        sorted({r for r in ranks if r}),
    )
