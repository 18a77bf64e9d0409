"""Mean final KSS of every 15-minute score interval, in one compiled pass per crew member.

What the scores of contract §4 are made of, per interval: its samples (minute midpoints,
NaN past off duty), alertness X from the simulation (:mod:`.simulate`), the workload
term ΔKSS_wl of its duty (:mod:`.workload`, reference §6), the final KSS
``clip(KSS_m + ΔKSS_wl, 1, 9)`` (§2.5, :func:`.alertness.final_kss`) and its mean over
the samples inside the duty (§9.2 step 4).

:func:`interval_kss` does all of it sample by sample inside one kernel, so the
``(intervals, samples)`` arrays of X, ΔKSS_wl and the KSS (three per 512-crew chunk of a
month, ~33 MB each) are never written; the values are bit-equal to those steps done array
by array (``tests/model/test_interval_kss.py``): the same scalar formulas in the same
order, and the interval sums added in NumPy's pairwise order (:mod:`._sums`).
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numba as nb
import numpy as np

from ._arrays import FloatArray, IntArray, as_1d, as_2d
from ._kernels import Consts, signed
from ._sums import pairwise_sum
from .parameters import DEFAULT, Parameters
from .simulate import CrewTimeline, Inputs, begin_walk, components, step_walk, u_rotation
from .workload import duty_load, workload_at

__all__ = ["DutyRows", "interval_kss"]


@dataclass(frozen=True, slots=True)
class DutyRows:
    """The duties whose intervals are scored: reference §6's inputs, one row per duty.

    Attributes
    ----------
    report, off : (D,) float
        Report and off-duty instants. [epoch h]
    sectors : (D,) float
        Sectors (spec column 8).
    workload : (D,) float
        Workload (spec column 31; NaN = blank = 0).
    rest_start, rest_end : (D, r) float
        The person's own in-flight rest windows, NaN pad. [epoch h]
    """

    report: FloatArray
    off: FloatArray
    sectors: FloatArray
    workload: FloatArray
    rest_start: FloatArray
    rest_end: FloatArray


#: The duty columns the kernel reads (:class:`DutyRows`, blank Workload as 0).
_Duties = namedtuple("_Duties", ["rep", "end", "n_sec", "wl", "rs", "re"])
#: Scalars of the workload term and of the KSS transform, in the kernel's order.
_Consts = namedtuple(
    "_Consts", ["to_takeoff", "to_off", "b_s", "cap", "kss_intercept", "kss_slope"]
)


def interval_kss(
    timeline: CrewTimeline,
    samples: FloatArray,
    interval_ptr: IntArray,
    interval_duty: IntArray,
    duties: DutyRows,
    params: Parameters = DEFAULT,
    *,
    sample_kss: FloatArray | None = None,
) -> FloatArray:
    """Mean final KSS of each score interval over its samples.

    Parameters
    ----------
    timeline : CrewTimeline
        Sleep and location history of ``n`` crew members.
    samples : (T, spi) float
        Sample instants of each interval, ascending, NaN for the samples past off duty
        (padding, left out of the mean). Crew member ``i``'s intervals are rows
        ``interval_ptr[i]:interval_ptr[i + 1]``, in time order. [epoch h]
    interval_ptr : (n + 1,) int
    interval_duty : (T,) int
        Row of ``duties`` that each interval belongs to.
    duties : DutyRows
    params : Parameters
    sample_kss : (T, spi) float, optional
        Filled with the final KSS of every sample (NaN padding), for scales mapped per
        sample before averaging (reference §2.6).

    Returns
    -------
    numpy.ndarray, shape (T,)
        Mean final KSS of each interval. [KSS]
    """
    t = np.ascontiguousarray(as_2d(samples, "samples"))
    ptr = _checked_ptr(interval_ptr, timeline.n_crew, t.shape[0])
    keep = sample_kss is not None
    sample_kss = _checked_sample_kss(sample_kss, t.shape)
    inp = Inputs(timeline.start, timeline.s_start, timeline.phase_start, timeline.sleep_start,
                 timeline.sleep_end, timeline.sleep_quality, timeline.zone_time,
                 timeline.zone_offset, t)  # fmt: skip
    rows, consts = _duty_rows(duties), _consts(params)
    means = np.empty(t.shape[0])
    duty = np.ascontiguousarray(interval_duty, dtype=np.int64)
    mode, x_extra = _alertness_source(timeline, t, ptr, params)
    _kernel(params.kernel, inp, ptr, duty, rows, consts, keep, means, sample_kss, mode, x_extra)
    return means


def _checked_ptr(interval_ptr: IntArray, n_crew: int, n_intervals: int) -> IntArray:
    """``interval_ptr`` as contiguous int64, checked to run from 0 to ``n_intervals`` in
    ``n_crew + 1`` non-decreasing steps (a clear error, not a kernel reading out of bounds)."""
    ptr = np.ascontiguousarray(interval_ptr, dtype=np.int64)
    if ptr.shape != (n_crew + 1,) or ptr[0] != 0 or ptr[-1] != n_intervals:
        raise ValueError(f"interval_ptr must run from 0 to {n_intervals} in n_crew + 1 steps")
    if (ptr[1:] < ptr[:-1]).any():
        raise ValueError("interval_ptr must be non-decreasing")
    return ptr


def _checked_sample_kss(sample_kss: FloatArray | None, shape: tuple[int, ...]) -> FloatArray:
    """The array the kernel fills with every sample's KSS: ``sample_kss`` checked to be
    C-contiguous and shaped like the samples, or an empty one when none is wanted."""
    if sample_kss is None:
        return np.empty((0, 0))
    if sample_kss.shape != shape or not sample_kss.flags.c_contiguous:
        raise ValueError("sample_kss must be a C-contiguous float64 array shaped like samples")
    return sample_kss


def _duty_rows(duties: DutyRows) -> _Duties:
    """The duties' columns as the kernel takes them (blank workload 0, contiguous rests)."""
    return _Duties(
        as_1d(duties.report, "report"),
        as_1d(duties.off, "off"),
        as_1d(duties.sectors, "sectors"),
        _nan_to_zero(as_1d(duties.workload, "workload")),
        np.ascontiguousarray(as_2d(duties.rest_start, "rest_start")),
        np.ascontiguousarray(as_2d(duties.rest_end, "rest_end")),
    )


