"""Workload and sector term ΔKSS_wl of reference §6, as array functions.

Rows are duties: every argument has a leading axis of ``n`` duties (one person may own
several rows). Sample times are epoch hours, ``(n, p)``, NaN-padded. The term is in KSS
units and is added to the model KSS before clipping (:func:`vigil.model.final_kss`).

References
----------
.. [1] Powell DMC, Spencer MB, Holland D, Petrie KJ (2008). Fatigue in two-pilot operations:
   implications for flight and duty time limitations. Aviat Space Environ Med 79:1047-1050.
.. [2] Powell DMC et al. (2007). Pilot fatigue in short-haul operations: effects of number of
   sectors, duty length, and time of day. Aviat Space Environ Med 78:698-701.
.. [3] Honn KA et al. (2016). Fatiguing effect of multiple take-offs and landings in regional
   airline operations. Accid Anal Prev 86:199-208. doi:10.1016/j.aap.2015.10.005
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Callable

import numba as nb
import numpy as np

from ._arrays import FloatArray, as_1d, as_2d, as_float
from .parameters import DEFAULT, Parameters


def flight_period(
    report: object, off: object, params: Parameters = DEFAULT
) -> tuple[FloatArray, FloatArray]:
    """Flight period ``[report + 60 min, off - 30 min]`` [epoch h] (reference §6 [C]).

    The end is never before the start (a very short duty has an empty period).
    """
    start = as_float(report) + params.report_to_takeoff
    end = np.maximum(start, as_float(off) - params.landing_to_off)
    return start, end


def sector_times(
    report: object, off: object, sectors: object, params: Parameters = DEFAULT
) -> tuple[FloatArray, FloatArray]:
    """Take-off and landing instants of evenly spaced sectors (reference §6 [C]).

    Parameters
    ----------
    report, off : array_like, shape (n,)
        Duty report and off-duty instants. [epoch h]
    sectors : array_like, shape (n,)
        Number of sectors (0 allowed).
    params : Parameters

    Returns
    -------
    takeoff, landing : numpy.ndarray, shape (n, max(sectors))
        Sector ``i`` (1-based) takes off at ``F0 + (i - 1)·T/n`` and lands at ``F0 + i·T/n``,
        ``[F0, F0 + T]`` the flight period; NaN beyond each row's sector count. [epoch h]
    """
    report, off = as_1d(report, "report"), as_1d(off, "off")
    n_sec = np.asarray(sectors, dtype=np.int64)
    f0, f1 = flight_period(report, off, params)
    width = int(n_sec.max()) if n_sec.size else 0
    i = np.arange(width)[None, :]
    leg = (f1 - f0) / np.maximum(n_sec, 1)
    valid = i < n_sec[:, None]
    takeoff = np.where(valid, f0[:, None] + i * leg[:, None], np.nan)
    landing = np.where(valid, f0[:, None] + (i + 1) * leg[:, None], np.nan)
    return takeoff, landing


def sectors_started(
    sample_time: object, report: object, off: object, sectors: object, params: Parameters = DEFAULT
) -> FloatArray:
    """``n_started(t)``: take-offs at or before each sample (reference §6), ``(n, p)``.

    Closed form of counting :func:`sector_times` take-offs, with no ``(n, p, s)`` temporary.
    """
    t = as_2d(sample_time, "sample_time")
    n_sec = np.asarray(sectors, dtype=np.float64)[:, None]
    f0, f1 = flight_period(as_1d(report, "report"), as_1d(off, "off"), params)
    leg = ((f1 - f0)[:, None]) / np.maximum(n_sec, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(leg > 0.0, np.floor((t - f0[:, None]) / leg) + 1.0, n_sec)
    started = np.where(t >= f0[:, None], np.clip(k, 0.0, n_sec), 0.0)
    return np.where(np.isnan(t), np.nan, started)


def workload_multiplier(workload: object) -> FloatArray:
    """``m = max(0, 1 + Workload/100)`` for Sectors > 0 (reference §6; blank = 0 → m = 1)."""
    w = np.nan_to_num(as_float(workload), nan=0.0)
    return np.maximum(0.0, 1.0 + w / 100.0)


def equivalent_sectors(workload: object) -> FloatArray:
    """``n_eq = 1 + 3·max(0, w - 10)/10`` for Sectors = 0 (reference §6 [C]).

    10 = "average single sector", 20 = "average four-sector duty", each further 10 up.
    """
    w = np.nan_to_num(as_float(workload), nan=0.0)
    return 1.0 + 3.0 * np.maximum(0.0, w - 10.0) / 10.0


@nb.njit(cache=True, nogil=True)
def _raw_term(
    t: float,
    rep: float,
    end: float,
    n_sec: float,
    wl: float,
    f0: float,
    leg: float,
    b_s: float,
    cap: float,
) -> float:  # pragma: no cover - compiled; equals workload_kss's raw() (tested)
    if n_sec > 0.0:
        if t < f0:
            started = 0.0
        elif leg > 0.0:
            started = min(max(math.floor((t - f0) / leg) + 1.0, 0.0), n_sec)
        else:
            started = n_sec
        m = max(0.0, 1.0 + wl / 100.0)
        return min(cap, b_s * max(0.0, started - 1.0)) * m
    n_eq = 1.0 + 3.0 * max(0.0, wl - 10.0) / 10.0
    ramp = min(max((t - rep) / max(end - rep, 1e-9), 0.0), 1.0)
    return min(cap, b_s * (n_eq - 1.0)) * ramp


#: One duty's inputs to ΔKSS_wl inside the kernels: report, off, sectors, Workload (blank
#: = 0), the flight period's start F0 and the length of one sector's leg (reference §6).
DutyLoad = namedtuple("DutyLoad", ["rep", "end", "n_sec", "wl", "f0", "leg"])


@nb.njit(cache=True, nogil=True, inline="always")
def duty_load(
    rep: float, end: float, n_sec: float, wl: float, to_takeoff: float, to_off: float
) -> DutyLoad:
    """:class:`DutyLoad` of a duty (:func:`flight_period`, legs as :func:`sector_times`)."""
    f0 = rep + to_takeoff
    f1 = max(f0, end - to_off)
    return DutyLoad(rep, end, n_sec, wl, f0, (f1 - f0) / max(n_sec, 1.0))


@nb.njit(cache=True, nogil=True, inline="always")
def workload_at(
    u: DutyLoad, x: float, rs: FloatArray, re: FloatArray, b_s: float, cap: float
) -> float:  # pragma: no cover - compiled; equals workload_kss (tested)
    """ΔKSS_wl of duty ``u`` at sample ``x`` (not NaN): 0 off duty, frozen at half its
    rest-start value inside the duty's own rest windows ``rs``/``re`` (NaN pad)."""
    if not (u.rep <= x < u.end):
        return 0.0
    value = _raw_term(x, u.rep, u.end, u.n_sec, u.wl, u.f0, u.leg, b_s, cap)
    for r in range(rs.shape[0]):
        if rs[r] <= x < re[r]:  # own rest: half, frozen at the rest start
            value = 0.5 * _raw_term(rs[r], u.rep, u.end, u.n_sec, u.wl, u.f0, u.leg, b_s, cap)
    return value


