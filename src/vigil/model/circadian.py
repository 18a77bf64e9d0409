"""Circadian (C) and 12-hour (U) processes, and the body-clock phase after time-zone changes.

Body-clock time is ``τ_b = (t_UTC + φ) mod 24`` with φ the body-clock offset from UTC [h]
(reference §3). C and U are evaluated on τ_b.

References
----------
.. [1] Åkerstedt T, Folkard S, Portin C (2004). Predictions from the three-process model of
   alertness. Aviat Space Environ Med 75(3 Suppl):A75-A83.
.. [2] Waterhouse J, Reilly T, Atkinson G, Edwards B (2007). Jet lag: trends and coping
   strategies. Lancet 369:1117-1129. doi:10.1016/S0140-6736(07)60529-7
.. [3] Eastman CI, Burgess HJ (2009). How to travel the world without jet lag. Sleep Med
   Clin 4:241-255. doi:10.1016/j.jsmc.2009.02.006
.. [4] Ingre M et al. (2014). Validating and extending the three process model of alertness
   in airline operations. PLoS ONE 9(10):e108679. doi:10.1371/journal.pone.0108679
"""

from __future__ import annotations

import numpy as np

from ._arrays import FloatArray, Numeric, as_float
from .parameters import DEFAULT, Parameters


def body_clock_time(epoch_hours: Numeric, phase: Numeric) -> FloatArray:
    """Body-clock time of day ``(t + φ) mod 24`` [h] for UTC epoch hours ``t`` and offset φ [h]."""
    return np.mod(as_float(epoch_hours) + as_float(phase), 24.0)


def wrap_offset(hours: Numeric) -> FloatArray:
    """Wrap a clock difference into ``(-12, 12]`` [h] (reference §3)."""
    return 12.0 - np.mod(12.0 - as_float(hours), 24.0)


def circadian_process(body_time: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """The 24-h circadian process C at body-clock time ``body_time``.

    Parameters
    ----------
    body_time : numeric
        Body-clock time (any real; periodic in 24 h). [h]
    params : Parameters
        Uses ``cm``, ``ca`` and ``p``.

    Returns
    -------
    numpy.ndarray
        C [TPM units], ``Cm + Ca·cos(2π(τ_b - p)/24)`` (reference §2.2, [1]_).
    """
    tau = as_float(body_time)
    return params.cm + params.ca * np.cos(2.0 * np.pi * (tau - params.p) / 24.0)


def ultradian_process(body_time: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """The 12-h process U at body-clock time ``body_time``.

    Returns ``Um + Ua·cos(2π(τ_b - p - 3)/12)`` [TPM units] (reference §2.2, [1]_); with the
    defaults it lies in [-1, 0] with troughs at 13.8 h and 01.8 h body time.
    """
    tau = as_float(body_time)
    return params.um + params.ua * np.cos(2.0 * np.pi * (tau - params.p - params.u_shift) / 12.0)


def advance_phase(
    phase0: Numeric, target: Numeric, hours: Numeric, params: Parameters = DEFAULT
) -> FloatArray:
    """Body-clock offset φ after ``hours`` of exposure to a constant target offset θ.

    Parameters
    ----------
    phase0 : numeric
        φ at the start. [h]
    target : numeric
        θ, the UTC offset of where the person is. [h]
    hours : numeric
        Elapsed time (>= 0). [h]
    params : Parameters
        ``phase_model``, ``rate_east``, ``rate_west``, ``phase_daily_fraction``.

    Returns
    -------
    numpy.ndarray
        φ [h]. Not wrapped: after an antidromic (delaying) re-entrainment φ ends at
        θ - 24, which is the same body-clock time as θ.

    Notes
    -----
    ``Δ = wrap(θ - φ0)`` in (-12, 12]. "linear" (default, reference §3 [P/C], [2]_ [3]_):
    φ moves toward θ at ``r_E`` (advance, Δ > 0) or ``r_W`` (delay) [h/day] and stops on
    arrival; if ``Δ > 24·r_E/(r_E + r_W)`` (9.6 h) it delays by ``24 - Δ`` instead
    (antidromic rule [C]). "exponential" (``ingre2014_exp`` [4]_): each day closes the fraction
    ``phase_daily_fraction`` of the remaining gap, ``Δ(t) = Δ0·exp(-k t)``,
    ``k = -ln(1 - 0.3)/24``.
    """
    phi0, theta, t = as_float(phase0), as_float(target), as_float(hours)
    delta = wrap_offset(theta - phi0)
    if params.phase_model == "exponential":
        k = -np.log(1.0 - params.phase_daily_fraction) / 24.0
        moved: FloatArray = phi0 + delta * (1.0 - np.exp(-k * t))
        return moved
    r_e, r_w = params.rate_east / 24.0, params.rate_west / 24.0  # [h/h]
    antidromic = delta > params.antidromic_threshold
    move = np.where(antidromic, delta - 24.0, delta)  # signed distance to travel [h]
    rate = np.where(move > 0.0, r_e, r_w)
    phase: FloatArray = phi0 + np.sign(move) * np.minimum(np.abs(move), rate * t)
    return phase
