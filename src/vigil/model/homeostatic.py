"""Homeostatic process S of the Three-Process Model: closed forms for wake and sleep.

References
----------
.. [1] Åkerstedt T, Folkard S (1997). The three-process model of alertness and its
   extension to performance, sleep latency, and sleep length. Chronobiol Int 14:115-123.
   doi:10.3109/07420529709001149
.. [2] Åkerstedt T, Folkard S, Portin C (2004). Predictions from the three-process model of
   alertness. Aviat Space Environ Med 75(3 Suppl):A75-A83.
.. [3] Wilson MK, Strickland L, Ballard T (2020). FIPS: an R package for biomathematical
   modelling of human fatigue related impairment. JOSS 5(51):2340. doi:10.21105/joss.02340
"""

from __future__ import annotations

import numpy as np

from ._arrays import FloatArray, Numeric, as_float
from .parameters import DEFAULT, Parameters


def wake_pressure(s0: Numeric, hours_awake: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """S after ``hours_awake`` of continuous wake, starting from ``s0`` at waking.

    Parameters
    ----------
    s0 : numeric
        S at the moment of waking (the start of the wake segment). [TPM units]
    hours_awake : numeric
        Time awake since then. [h]
    params : Parameters
        Uses ``la`` and ``d``.

    Returns
    -------
    numpy.ndarray
        S, broadcast over the inputs. [TPM units]

    Notes
    -----
    .. math:: S(t) = l_a + (S_w - l_a)\\,e^{d t}

    reference §2.1, eq. of S' in [1]_; FIPS ``TPM_Sfun`` [3]_.
    """
    s0, t = as_float(s0), as_float(hours_awake)
    return params.la + (s0 - params.la) * np.exp(params.d * t)  # Eq. S (wake) in [1]


def sleep_recovery(
    s0: Numeric,
    hours_asleep: Numeric,
    quality: Numeric = 1.0,
    params: Parameters = DEFAULT,
) -> FloatArray:
    """S after ``hours_asleep`` of sleep with restorative quality ``quality``.

    Parameters
    ----------
    s0 : numeric
        S at sleep onset. [TPM units]
    hours_asleep : numeric
        Elapsed time asleep. [h]
    quality : numeric
        Restorative value per hour of sleep q in (0, 1]; the effective sleep time is
        ``τ = q·t`` (reference §2.1, [C]). [-]
    params : Parameters
        Uses ``ha``, ``g``, ``bl`` and ``sleep_above_break``.

    Returns
    -------
    numpy.ndarray
        S, broadcast over the inputs. [TPM units]

    Notes
    -----
    Below the break level ``bl`` recovery is linear at ``r_lin = g·(bl - ha)``; it reaches
    ``bl`` after ``τ_b = (bl - S_s)/r_lin`` and then approaches ``ha`` exponentially:

    .. math:: S = S_s + r_{lin} τ \\quad (τ \\le τ_b), \\qquad
              S = h_a - (h_a - b_l)\\,e^{g(τ - τ_b)} \\quad (τ > τ_b)

    When ``S_s >= bl`` the default ("exponential") is ``S = ha - (ha - S_s)·exp(g·τ)``
    (reference §2.1); ``tpm_default`` ("fips") keeps FIPS's formula with the negative
    ``τ_b``, which is what FIPS ``TPM_Spfun`` computes [3]_.
    """
    s0, t, q = as_float(s0), as_float(hours_asleep), as_float(quality)
    tau = q * t  # effective sleep time, reference §2.1 [C]
    r_lin = params.g * (params.bl - params.ha)  # 0.80082 h^-1, reference §2.1
    tau_b = (params.bl - s0) / r_lin  # break time [h]
    linear = s0 + r_lin * tau
    after_break = params.ha - (params.ha - params.bl) * np.exp(params.g * (tau - tau_b))
    s = np.where(tau <= tau_b, linear, after_break)
    if params.sleep_above_break == "exponential":
        above = params.ha - (params.ha - s0) * np.exp(params.g * tau)
        s = np.where(s0 >= params.bl, above, s)
    return s


def steady_state_at_waking(
    hours_awake: float = 16.0,
    hours_asleep: float = 8.0,
    params: Parameters = DEFAULT,
    *,
    tolerance: float = 1e-12,
) -> float:
    """S at waking in the periodic steady state of a fixed daily sleep/wake pattern.

    Iterates one wake + one sleep map until it moves less than ``tolerance`` (the map
    is a contraction). Habitual 23:00-07:00 sleep gives 13.82 (reference §2.1, §9.4).

    Parameters
    ----------
    hours_awake, hours_asleep : float
        Daily wake and sleep durations. [h]
    params : Parameters
    tolerance : float
        Convergence threshold. [TPM units]

    Returns
    -------
    float
        Steady-state S at waking. [TPM units]
    """
    s = float(params.ha)
    for _ in range(10_000):
        nxt = float(
            sleep_recovery(wake_pressure(s, hours_awake, params), hours_asleep, 1.0, params)
        )
        if abs(nxt - s) < tolerance:
            return nxt
        s = nxt
    return s


#: S at waking in the steady state of habitual 23:00-07:00 sleep (16 h awake, 8 h asleep)
#: under the default parameters, to the two decimals reference §2.1/§9.4 state it (13.82):
#: where the model starts a crew member's warm-up and the reference duty
S_AT_WAKING: float = round(steady_state_at_waking(16.0, 8.0, DEFAULT), 2)
