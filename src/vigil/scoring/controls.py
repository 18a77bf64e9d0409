"""Which intervals of a duty the crew member is working: the one mask every summary uses.

Per-interval scores cover the whole duty (contract §4), including the crew member's own
in-flight rest, when the model predicts them asleep or just woken. A duty's *summaries*
(peak, top of descent, mean, time at or above a level, flags, fleet views, exports,
console pages) describe fatigue at work, so they count only the intervals when that crew
member is working:

- an interval is **off** (not at the controls) when it lies wholly inside the person's
  own in-flight rest windows (augmented flight crew and cabin-crew breaks: given in the
  roster or derived, :func:`vigil.scoring.rest.rest_windows`), or inside any sleep that
  overlaps the duty (predicted in-flight sleep, or SleepData), each extended by
  :data:`WAKE_ALLOWANCE_H` after it ends;
- every other interval counts, including one that is only partly at work (the
  conservative reading: an interval is left out only when all of it is rest).

Split-duty ground breaks are not in-flight rest: their awake time counts (as for risk
exposure, reference §7), their sleep does not.

:func:`at_controls` computes the mask from the scorer's layout and sleep;
:func:`rest_ranges` turns it into each duty's ``[first, count]`` runs of off intervals
(what the API's ``restIntervals`` and the stored index carry), and
:func:`mask_from_ranges` rebuilds the mask from them, so stored results, API responses
and in-process reports all summarise through :func:`duty_summaries` with the same mask.

Wake-up allowance
-----------------
20 min after the end of the rest (or sleep) before the crew member counts as back at
work [C]: the recovery period of planned cockpit rest in Rosekind et al. (1994), NASA
TM-108839 (a 40-min rest followed by 20 min before resuming duties), adopted by EASA
GM1 CAT.OP.MPA.210 (controlled rest: 20 min recovery after it). Signal et al. (2012)
found performance decrements from sleep inertia dissipated within 15 min after naps of
20-60 min; Hilditch et al. (2016, Sleep 39:675) saw impairment for up to 47 min after a
30-min nap at 04:00, so 20 min is the operational convention, not an upper bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil.scoring.grid import FloatArray, IntArray
from vigil.scoring.layout import Layout
from vigil.scoring.sleep_arrays import SleepArrays

__all__ = [
    "TOD_INTERVALS",
    "WAKE_ALLOWANCE_H",
    "DutySummaries",
    "RestRanges",
    "at_controls",
    "duty_summaries",
    "mask_from_ranges",
    "rest_ranges",
]

BoolArray = npt.NDArray[np.bool_]
#: one duty's off intervals as ``(first, count)`` runs, relative to the duty's first interval
RestRanges = tuple[tuple[int, int], ...]

#: [h] time after in-flight rest or sleep ends before the crew member counts as working
#: again (module doc: Rosekind et al. 1994; EASA GM1 CAT.OP.MPA.210) [C]
WAKE_ALLOWANCE_H = 20.0 / 60.0
#: intervals of a duty's last hour: the top-of-descent window (approach, landing and
#: taxi-in; the planner's top-of-descent score reads the same hour, docs/planner.md)
TOD_INTERVALS = 4
#: [h] slack for instants computed two ways (report + 15 min·k against a rest bound)
_EPS = 1e-6
_INTERVAL_H = 0.25


def at_controls(
    layout: Layout, sleep: SleepArrays, allowance: float = WAKE_ALLOWANCE_H
) -> BoolArray:
    """Per interval of ``layout`` (``(T,)``): is the crew member working (module doc)?

    ``sleep`` holds the episodes of the layout's crew members (CSR by crew, the chunk's
    :class:`~vigil.scoring.sleep_arrays.SleepArrays`).
    """
    first = np.cumsum(layout.count) - layout.count
    out = np.ones(layout.start.size, dtype=np.bool_)
    _mask(
        layout.crew,
        layout.on,
        layout.off,
        first,
        layout.count,
        np.ascontiguousarray(layout.rest_start),
        np.ascontiguousarray(layout.rest_end),
        np.ascontiguousarray(layout.inflight),
        sleep.ptr,
        sleep.start,
        sleep.end,
        float(allowance),
        out,
    )
    return out


@nb.njit(cache=True)
def _mask(
    crew: IntArray,
    on: FloatArray,
    off: FloatArray,
    first: IntArray,
    count: IntArray,
    rest_start: FloatArray,
    rest_end: FloatArray,
    inflight: BoolArray,
    sleep_ptr: IntArray,
    sleep_start: FloatArray,
    sleep_end: FloatArray,
    allowance: float,
    out: BoolArray,
) -> None:
    """Clear ``out`` for every interval wholly inside a duty's off spans (merged)."""
    n_rest = rest_start.shape[1]
    for d in range(on.size):
        c = crew[d]
        a, b = sleep_ptr[c], sleep_ptr[c + 1]
        spans = np.empty((n_rest + b - a, 2))
        n = 0
        for r in range(n_rest):
            if inflight[d, r] and rest_end[d, r] > rest_start[d, r]:
                spans[n, 0] = rest_start[d, r]
                spans[n, 1] = rest_end[d, r] + allowance
                n += 1
        for i in range(a, b):
            if sleep_start[i] < off[d] and sleep_end[i] > on[d]:
                spans[n, 0] = sleep_start[i]
                spans[n, 1] = sleep_end[i] + allowance
                n += 1
        if n == 0:
            continue
        order = np.argsort(spans[:n, 0])
        merged = np.empty((n, 2))
        m = 0
        for j in order:
            s, e = spans[j, 0], spans[j, 1]
            if m and s <= merged[m - 1, 1] + _EPS:
                merged[m - 1, 1] = max(merged[m - 1, 1], e)
            else:
                merged[m, 0], merged[m, 1] = s, e
                m += 1
        for k in range(count[d]):
            lo = on[d] + _INTERVAL_H * k
            hi = min(lo + _INTERVAL_H, off[d])
            for j in range(m):
                if merged[j, 0] <= lo + _EPS and merged[j, 1] >= hi - _EPS:
                    out[first[d] + k] = False
                    break


