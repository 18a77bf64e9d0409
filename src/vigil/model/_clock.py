"""The body clock as the sleep predictor sees it: φ(t) over one person's zone timeline.

Per zone segment the closed form of reference §3 (:func:`._kernels.phase_at`) is planned
once (:func:`clock`); φ, body-clock time and C at any instant are then read from that plan.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb
import numpy as np

from ._arrays import FloatArray
from ._kernels import Consts, circadian, phase_at, phase_plan, wrap

#: One person's body clock: warm-up start ``t0``, zone change instants ``zt`` and target
#: offsets ``zo``, and per segment (φ at start, move, rate, start time) in ``plan``.
Clock = namedtuple("Clock", ["t0", "zt", "zo", "plan"])


@nb.njit(cache=True)
def clock(k: Consts, t0: float, phi0: float, zt: FloatArray, zo: FloatArray) -> Clock:
    """Plan φ per zone segment from φ(t0) = ``phi0`` (wrapped at each change, as simulated)."""
    nz = zt.shape[0]
    plan = np.empty((nz, 4))
    phi = phi0
    t_prev = t0
    for j in range(nz):
        tj = t0 if j == 0 else max(zt[j], t0)
        if j > 0:
            p = plan[j - 1]
            phi = wrap(phase_at(k, p[0], p[1], p[2], tj - t_prev))
        move, rate = phase_plan(k, phi, zo[j])
        plan[j, 0], plan[j, 1], plan[j, 2], plan[j, 3] = phi, move, rate, tj
        t_prev = tj
    return Clock(t0, zt, zo, plan)


@nb.njit(cache=True)
def zone_index(zt: FloatArray, t: float) -> int:
    """Last j with ``zt[j] <= t`` (0 before the first)."""
    lo, hi = 0, zt.shape[0] - 1
    if t < zt[0] or hi == 0:
        return 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if zt[mid] <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


@nb.njit(cache=True)
def phi(k: Consts, c: Clock, t: float) -> float:
    """φ(t) [h], unwrapped within its segment."""
    j = zone_index(c.zt, t)
    return phase_at(k, c.plan[j, 0], c.plan[j, 1], c.plan[j, 2], max(0.0, t - c.plan[j, 3]))


@nb.njit(cache=True)
def body(k: Consts, c: Clock, t: float) -> float:
    """Body-clock time at ``t`` [h, 0-24)."""
    return (t + phi(k, c, t)) % 24.0


@nb.njit(cache=True)
def circ(k: Consts, c: Clock, t: float) -> float:
    """C at ``t`` (ref §2.2)."""
    return circadian(k, t + phi(k, c, t))


@nb.njit(cache=True, inline="always")
def local_shift(k: Consts, c: Clock, t: float, f: float, arrived: float) -> float:
    """Shift [h] of the sleep gates' clock from body time ``t + f`` (f = φ(t)) on a layover
    entered at ``arrived`` (ref §4.3.4 recalibrated; 0 at home, ``arrived`` NaN).

    The gates run on a sleep-timing clock between body time and local time,
    ``τ = t + φ + w·wrap(θ - φ)``, with ``w = min(1, hours since arrival / local_ramp)``
    the share of local-time sleepers (Darwent et al. 2010's mixture of domicile- and
    local-time sleepers, as its deterministic mean): sleep timing moves toward the local
    night while φ (and so alertness) still follows the body clock [C].
    """
    if math.isnan(arrived):
        return 0.0
    w = min(1.0, max(0.0, t - arrived) / k.local_ramp)
    shift: float = w * wrap(theta(c, t) - f)
    return shift


@nb.njit(cache=True)
def theta(c: Clock, t: float) -> float:
    """Target offset θ (UTC offset of where the person is) at ``t``."""
    value: float = c.zo[zone_index(c.zt, t)]
    return value


@nb.njit(cache=True)
def body_instant_before(k: Consts, c: Clock, t: float, hour: float) -> float:
    """The last instant at or before ``t`` whose body-clock time is ``hour``."""
    tau = t - ((body(k, c, t) - hour) % 24.0)
    for _ in range(2):  # φ drifts slowly: two fixed-point corrections suffice
        tau -= wrap(body(k, c, tau) - hour)
    return tau


@nb.njit(cache=True)
def timing(k: Consts, c: Clock, t: float, arrived: float) -> float:
    """Time on the sleep gates' clock at ``t`` [h, 0-24): body time at home, moved toward
    local time on a layover entered at ``arrived`` (:func:`local_shift`)."""
    f = phi(k, c, t)
    value: float = (t + f + local_shift(k, c, t, f, arrived)) % 24.0
    return value


@nb.njit(cache=True)
def timing_instant_before(k: Consts, c: Clock, t: float, hour: float, arrived: float) -> float:
    """The last instant at or before ``t`` whose :func:`timing` is ``hour`` (at home, NaN
    ``arrived``, exactly :func:`body_instant_before`)."""
    if math.isnan(arrived):
        return body_instant_before(k, c, t, hour)
    tau = t - ((timing(k, c, t, arrived) - hour) % 24.0)
    for _ in range(4):  # the layover ramp moves the clock faster than φ: more corrections
        tau -= wrap(timing(k, c, tau, arrived) - hour)
    if tau > t + 1e-9:
        tau -= 24.0
    return tau


@nb.njit(cache=True, inline="always")
def ceil_min(t: float) -> float:
    """``t`` rounded up to the whole minute [h]."""
    return math.ceil(t * 60.0 - 1e-6) / 60.0


@nb.njit(cache=True, inline="always")
def floor_min(t: float) -> float:
    """``t`` rounded down to the whole minute [h]."""
    return math.floor(t * 60.0 + 1e-6) / 60.0