def _consts(params: Parameters) -> _Consts:
    """The workload and KSS-mapping parameters the kernel reads, as floats."""
    return _Consts(
        float(params.report_to_takeoff),
        float(params.landing_to_off),
        float(params.workload_per_sector),
        float(params.workload_cap),
        float(params.kss_intercept),
        float(params.kss_slope),
    )


#: Where the kernel's X comes from: its own Three-Process walk, the array given, or both.
_WALK, _GIVEN, _WALK_PLUS = 0, 1, 2


def _alertness_source(
    timeline: CrewTimeline, samples: FloatArray, ptr: IntArray, params: Parameters
) -> tuple[int, FloatArray]:
    """X of the Unified Model (its lapses, :mod:`.unified`) or the slow allostatic term of
    a Three-Process preset with ``slow_weight`` != 0, as a ``(T, spi)`` array; else none."""
    if params.alertness_model != "unified" and params.slow_weight == 0.0:
        return _WALK, np.empty((0, 0))
    from .unified import debt_offset, unified_samples

    ump = unified_samples(timeline, samples, ptr, params)
    if params.alertness_model == "unified":
        return _GIVEN, np.ascontiguousarray(ump.lapses)
    return _WALK_PLUS, np.ascontiguousarray(debt_offset(ump.debt, params))


def _nan_to_zero(values: FloatArray) -> FloatArray:
    """``np.nan_to_num(values, nan=0.0)``; ``values`` itself when all are finite."""
    if np.isfinite(values).all():
        return values
    return np.nan_to_num(values, nan=0.0)


@nb.njit(cache=True, parallel=True)
def _kernel(
    k: Consts,
    inp: Inputs,
    ptr: IntArray,
    duty: IntArray,
    rows: _Duties,
    c: _Consts,
    keep: bool,
    means: FloatArray,
    sample_kss: FloatArray,
    mode: int,
    x_extra: FloatArray,
) -> None:  # pragma: no cover - compiled; tested against the array statement
    """Every crew member in a ``prange`` (``NUMBA_NUM_THREADS`` bounds the cores)."""
    for i in nb.prange(ptr.size - 1):
        _crew(k, inp, signed(i), ptr[i], ptr[i + 1], duty, rows, c, keep, means,
              sample_kss, mode, x_extra)  # fmt: skip


@nb.njit(cache=True)
def _crew(
    k: Consts,
    inp: Inputs,
    i: int,
    lo: int,
    hi: int,
    duty: IntArray,
    rows: _Duties,
    c: _Consts,
    keep: bool,
    means: FloatArray,
    sample_kss: FloatArray,
    mode: int,
    x_extra: FloatArray,
) -> None:  # pragma: no cover - compiled; tested against the array statement
    """Crew member ``i``'s intervals ``lo:hi``, their samples in time order; X from the
    walk, from ``x_extra`` or both (``mode``, :func:`_alertness_source`)."""
    spi = inp.samples.shape[1]
    t0 = inp.start[i]
    g, z, r = begin_walk(k, inp, i)
    u_rot = u_rotation(k)
    values = np.empty(spi)  # the interval's KSS, 0 for padding (as NumPy's masked sum)
    for row in range(lo, hi):
        d = duty[row]
        load = duty_load(
            rows.rep[d], rows.end[d], rows.n_sec[d], rows.wl[d], c.to_takeoff, c.to_off
        )
        inside = 0
        for j in range(spi):
            t = inp.samples[row, j]
            if math.isnan(t):  # past off duty: padding
                values[j] = 0.0
                if keep:
                    sample_kss[row, j] = math.nan
                continue
            inside += 1
            x = math.nan  # before the timeline's start: no alertness
            if mode == 1:  # the Unified Model's lapses (NaN before the start)
                x = x_extra[row, j]
            elif t >= t0:
                g, z, r, _phi = step_walk(k, inp, i, t, g, z, r)
                s, cc, uu, w = components(k, g, r, t, u_rot)
                x = s + cc + uu + w  # X, reference §2.4
                if mode == 2:
                    x += x_extra[row, j]  # the slow allostatic term
            kss = x * c.kss_slope
            kss += c.kss_intercept  # KSS_m, reference §2.5
            kss += workload_at(load, t, rows.rs[d], rows.re[d], c.b_s, c.cap)
            if kss < 1.0:  # clip to [1, 9]; NaN stays NaN
                kss = 1.0
            elif kss > 9.0:
                kss = 9.0
            values[j] = kss
            if keep:
                sample_kss[row, j] = kss
        means[row] = pairwise_sum(values) / max(inside, 1)