@nb.njit(cache=True, nogil=True, parallel=True)
def _workload_rows(
    t: FloatArray,
    rep: FloatArray,
    end: FloatArray,
    n_sec: FloatArray,
    wl: FloatArray,
    rs: FloatArray,
    re: FloatArray,
    to_takeoff: float,
    to_off: float,
    b_s: float,
    cap: float,
    out: FloatArray,
) -> None:  # pragma: no cover - compiled; tested against the NumPy form
    for i in nb.prange(t.shape[0]):  # rows are independent: every configured thread
        u = duty_load(rep[i], end[i], n_sec[i], wl[i], to_takeoff, to_off)
        for j in range(t.shape[1]):
            x = t[i, j]
            out[i, j] = math.nan if math.isnan(x) else workload_at(u, x, rs[i], re[i], b_s, cap)


def workload_kss_fast(
    sample_time: object,
    report: object,
    off: object,
    sectors: object,
    workload: object,
    rest_start: object | None = None,
    rest_end: object | None = None,
    params: Parameters = DEFAULT,
) -> FloatArray:
    """:func:`workload_kss` as one compiled pass over the samples (same arguments/result).

    The scoring layer calls this for millions of samples; :func:`workload_kss` stays the
    readable NumPy statement of reference §6 and the tests hold the two equal.
    """
    t = np.ascontiguousarray(as_2d(sample_time, "sample_time"))
    n = t.shape[0]
    rep, end = as_1d(report, "report"), as_1d(off, "off")
    n_sec = np.ascontiguousarray(np.asarray(sectors, dtype=np.float64).reshape(n))
    wl = np.nan_to_num(np.asarray(workload, dtype=np.float64).reshape(n), nan=0.0)
    if rest_start is None or rest_end is None:
        rs = np.full((n, 0), np.nan)
        re = np.full((n, 0), np.nan)
    else:
        rs = np.ascontiguousarray(as_2d(rest_start, "rest_start"))
        re = np.ascontiguousarray(as_2d(rest_end, "rest_end"))
    out = np.empty_like(t)
    _workload_rows(
        t,
        np.ascontiguousarray(rep),
        np.ascontiguousarray(end),
        n_sec,
        wl,
        rs,
        re,
        params.report_to_takeoff,
        params.landing_to_off,
        params.workload_per_sector,
        params.workload_cap,
        out,
    )
    return out