def rest_ranges(mask: BoolArray, count: IntArray) -> list[RestRanges]:
    """Each duty's off intervals of ``mask`` as ``(first, count)`` runs relative to the duty.

    ``count`` is the intervals of each duty, in order (``mask`` holds them back to back).
    """
    n = int(count.size)
    first = np.cumsum(count) - count
    # a run starts at an off interval that begins its duty or follows a working one, and
    # ends at one that ends its duty or precedes a working one
    off = ~mask
    begins = off.copy()
    begins[1:] &= mask[:-1]
    ends = off.copy()
    ends[:-1] &= mask[1:]
    edge = first[count > 0]
    begins[edge] = off[edge]
    last = (first + count - 1)[count > 0]
    ends[last] = off[last]
    starts, stops = np.flatnonzero(begins), np.flatnonzero(ends) + 1
    out: list[RestRanges] = [()] * n
    if not starts.size:
        return out
    duty = np.searchsorted(first, starts, side="right") - 1  # past empty duties' shared first
    rel = (starts - first[duty]).tolist()
    length = (stops - starts).tolist()
    owner = duty.tolist()
    at = 0
    while at < len(owner):
        d = owner[at]
        to = at + 1
        while to < len(owner) and owner[to] == d:
            to += 1
        out[d] = tuple(zip(rel[at:to], length[at:to], strict=True))
        at = to
    return out


def mask_from_ranges(count: IntArray, ranges: Sequence[Sequence[Sequence[int]]]) -> BoolArray:
    """The working mask of duties with ``count`` intervals and off runs ``ranges``
    (:func:`rest_ranges`' form; a stored result without runs is all working)."""
    first = np.cumsum(count) - count
    out = np.ones(int(count.sum()), dtype=np.bool_)
    for d, runs in enumerate(ranges):
        for start, n in runs:
            at = int(first[d]) + int(start)
            out[at : at + int(n)] = False
    return out


