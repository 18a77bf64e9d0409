"""Sleep in in-flight rest windows (reference §5.2).

References
----------
.. [1] Signal TL, Gander PH, van den Berg MJ, Graeber RC (2013). In-flight sleep of flight
   crew during a 7-hour rest break. Sleep 36:109-115. doi:10.5665/sleep.2312
.. [2] Roach GD, Darwent D, Sletten TL, Dawson D (2011). Long-haul pilots use in-flight
   napping as a countermeasure to fatigue. Appl Ergon 42:214-218.
"""

from __future__ import annotations

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
def inflight(k: Consts, c: Clock, ws: float, we: float, q: float, st: State, out: Out) -> State:
    """One block of in-flight sleep in a rest window of length D (ref §5.2)."""
    n, s_w, t_wake = st
    big_d = we - ws
    lat = min(k.latency_max, k.latency_fraction * big_d)
    buf = min(k.buffer_max, k.buffer_fraction * big_d)
    x = s_wake(k, s_w, ws - t_wake) + circ(k, c, ws)
    e = k.inflight_efficiency_max * efficiency_g(k, x)
    length = min(e * (big_d - buf), big_d - buf - lat)
    a = ceil_min(ws + lat)
    b = floor_min(ws + lat + length)
    if b - a >= k.inflight_min_sleep - 1e-9:
        n = emit(out, n, a, b, q, KIND_INFLIGHT)
        s_w = s_sleep(k, s_wake(k, s_w, a - t_wake), b - a, q)
        t_wake = b
    return (n, s_w, t_wake)


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
    """Sleep inside an in-flight rest window of length D (reference §5.2).

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