def workload_kss(
    sample_time: object,
    report: object,
    off: object,
    sectors: object,
    workload: object,
    rest_start: object | None = None,
    rest_end: object | None = None,
    params: Parameters = DEFAULT,
) -> FloatArray:
    """ΔKSS_wl at each sample of each duty (reference §6 [C]).

    Parameters
    ----------
    sample_time : array_like, shape (n, p)
        Sample instants of duty row ``i`` (NaN pad). Samples outside ``[report, off)``
        get 0 (the term resets at the end of the duty). [epoch h]
    report, off : array_like, shape (n,)
        Duty report and off-duty instants. [epoch h]
    sectors : array_like, shape (n,)
        Sectors (spec column 8).
    workload : array_like, shape (n,)
        Workload (spec column 31; NaN = blank = 0).
    rest_start, rest_end : array_like, shape (n, r), optional
        The person's own in-flight rest windows (NaN pad). [epoch h]
    params : Parameters
        ``workload_per_sector`` b_s, ``workload_cap``, flight timing.

    Returns
    -------
    numpy.ndarray, shape (n, p)
        ΔKSS_wl [KSS]; NaN where ``sample_time`` is NaN.

    Notes
    -----
    Sectors > 0: ``min(cap, b_s·max(0, n_started(t) - 1))·m``. Sectors = 0:
    ``min(cap, b_s·(n_eq - 1))·(t - report)/duration``. During the person's own in-flight
    rest the term is frozen at half its value at the rest start.
    """
    t = as_2d(sample_time, "sample_time")
    rep, end = as_1d(report, "report"), as_1d(off, "off")
    n_sec, wl = np.asarray(sectors, dtype=np.float64), as_float(workload)

    def raw(times: FloatArray) -> FloatArray:
        return _raw_workload(times, rep, end, n_sec, wl, params)

    term = _frozen_in_rest(raw(t), t, rest_start, rest_end, raw)
    on_duty = (t >= rep[:, None]) & (t < end[:, None])
    return np.where(np.isnan(t), np.nan, np.where(on_duty, term, 0.0))


def _raw_workload(
    times: FloatArray,
    rep: FloatArray,
    end: FloatArray,
    n_sec: FloatArray,
    wl: FloatArray,
    params: Parameters,
) -> FloatArray:
    """ΔKSS_wl at ``times`` (n, p) of duty rows ``rep``..``end`` before the in-flight rest
    freeze and the off-duty reset (reference §6 [C]; Notes of :func:`workload_kss`)."""
    started = sectors_started(times, rep, end, n_sec, params)
    flying = (
        np.minimum(params.workload_cap, params.workload_per_sector * np.maximum(0.0, started - 1.0))
        * workload_multiplier(wl)[:, None]
    )
    duration = np.maximum(end - rep, 1e-9)[:, None]
    ramp = np.clip((times - rep[:, None]) / duration, 0.0, 1.0)
    ground = (
        np.minimum(
            params.workload_cap, params.workload_per_sector * (equivalent_sectors(wl) - 1.0)
        )[:, None]
        * ramp
    )
    return np.where((n_sec > 0)[:, None], flying, ground)


def _frozen_in_rest(
    term: FloatArray,
    t: FloatArray,
    rest_start: object | None,
    rest_end: object | None,
    raw: Callable[[FloatArray], FloatArray],
) -> FloatArray:
    """``term`` at samples ``t`` with each in-flight rest window's samples frozen at half
    the ``raw`` term at the window's start (reference §6 [C]); unchanged without windows."""
    if rest_start is None or rest_end is None:
        return term
    rs, re = as_2d(rest_start, "rest_start"), as_2d(rest_end, "rest_end")
    for r in range(rs.shape[1]):
        frozen = 0.5 * raw(np.nan_to_num(rs[:, r : r + 1], nan=-np.inf))  # (n, 1)
        inside = (t >= rs[:, r : r + 1]) & (t < re[:, r : r + 1])
        term = np.where(inside, frozen, term)
    return term
