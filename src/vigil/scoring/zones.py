"""Body-clock target timelines θ(t) of every crew member (reference §3), as CSR arrays.

Where a crew member is, from the warm-up start to the end of their prediction horizon:
home until the first report, the start airport from report to off duty, the end airport
from off duty on; :func:`crew_zone_timelines` turns those spans of a :class:`CrewPlan`
into the UTC-offset change points the model's body clock follows. A request's few crew
members take a per-crew loop (:func:`bisect` on per-zone lists); rosters take array
passes over all crew at once (:func:`zone_timelines`). Both give the points of the
per-schedule reference (``tests/reference/grid_rows.py``).
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, IntArray

if TYPE_CHECKING:
    from vigil.scoring.plan import CrewPlan

__all__ = ["VECTOR_MIN_CREW", "crew_zone_timelines", "zone_timelines"]


#: From this many crew members on, zone timelines are built by array passes
#: (:func:`zone_timelines`); below, NumPy's per-call cost exceeds the per-crew loop
#: (measured: equal near 50 crew members of an airline month, 0.55 ms).
VECTOR_MIN_CREW = 48


def crew_zone_timelines(
    plan: CrewPlan, start: FloatArray, end: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Body-clock target θ(t) of each crew member from ``start`` to ``end`` (reference §3).

    Home until the first report, the start airport from
    report to off duty, the end airport from off duty on. CSR ``(ptr, time, offset)``.
    """
    n, n_duty = plan.n_crew, plan.on.size
    if 0 < n < VECTOR_MIN_CREW:  # a request's one crew member: the per-crew loop is cheaper
        return _few_crew_timelines(plan, start.tolist(), end.tolist())
    crew = plan.crew
    first = 2 * plan.offsets[:-1] + np.arange(n)  # each crew member's home span
    duty = 2 * np.arange(n_duty) + crew + 1  # report span of each duty; off span follows
    span_time = np.empty(n + 2 * n_duty)
    span_zone = np.empty(n + 2 * n_duty, dtype=np.int64)
    span_time[first], span_zone[first] = start, plan.home_zone
    span_time[duty], span_zone[duty] = plan.on, plan.start_zone
    span_time[duty + 1], span_zone[duty + 1] = plan.off, plan.end_zone
    span_crew = np.repeat(np.arange(n), 2 * np.diff(plan.offsets) + 1)
    return zone_timelines(span_crew, span_time, span_zone, n, end, plan.zones)


def _few_crew_timelines(
    plan: CrewPlan, start: list[float], end: list[float]
) -> tuple[IntArray, FloatArray, FloatArray]:
    """:func:`crew_zone_timelines` of a few crew members, one at a time on Python lists
    (the spans of a request's crew member cost less as lists than as array passes)."""
    on, off = plan.on.tolist(), plan.off.tolist()
    start_zone, end_zone = plan.start_zone.tolist(), plan.end_zone.tolist()
    offsets, home_zone = plan.offsets.tolist(), plan.home_zone.tolist()
    spans: list[tuple[list[float], list[int]]] = []
    for i in range(len(start)):  # home from the warm-up start, then each duty's two spans
        times, zone_ids = [start[i]], [home_zone[i]]
        for d in range(offsets[i], offsets[i + 1]):
            times += (on[d], off[d])
            zone_ids += (start_zone[d], end_zone[d])
        spans.append((times, zone_ids))
    first_year = grid.year_of(min(min(times) for times, _ in spans))
    last_year = grid.year_of(max(max(max(times) for times, _ in spans), max(end)))
    zones = {z for _, zone_ids in spans for z in zone_ids}
    tables = {z: _zone_lists(plan.zones[z], first_year, last_year + 1) for z in zones}
    ptr = np.zeros(len(start) + 1, dtype=np.int64)
    time: list[float] = []
    offset: list[float] = []
    for i, (times, zone_ids) in enumerate(spans):
        _crew_timeline(times, zone_ids, end[i], tables, time, offset)
        ptr[i + 1] = len(time)
    return ptr, np.array(time, dtype=np.float64), np.array(offset, dtype=np.float64)


def _crew_timeline(
    times: list[float],
    zone_ids: list[int],
    end: float,
    tables: Mapping[int, tuple[list[float], list[float]]],
    time: list[float],
    offset: list[float],
) -> None:
    """Append one crew member's change points to ``time``/``offset``.

    As :func:`zone_timelines` for one crew member, by ``bisect`` on the zone tables of
    :func:`_zone_lists` (a request's 30-odd spans cost less than the array passes' setup).
    """
    n = len(times)
    last = math.nan  # the offset of the latest point (NaN: none yet)
    for i in range(n):
        t0 = times[i]
        t1 = times[i + 1] if i + 1 < n else end
        if t1 <= t0 and i + 1 < n:
            continue  # a span ending before it starts adds nothing
        changes, offsets = tables[zone_ids[i]]  # offsets[k + 1] holds from changes[k] on
        k = bisect_right(changes, t0)
        points = [(t0, offsets[k])]
        if k < len(changes) and changes[k] < t1:  # changes inside the span
            j = bisect_left(changes, t1)
            points += zip(changes[k:j], offsets[k + 1 : j + 1], strict=True)
        for t, value in points:
            if value != last:  # consecutive equal offsets merge
                time.append(t)
                offset.append(value)
                last = value


