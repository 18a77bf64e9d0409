"""Sleep in in-flight rest windows (reference §5.2).

References
----------
.. [1] Signal TL, Gander PH, van den Berg MJ, Graeber RC (2013). In-flight sleep of flight
   crew during a 7-hour rest break. Sleep 36:109-115. doi:10.5665/sleep.2312
.. [2] Roach GD, Darwent D, Sletten TL, Dawson D (2011). Long-haul pilots use in-flight
   napping as a countermeasure to fatigue. Appl Ergon 42:214-218.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._arrays import FloatArray, Numeric, as_float
from ._clock import Clock, ceil_min, circ, floor_min
from ._kernels import Consts, s_sleep, s_wake
from .parameters import DEFAULT, Parameters
from .sleep_parameters import DEFAULT_SLEEP, KIND_INFLIGHT, SleepParameters
from .sleep_windows_out import Out, State, emit

__all__ = ["inflight_efficiency", "inflight_sleep"]


@nb.njit(cache=True, inline="always")
def efficiency_g(k: Consts, x: float) -> float:
    """g(S + C): 1 at or below G_on, g_lo at or above G_wake, linear between (ref §5.2)."""
    if x <= k.gate_onset:
        hi: float = k.g_hi
        return hi
    if x >= k.gate_wake:
        lo: float = k.g_lo
        return lo
    g: float = k.g_hi + (k.g_lo - k.g_hi) * (x - k.gate_onset) / (k.gate_wake - k.gate_onset)
    return g


@nb.njit(cache=True)
def circ_minutes(k: Consts, c: Clock, a0: float, n: int) -> FloatArray:
    """C at the middle of each of the ``n`` minutes from ``a0`` (ref §2.2, body clock §3).

    Computed once per rest window and read by both :func:`propensity` and
    :func:`asleep_minutes`, which see the same minutes.
    """
    out = np.empty(n)
    for i in range(n):
        out[i] = circ(k, c, a0 + (i + 0.5) / 60.0)
    return out


@nb.njit(cache=True)
def propensity(k: Consts, ws: float, c_min: FloatArray, s_w: float, t_wake: float) -> FloatArray:
    """Per-minute sleep propensity ``e(t) = e_max·g(S + C)`` over the minutes of ``c_min``
    from ``ws`` (ref §5.2).

    S is the wake pressure from the last wake, C (``c_min``, :func:`circ_minutes`) follows
    the body clock minute by minute, so a rest window in the wake-maintenance zone (C near
    its evening peak) scores low.
    """
    n = c_min.shape[0]
    e = np.empty(n)
    for i in range(n):
        t = ws + (i + 0.5) / 60.0
        e[i] = k.inflight_efficiency_max * efficiency_g(k, s_wake(k, s_w, t - t_wake) + c_min[i])
    return e


@nb.njit(cache=True)
def asleep_minutes(
    k: Consts, a0: float, c_min: FloatArray, s_w: float, t_wake: float, q: float
) -> float:
    """Expected minutes asleep in the minutes of ``c_min`` from ``a0``: Σ e(t), S fed back.

    Each minute the person is asleep with probability e = e_max·g(S + C), so S recovers
    by that share (quality ``q``) and decays by the rest: propensity falls as the sleep
    pressure is paid off, and long rests give diminishing returns (Gander et al. 2013).
    """
    s = s_wake(k, s_w, a0 - t_wake)
    total = 0.0
    dt = 1.0 / 60.0
    for i in range(c_min.shape[0]):
        e = k.inflight_efficiency_max * efficiency_g(k, s + c_min[i])
        s = e * s_sleep(k, s, dt, q) + (1.0 - e) * s_wake(k, s, dt)
        total += e
    return total


@nb.njit(cache=True)
def best_block(e: FloatArray, m: int) -> int:
    """Start index of the ``m``-minute block of ``e`` with the largest summed propensity."""
    if m >= e.shape[0]:
        return 0
    run = 0.0
    for i in range(m):
        run += e[i]
    best, at = run, 0
    for i in range(m, e.shape[0]):
        run += e[i] - e[i - m]
        if run > best + 1e-12:
            best, at = run, i - m + 1
    return at


@nb.njit(cache=True)
def inflight(k: Consts, c: Clock, ws: float, we: float, q: float, st: State, out: Out) -> State:
    """One block of in-flight sleep in a rest window of length D (ref §5.2, recalibrated).

    Sleep may lie in [ws + L, we - B] (latency L, wake-up buffer B). Its length is the
    integral of the minute-by-minute propensity over that span; it is placed where the
    summed propensity is largest, so it follows the body clock across the window (Gander
    et al. 2013 level and slope; Signal et al. 2013 efficiency; docs/sleep.md).
    """
    n, s_w, t_wake = st
    big_d = we - ws
    lat = min(k.latency_max, k.latency_fraction * big_d)
    buf = min(k.buffer_max, k.buffer_fraction * big_d)
    a0 = ceil_min(ws + lat)
    c_min = circ_minutes(k, c, a0, max(0, int(math.floor((we - buf - a0) * 60.0 + 1e-6))))
    e = propensity(k, a0, c_min, s_w, t_wake)
    m = int(math.floor(asleep_minutes(k, a0, c_min, s_w, t_wake, q) + 1e-6))
    if m / 60.0 < k.inflight_min_sleep - 1e-9:
        return st
    a = a0 + best_block(e, m) / 60.0
    b = floor_min(a + m / 60.0)
    n = emit(out, n, a, b, q, KIND_INFLIGHT)
    s_w = s_sleep(k, s_wake(k, s_w, a - t_wake), b - a, q)
    return (n, s_w, b)


def inflight_efficiency(alertness_gate: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """Fraction of in-flight rest spent asleep, ``e = e_max·g(S + C)`` (reference §5.2).

    ``g`` is 1 when ``S + C <= G_on``, 0.4 when ``S + C >= G_wake``, linear between.
    """
    x = as_float(alertness_gate)
    g_lo, g_hi = params.inflight_efficiency_range
    frac = np.clip((x - params.gate_onset) / (params.gate_wake - params.gate_onset), 0.0, 1.0)
    return params.inflight_efficiency_max * (g_hi + (g_lo - g_hi) * frac)


def inflight_sleep(
    window_hours: Numeric,
    alertness_gate: Numeric,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> tuple[FloatArray, FloatArray]:
    """Sleep inside an in-flight rest window of length D, reference §5.2's closed form.

    The predictor no longer uses it: it integrates the propensity across the window
    (:func:`inflight`, docs/sleep.md). Kept as a building block for comparisons.

    Parameters
    ----------
    window_hours : numeric
        D, the rest window length. [h]
    alertness_gate : numeric
        S + C at the window start. [TPM units]

    Returns
    -------
    latency, hours : numpy.ndarray
        Sleep starts ``latency = min(0.33, 0.15·D)`` after the window start and lasts
        ``min(e·(D - B), D - B - L)`` with ``B = min(0.25, 0.10·D)`` [h] (before the
        kernel's rounding to whole minutes and its 15-minute minimum).
    """
    d = as_float(window_hours)
    lat = np.minimum(sleep_params.latency_max, sleep_params.latency_fraction * d)
    buf = np.minimum(sleep_params.buffer_max, sleep_params.buffer_fraction * d)
    e = inflight_efficiency(alertness_gate, params)
    return lat, np.maximum(0.0, np.minimum(e * (d - buf), d - buf - lat))
