"""Alertness X = S + C + U + W, its KSS transform, and the ordinal KSS model.

References
----------
.. [1] Ingre M, Van Leeuwen W, Klemets T, Ullvetter C, Hough S, Kecklund G, Karlsson D,
   Åkerstedt T (2014). Validating and extending the three process model of alertness in
   airline operations. PLoS ONE 9(10):e108679. doi:10.1371/journal.pone.0108679
.. [2] Wilson MK, Strickland L, Ballard T (2020). FIPS: an R package for biomathematical
   modelling of human fatigue related impairment. JOSS 5(51):2340. doi:10.21105/joss.02340
"""

from __future__ import annotations

import numpy as np

from ._arrays import FloatArray, Numeric, as_float, logistic
from .parameters import DEFAULT, Parameters


def alertness(
    homeostatic: Numeric, circadian: Numeric, ultradian: Numeric, inertia: Numeric = 0.0
) -> FloatArray:
    """``X = S + C + U + W`` [TPM units], higher = more alert (reference §2.4)."""
    return as_float(homeostatic) + as_float(circadian) + as_float(ultradian) + as_float(inertia)


def kss_from_alertness(x: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """Model KSS before workload, ``KSS_m = a + b·X`` (not clipped).

    Preset A (``ingre2014_5c``, [1]_ model 5c): ``9.68 - 0.46·X``; preset B
    (``tpm_default``, FIPS defaults [2]_): ``10.6 - 0.6·X`` (reference §2.5).

    Parameters
    ----------
    x : numeric
        Alertness X. [TPM units]
    params : Parameters

    Returns
    -------
    numpy.ndarray
        KSS_m. [KSS]
    """
    return params.kss_intercept + params.kss_slope * as_float(x)


def final_kss(
    x: Numeric,
    workload_kss: Numeric = 0.0,
    params: Parameters = DEFAULT,
    *,
    out: FloatArray | None = None,
) -> FloatArray:
    """Final KSS ``clip(KSS_m + ΔKSS_wl, 1, 9)`` (reference §2.5).

    Parameters
    ----------
    x : numeric
        Alertness X. [TPM units]
    workload_kss : numeric
        Workload term ΔKSS_wl of reference §6 (see :mod:`vigil.model.workload`). [KSS]
    params : Parameters

    out : numpy.ndarray, optional
        Float64 array shaped like ``x`` to write into (may be ``x`` itself), sparing the
        temporaries on millions of samples; same values as without it.

    Returns
    -------
    numpy.ndarray
        KSS in [1, 9]; NaN stays NaN. [KSS]
    """
    if out is None:
        return np.clip(kss_from_alertness(x, params) + as_float(workload_kss), 1.0, 9.0)
    np.multiply(x, params.kss_slope, out=out)
    out += params.kss_intercept  # KSS_m = intercept + slope·X, ref §2.5
    out += as_float(workload_kss)
    return np.clip(out, 1.0, 9.0, out=out)


def kss_exceedance_probability(
    x: Numeric, k: int, params: Parameters = DEFAULT, *, percentile: int | None = None
) -> FloatArray:
    """P(KSS > k) for the average (or a percentile) crew member, ordinal model 5c of [1]_.

    Parameters
    ----------
    x : numeric
        Alertness X. [TPM units]
    k : int
        KSS level 1..8.
    params : Parameters
        ``ordinal_slope``, ``ordinal_cutpoints``, ``ordinal_percentile_offset``.
    percentile : {None, 75, 90}
        Add the logit offset for the 75th or 90th percentile crew member (reference §2.7).

    Returns
    -------
    numpy.ndarray
        Probability in [0, 1]. [-]

    Notes
    -----
    .. math:: P(KSS > k) = \\operatorname{logistic}(-0.599 X - K_k)

    with K_1..K_8 = -10.99, -8.95, -7.67, -6.66, -5.64, -4.30, -3.05, -0.58 (reference §2.5).
    """
    if not 1 <= k <= 8:
        raise ValueError(f"k must be a KSS level 1..8, got {k}")
    offset = 0.0
    if percentile is not None:
        offset = dict(zip((75, 90), params.ordinal_percentile_offset, strict=True))[percentile]
    logit = params.ordinal_slope * as_float(x) - params.ordinal_cutpoints[k - 1] + offset
    return logistic(logit)
