"""Where every duty and interval of a chunk of crew sits, and each crew member's timeline.

:func:`build_layout` turns a chunk of a :class:`~vigil.scoring.plan.CrewPlan` into flat
per-duty and per-interval arrays
(:class:`Layout`); :func:`build_timeline` gives the model's :class:`~vigil.model.CrewTimeline`
(warm-up start, body-clock target, sleep episodes). Each crew member's intervals are
consecutive rows (``Layout.interval_ptr``), so their samples go to the model flat
(:func:`vigil.model.interval_kss.interval_kss`, ``docs/architecture.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.contract import INTERVAL_HOURS
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, IntArray
from vigil.scoring.plan import CrewPlan
from vigil.scoring.sleep_arrays import SleepArrays

__all__ = ["Layout", "build_layout", "build_timeline", "pad_csr"]

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Layout:
    """Where every duty and interval of a chunk sits, as flat arrays.

    Duties (``D`` of them) are indexed in crew order then duty order; intervals (``T``)
    in duty order. Crew rows of the model arrays hold each crew member's intervals back
    to back, ``spi`` samples each (the layout of :func:`vigil.model.interval_means`).
    """

    n_crew: int
    crew: npt.NDArray[np.int64]  # (D,) crew row of each duty
    on: FloatArray  # (D,) report [epoch h]
    off: FloatArray  # (D,) off duty [epoch h]
    count: npt.NDArray[np.int64]  # (D,) intervals per duty
    slot: npt.NDArray[np.int64]  # (D,) duty position within its crew member
    sectors: FloatArray  # (D,)
    workload: FloatArray  # (D,)
    cabin: npt.NDArray[np.bool_]  # (D,)
    rest_start: FloatArray  # (D, r) own rest windows (in-flight and split breaks), NaN pad
    rest_end: FloatArray  # (D, r)
    inflight: npt.NDArray[np.bool_]  # (D, r) which windows are in-flight rest
    duty: npt.NDArray[np.int64]  # (T,) duty of each interval
    position: npt.NDArray[np.int64]  # (T,) interval index within its duty
    column: npt.NDArray[np.int64]  # (T,) interval index within its crew row
    start: FloatArray  # (T,) interval start [epoch h]
    width: int  # most intervals of any crew member
    #: (n_crew + 1,) crew member ``c``'s intervals are rows ``ptr[c]:ptr[c + 1]`` (crew
    #: order, then time order)
    interval_ptr: npt.NDArray[np.int64]

    @property
    def interval_crew(self) -> npt.NDArray[np.int64]:
        return self.crew[self.duty]


def build_layout(plan: CrewPlan, lo: int, hi: int) -> Layout:
    """Every duty and interval of crew members ``lo:hi`` of ``plan`` as :class:`Layout`."""
    d0, d1 = int(plan.offsets[lo]), int(plan.offsets[hi])
    n_crew = hi - lo
    count_a = plan.count[d0:d1]
    on_a = plan.on[d0:d1]
    n_duty = count_a.size
    n_int = int(count_a.sum())
    crew_a, slot = np.empty(n_duty, np.int64), np.empty(n_duty, np.int64)
    duty_idx, position = np.empty(n_int, np.int64), np.empty(n_int, np.int64)
    column, start = np.empty(n_int, np.int64), np.empty(n_int)
    interval_ptr = np.zeros(n_crew + 1, np.int64)
    width = _walk(
        plan.offsets[lo : hi + 1],
        count_a,
        on_a,
        crew_a,
        slot,
        duty_idx,
        position,
        column,
        start,
        interval_ptr,
    )
    rest_start, rest_end, inflight = _rest_rows(plan, d0, d1)
    return Layout(
        n_crew=n_crew,
        crew=crew_a,
        on=on_a,
        off=plan.off[d0:d1],
        count=count_a,
        slot=slot,
        sectors=plan.sectors[d0:d1],
        workload=plan.workload[d0:d1],
        cabin=plan.cabin[d0:d1],
        rest_start=rest_start,
        rest_end=rest_end,
        inflight=inflight,
        duty=duty_idx,
        position=position,
        column=column,
        start=start,
        width=width,
        interval_ptr=interval_ptr,
    )


@nb.njit(cache=True)
def _walk(
    offsets: IntArray,
    count: IntArray,
    on: FloatArray,
    crew: IntArray,
    slot: IntArray,
    duty: IntArray,
    position: IntArray,
    column: IntArray,
    start: FloatArray,
    interval_ptr: IntArray,
) -> int:
    """Fill the duty (``crew``, ``slot``), interval (``duty`` to ``start``) and crew
    (``interval_ptr``) columns of :class:`Layout` in one pass over crew rows ``offsets``;
    return the most intervals of any crew member (``width``)."""
    width = 0
    t = 0
    for c in range(offsets.size - 1):
        first = offsets[c] - offsets[0]
        col = 0
        for d in range(first, offsets[c + 1] - offsets[0]):
            crew[d] = c
            slot[d] = d - first
            for k in range(count[d]):
                duty[t] = d
                position[t] = k
                column[t] = col
                start[t] = on[d] + INTERVAL_HOURS * k
                col += 1
                t += 1
        interval_ptr[c + 1] = t
        width = max(width, col)
    return width


def _rest_rows(plan: CrewPlan, d0: int, d1: int) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Own rest windows of duties ``d0:d1`` as ``(D, r)`` rows: start, end, in-flight."""
    rest = plan.rest_ptr[d0 : d1 + 1]
    r0, r1 = int(rest[0]), int(rest[-1])
    if r0 == r1:  # no duty has rest of its own (the common short-haul month)
        shape = (d1 - d0, 1)
        return np.full(shape, np.nan), np.full(shape, np.nan), np.zeros(shape, dtype=bool)
    rest_shape, rest_cells = _csr_cells(rest)  # one scatter index for the three columns
    rest_start = np.full(rest_shape, np.nan)
    rest_start[rest_cells] = plan.rest_start[r0:r1]
    rest_end = np.full(rest_shape, np.nan)
    rest_end[rest_cells] = plan.rest_end[r0:r1]
    inflight = np.zeros(rest_shape, dtype=bool)
    inflight[rest_cells] = plan.rest_inflight[r0:r1]
    return rest_start, rest_end, inflight