class DutySummaries(NamedTuple):
    """Per-duty summaries of interval scores, over the working intervals only.

    NaN (``peak``, ``mean``, ``tod``) for a duty without a working interval.
    """

    peak: FloatArray  #: highest working interval score
    peak_index: IntArray  #: its interval (flat index; -1 when none)
    mean: FloatArray  #: working-time-weighted mean score
    tod: FloatArray  #: highest working score in the duty's last hour (top of descent)
    above_minutes: FloatArray  #: working minutes at or above ``level``
    working_minutes: FloatArray  #: working minutes


def _peaks(
    masked: FloatArray, count: IntArray, first: IntArray, duty: IntArray
) -> tuple[FloatArray, IntArray]:
    """Highest working score of each duty (``-inf`` when none) and the index of the first
    interval reaching it (the earliest, as ``np.argmax``; -1 when none)."""
    n = count.size
    peak = np.full(n, -np.inf)
    peak_index = np.full(n, -1, dtype=np.int64)
    has = count > 0
    if masked.size and has.any():
        peak[has] = np.maximum.reduceat(masked, first[has])
        hit = (masked == peak[duty]) & np.isfinite(masked)
        where = np.flatnonzero(hit)
        found = np.full(n, masked.size, dtype=np.int64)
        np.minimum.at(found, duty[where], where)
        peak_index = np.where(found < masked.size, found, -1)
    return peak, peak_index


def _top_of_descent(
    masked: FloatArray, count: IntArray, first: IntArray, duty: IntArray
) -> FloatArray:
    """Highest working score in each duty's last :data:`TOD_INTERVALS` (``-inf`` when none)."""
    position = np.arange(masked.size) - first[duty]
    tod_values = np.where(position >= count[duty] - TOD_INTERVALS, masked, -np.inf)
    tod = np.full(count.size, -np.inf)
    has = count > 0
    if masked.size and has.any():
        tod[has] = np.maximum.reduceat(tod_values, first[has])
    return tod


def duty_summaries(
    values: FloatArray,
    count: IntArray,
    length_s: FloatArray,
    mask: BoolArray,
    level: float,
    tolerance: float = 0.0,
) -> DutySummaries:
    """Peak, mean, top of descent and time at or above ``level`` of each duty.

    ``values`` are interval scores of duties with ``count`` intervals each, back to back;
    ``length_s`` each interval's length [s] (the last is cut at off duty, contract §4);
    ``mask`` the working intervals (:func:`at_controls`, :func:`mask_from_ranges`);
    ``tolerance`` lowers the level for scores stored with rounding (half a last decimal).
    """
    count = np.asarray(count, dtype=np.int64)
    n = count.size
    first = np.cumsum(count) - count
    duty = np.repeat(np.arange(n), count)
    weight = np.where(mask, length_s, 0.0)
    working = np.bincount(duty, weights=weight, minlength=n)
    total = np.bincount(duty, weights=weight * np.nan_to_num(values), minlength=n)
    above = np.bincount(
        duty, weights=np.where(values >= level - tolerance, weight, 0.0), minlength=n
    )
    masked = np.where(mask, values, -np.inf)
    peak, peak_index = _peaks(masked, count, first, duty)
    tod = _top_of_descent(masked, count, first, duty)
    nan = np.float64(np.nan)
    return DutySummaries(
        peak=np.where(np.isfinite(peak), peak, nan),
        peak_index=peak_index,
        mean=np.where(working > 0, total / np.maximum(working, 1e-9), nan),
        tod=np.where(np.isfinite(tod), tod, nan),
        above_minutes=above / 60.0,
        working_minutes=working / 60.0,
    )
