"""The S + C sleep gates of the Three-Process Model (reference §4.2; Åkerstedt & Folkard 1996).

Onset when ``S + C <= G_on``, spontaneous waking when ``S + C >= G_wake``. Crossings are
found by a safe forward scan (steps of at least 5 minutes, longer when ``S + C`` is far from
the gate, bounded by the Lipschitz constant of ``S + C`` so no crossing is skipped), then by
bisection to 1 minute (reference §9.2 step 3); times are rounded to the minute (§9.3).
Away from base C is read on the layover's sleep-timing clock (:func:`._clock.local_shift`,
Darwent et al. 2010; Holmes et al. 2012).

References
----------
.. [1] Åkerstedt T, Folkard S (1996). Predicting duration of sleep from the three process
   model of regulation of alertness. Occup Environ Med 53:136-141. doi:10.1136/oem.53.2.136
.. [2] Åkerstedt T, Gillberg M (1981). The circadian variation of experimentally displaced
   sleep. Sleep 4:159-169. doi:10.1093/sleep/4.2.159
.. [3] Darwent D, Dawson D, Roach GD (2010). Prediction of probabilistic sleep distributions
   following travel across multiple time zones. Sleep 33:185-195.
.. [4] Holmes AL, Al-Bayat S, Hilditch C, Bourgeois-Bougrine S (2012). Sleep and sleepiness
   during an ultra long-range flight operation between the Middle East and United States.
   Accid Anal Prev 45S:27-31. doi:10.1016/j.aap.2011.09.021
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._arrays import FloatArray, Numeric, as_float
from ._clock import Clock, ceil_min, clock, local_shift, phi
from ._kernels import Consts, circadian, s_sleep, s_wake
from .parameters import DEFAULT, Parameters
from .sleep_parameters import DEFAULT_SLEEP, SleepParameters

__all__ = ["gate_onset", "spontaneous_wake"]


@nb.njit(cache=True)
def gate_value(
    k: Consts, c: Clock, asleep: bool, s0: float, t_ref: float, q: float, t: float,
    arrived: float,
) -> float:  # fmt: skip
    """S + C at ``t``; S from ``s0`` at ``t_ref`` awake, or asleep with quality ``q``; C on
    the body clock at home (``arrived`` NaN), else on the layover's sleep-timing clock
    (:func:`._clock.local_shift`)."""
    if asleep:
        s = s_sleep(k, s0, t - t_ref, q)
    else:
        s = s_wake(k, s0, t - t_ref)
    f = phi(k, c, t)
    return s + circadian(k, t + f + local_shift(k, c, t, f, arrived))


@nb.njit(cache=True)
def _bisect(
    k: Consts, c: Clock, asleep: bool, s0: float, t_ref: float, q: float, threshold: float,
    lo: float, hi: float, arrived: float,
) -> float:  # fmt: skip
    sign = -1.0 if asleep else 1.0
    while hi - lo > k.tolerance:
        mid = 0.5 * (lo + hi)
        if sign * (gate_value(k, c, asleep, s0, t_ref, q, mid, arrived) - threshold) <= 0.0:
            hi = mid
        else:
            lo = mid
    return hi


@nb.njit(cache=True)
def crossing(
    k: Consts, c: Clock, asleep: bool, s0: float, t_ref: float, q: float, threshold: float,
    a: float, b: float, arrived: float,
) -> float:  # fmt: skip
    """First t in [a, b] with S + C <= threshold (awake) or >= threshold (asleep), else inf.

    Safe forward scan: from a point where the gate is ``h > 0`` away, no crossing can happen
    within ``h / Lipschitz`` hours (``lip``, or ``lip_away`` on a layover's gate clock);
    steps are at least ``scan_step`` (5 min, ref §9.2).
    Then bisection to ``tolerance`` (1 min); returns the upper end of the bracket.
    """
    sign = -1.0 if asleep else 1.0
    lip = k.lip if math.isnan(arrived) else k.lip_away
    x = a
    hx = sign * (gate_value(k, c, asleep, s0, t_ref, q, x, arrived) - threshold)
    if hx <= 0.0:
        return a
    while x < b:
        nx = min(x + max(hx / lip, k.scan_step), b)
        hn = sign * (gate_value(k, c, asleep, s0, t_ref, q, nx, arrived) - threshold)
        if hn <= 0.0:
            return _bisect(k, c, asleep, s0, t_ref, q, threshold, x, nx, arrived)
        x, hx = nx, hn
    return np.inf


@nb.njit(cache=True)
def first_onset(
    k: Consts, c: Clock, s_w: float, t_wake: float, a: float, b: float, arrived: float
) -> float:
    """First allowed sleep onset in [a, b]: ``S + C <= G_on`` (ref §4.2), with C on the
    layover's sleep-timing clock when away since ``arrived`` (NaN at home, §4.3.4)."""
    return crossing(k, c, False, s_w, t_wake, 1.0, k.gate_onset, a, b, arrived)


@nb.njit(cache=True)
def wake_time(
    k: Consts, c: Clock, s_on: float, on: float, q: float, cap_end: float, arrived: float
) -> float:
    """Spontaneous wake (S + C >= G_wake, ref §4.2) or ``cap_end``, whole minutes; C as
    in :func:`first_onset`."""
    wake = crossing(k, c, True, s_on, on, q, k.gate_wake, on, cap_end, arrived)
    return min(ceil_min(wake), cap_end) if wake < np.inf else cap_end


# ---------------------------------------------------------------------------------------
# Public vectorised building blocks (constant body-clock offset).


@nb.njit(cache=True)
def _onset_many(
    k: Consts, t_from: FloatArray, s_from: FloatArray, phase: FloatArray, limit: FloatArray,
    out: FloatArray,
) -> None:  # fmt: skip
    for i in range(t_from.shape[0]):
        c = clock(k, t_from[i], phase[i], np.full(1, t_from[i]), np.full(1, phase[i]))
        out[i] = crossing(k, c, False, s_from[i], t_from[i], 1.0, k.gate_onset, t_from[i],
                          limit[i], np.nan)  # fmt: skip


@nb.njit(cache=True)
def _wake_many(
    k: Consts, onset: FloatArray, s_onset: FloatArray, phase: FloatArray, q: FloatArray,
    limit: FloatArray, out: FloatArray,
) -> None:  # fmt: skip
    for i in range(onset.shape[0]):
        c = clock(k, onset[i], phase[i], np.full(1, onset[i]), np.full(1, phase[i]))
        cap = min(onset[i] + k.max_sleep, limit[i])
        w = crossing(k, c, True, s_onset[i], onset[i], q[i], k.gate_wake, onset[i], cap, np.nan)
        out[i] = min(w, cap)


def _f(x: object) -> FloatArray:
    return np.ascontiguousarray(x, dtype=np.float64)


def gate_onset(
    time_from: Numeric,
    s_from: Numeric,
    phase: Numeric = 0.0,
    limit: Numeric = np.inf,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> FloatArray:
    """First instant at or after ``time_from`` when ``S + C <= G_on`` (reference §4.2).

    Parameters
    ----------
    time_from : numeric
        Start of the search; the person is awake with S = ``s_from`` then. [epoch h]
    s_from : numeric
        S at ``time_from``. [TPM units]
    phase : numeric
        Constant body-clock offset φ. [h]
    limit : numeric
        End of the search. [epoch h]

    Returns
    -------
    numpy.ndarray
        Onset [epoch h] within 1 minute (bisection tolerance), ``inf`` if none before ``limit``.
    """
    t, s, ph, lim = np.broadcast_arrays(*(as_float(v) for v in (time_from, s_from, phase, limit)))
    out = np.empty(t.size)
    lim_f = np.where(np.isfinite(lim), lim, t + 240.0).ravel()
    _onset_many(sleep_params.kernel(params), _f(t.ravel()), _f(s.ravel()), _f(ph.ravel()),
                _f(lim_f), out)  # fmt: skip
    return out.reshape(t.shape)


def spontaneous_wake(
    onset: Numeric,
    s_onset: Numeric,
    phase: Numeric = 0.0,
    quality: Numeric = 1.0,
    limit: Numeric = np.inf,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> FloatArray:
    """Wake time of a sleep starting at ``onset``: first ``S + C >= G_wake`` (reference §4.2).

    Capped at ``onset + max_sleep`` (10 h) and at ``limit`` (forced wake, §4.3.1).

    Parameters
    ----------
    onset : numeric
        Sleep onset. [epoch h]
    s_onset : numeric
        S at onset. [TPM units]
    phase : numeric
        Constant body-clock offset φ. [h]
    quality : numeric
        Restorative value per hour of sleep q. [-]
    limit : numeric
        Forced wake. [epoch h]

    Returns
    -------
    numpy.ndarray
        Wake time [epoch h] (1-minute tolerance).
    """
    arrays = np.broadcast_arrays(*(as_float(v) for v in (onset, s_onset, phase, quality, limit)))
    t, s, ph, q, lim = (_f(a.ravel()) for a in arrays)
    out = np.empty(t.size)
    _wake_many(sleep_params.kernel(params), t, s, ph, q, lim, out)
    return out.reshape(arrays[0].shape)