def build_timeline(
    start: FloatArray,
    sleep: SleepArrays,
    zones: tuple[IntArray, FloatArray, FloatArray],
) -> model.CrewTimeline:
    """Warm-up start, body-clock target and sleep episodes of each crew member.

    ``zones`` is the CSR body-clock target of :func:`vigil.scoring.zones.crew_zone_timelines`
    (its first point at ``start``), ``sleep`` the CSR episodes of the same crew members.
    """
    z_ptr, z_time, z_offset = zones
    return model.CrewTimeline(
        start=start,
        s_start=np.full(start.size, grid.S_AT_WAKING),
        phase_start=z_offset[z_ptr[:-1]],
        sleep_start=pad_csr(sleep.ptr, sleep.start),
        sleep_end=pad_csr(sleep.ptr, sleep.end),
        sleep_quality=pad_csr(sleep.ptr, sleep.quality, 1.0),
        zone_time=pad_csr(z_ptr, z_time),
        zone_offset=pad_csr(z_ptr, z_offset),
    )


def pad_csr(ptr: IntArray, values: FloatArray, fill: float = np.nan) -> FloatArray:
    """Rows ``values[ptr[i]:ptr[i + 1]]`` as a right-padded ``(len(ptr) - 1, width)`` array."""
    if ptr.size == 2 and ptr[1] > ptr[0]:  # one crew member (a request): a plain copy
        return np.array(values[ptr[0] : ptr[1]], dtype=np.float64)[None, :]
    shape, cells = _csr_cells(ptr)
    out = np.full(shape, fill, dtype=np.float64)
    out[cells] = values[ptr[0] : ptr[-1]]
    return out


def _csr_cells(ptr: IntArray) -> tuple[tuple[int, int], tuple[IntArray, IntArray]]:
    """Shape of the right-padded array of CSR rows ``ptr`` (at least one column) and the
    ``(row, column)`` cell of each value ``ptr[0]:ptr[-1]`` in it."""
    counts = np.diff(ptr)
    n = counts.size
    rows = np.repeat(np.arange(n), counts)
    cols = np.arange(rows.size) - np.repeat(ptr[:-1] - ptr[0], counts)
    return (n, max(int(counts.max()) if n else 0, 1)), (rows, cols)