@functools.lru_cache(maxsize=1024)
def _zone_lists(zone: str, first_year: int, stop_year: int) -> tuple[list[float], list[float]]:
    """:func:`_zone_table` as lists: change instants, and the offset before the first
    change followed by the offset from each change on."""
    times, offsets, start_offset = _zone_table(zone, range(first_year, stop_year))
    return times.tolist(), [start_offset, *offsets.tolist()]


def _kept_spans(
    span_crew: IntArray, span_start: FloatArray, span_zone: IntArray, end: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray, IntArray]:
    """Crew member, start, end and zone of each span that adds something: each span lasts
    until its crew member's next one (the last until ``end[crew]``), and a span ending
    before it starts is dropped unless it is its crew member's last."""
    n = span_start.size
    last = np.ones(n, dtype=bool)
    last[:-1] = span_crew[1:] != span_crew[:-1]
    until = np.empty(n)
    until[:-1] = span_start[1:]
    until[last] = end[span_crew[last]]
    keep = last | (until > span_start)
    return span_crew[keep], span_start[keep], until[keep], span_zone[keep]


def _zone_transitions(
    zone: IntArray, t0: FloatArray, t1: FloatArray, zones: Sequence[str]
) -> tuple[FloatArray, IntArray, IntArray, FloatArray, FloatArray]:
    """Per span: its zone's offset at ``t0`` and the range ``[lo, hi)`` of its zone's
    transitions strictly inside ``(t0, t1)``, as indexes into the returned transition
    times and offsets of every zone used, one zone after another."""
    offset0 = np.empty(t0.size)
    lo = np.zeros(t0.size, dtype=np.int64)
    hi = np.zeros(t0.size, dtype=np.int64)
    tables: list[tuple[FloatArray, FloatArray]] = []
    base = 0
    years = _year_range(t0, np.maximum(t0, t1))
    for z in np.unique(zone).tolist():
        times, offsets, start_offset = _zone_table(zones[z], years)
        mine = zone == z
        i = np.searchsorted(times, t0[mine], side="right")
        j = np.searchsorted(times, t1[mine], side="left")
        offset0[mine] = np.concatenate([[start_offset], offsets])[i]  # i = 0: before any change
        lo[mine] = base + i
        hi[mine] = base + np.maximum(j, i)
        tables.append((times, offsets))
        base += times.size
    all_times = np.concatenate([t for t, _ in tables] + [np.zeros(0)])
    all_offsets = np.concatenate([o for _, o in tables] + [np.zeros(0)])
    return offset0, lo, hi, all_times, all_offsets


def _change_points(
    crew: IntArray, zone: IntArray, t0: FloatArray, t1: FloatArray, zones: Sequence[str]
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Crew member, time and offset of every change point: each span's start, then its
    zone's transitions inside it."""
    offset0, lo, hi, all_times, all_offsets = _zone_transitions(zone, t0, t1, zones)
    per_span = hi - lo + 1
    first = np.cumsum(per_span) - per_span
    total = int(per_span.sum())
    time = np.empty(total)
    offset = np.empty(total)
    time[first] = t0
    offset[first] = offset0
    inside = np.ones(total, dtype=bool)
    inside[first] = False
    source = np.repeat(lo - first - 1, per_span) + np.arange(total)
    time[inside] = all_times[source[inside]]
    offset[inside] = all_offsets[source[inside]]
    return np.repeat(crew, per_span), time, offset


def zone_timelines(
    span_crew: IntArray,
    span_start: FloatArray,
    span_zone: IntArray,
    n_crew: int,
    end: FloatArray,
    zones: Sequence[str],
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Every crew member's change points at once, as CSR ``(ptr, time, offset)``.

    ``span_*`` are every crew member's location spans (crew order, then time order): from
    ``span_start`` the person is in ``zones[span_zone]`` until their next span's start
    (the last until ``end[crew]``).
    """
    crew, t0, t1, zone = _kept_spans(span_crew, span_start, span_zone, end)
    point_crew, time, offset = _change_points(crew, zone, t0, t1, zones)
    # merge consecutive equal offsets of one crew member (the first point always stays)
    total = time.size
    new_crew = np.ones(total, dtype=bool)
    new_crew[1:] = point_crew[1:] != point_crew[:-1]
    changed = np.ones(total, dtype=bool)
    changed[1:] = offset[1:] != offset[:-1]
    kept = new_crew | changed
    ptr = np.zeros(n_crew + 1, dtype=np.int64)
    np.cumsum(np.bincount(point_crew[kept], minlength=n_crew), out=ptr[1:])
    return ptr, time[kept], offset[kept]


def _year_range(t0: FloatArray, t1: FloatArray) -> range:
    if t0.size == 0:
        return range(1970, 1971)
    return range(grid.year_of(float(t0.min())), grid.year_of(float(t1.max())) + 1)


def _zone_table(zone: str, years: range) -> tuple[FloatArray, FloatArray, float]:
    """Offset changes of ``zone`` over ``years`` and its offset at the first year's start."""
    times: list[float] = []
    offsets: list[float] = []
    start_offset = 0.0
    for year in years:
        t, o, s = grid.year_table(zone, year)
        if year == years.start:
            start_offset = s
        times += t
        offsets += o
    return np.array(times, dtype=np.float64), np.array(offsets, dtype=np.float64), start_offset
