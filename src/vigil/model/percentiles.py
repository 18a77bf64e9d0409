"""Population percentiles of sleepiness (Ingre et al. 2014, individual differences).

Vigil's scores are the average crew member's. Ingre et al. (2014) fitted the TPM on 136
aircrew with random individual effects and published, besides the average, reference
limits below which the KSS of 50 %, 75 % and 90 % of the population lies, and an ordinal
model giving the probability of any KSS level (reference §2.5, §2.7):

- limits: the average KSS plus 0 (50 %), +0.57 (75 %) and +1.07 (90 %) KSS units,
  clipped to the scale;
- P(KSS ≥ k) for the average crew member: the ordinal model 5c,
  ``logistic(−0.599·X − K_{k−1})`` with X the alertness giving that KSS; for the 75th or
  90th percentile crew member the logit is raised by +0.74 or +1.41.

Both sets of offsets are the 75 % and 90 % quantiles of one normal random intercept: SD
0.57/z₀.₇₅ ≈ 1.07/z₀.₉₀ ≈ 0.84 KSS, and 0.74/z₀.₇₅ ≈ 1.41/z₀.₉₀ ≈ 1.10 logit, which is
0.84 KSS times the ordinal model's slope per KSS unit (0.599/0.46 = 1.30 logit).
``tests/model/test_percentiles.py`` checks this consistency.

Status of the numbers: they reached the reference through a secondary source (its
caveat). Of the paper only the abstract (136 aircrew; reference limits for 50 %, 75 % and
90 % of the population; the probability of any sleepiness level) is in the stored
sources, so the paper's own printed tables and examples are **not checked**
(docs/model.md "Percentiles" lists the searches).

References
----------
.. [1] Ingre M, Van Leeuwen W, Klemets T, et al. (2014). Validating and extending the
   three process model of alertness in airline operations. PLoS ONE 9(10):e108679.
   doi:10.1371/journal.pone.0108679
"""

from __future__ import annotations

import numpy as np

from ._arrays import FloatArray, as_float
from .alertness import kss_exceedance_probability
from .parameters import DEFAULT, Parameters

__all__ = ["PERCENTS", "kss_at_least", "kss_limit"]

PERCENTS = (50, 75, 90)  #: the published reference limits [%]


def kss_limit(kss: object, percent: int, params: Parameters = DEFAULT) -> FloatArray:
    """KSS below which ``percent`` % of crew lie, given the average crew member's KSS."""
    if percent not in PERCENTS:
        raise ValueError(f"percent must be one of {PERCENTS}, got {percent}")
    offset = 0.0 if percent == 50 else params.kss_percentile_offset[PERCENTS.index(percent) - 1]
    out: FloatArray = np.clip(as_float(kss) + offset, 1.0, 9.0)
    return out


def kss_at_least(
    kss: object, level: int, params: Parameters = DEFAULT, percent: int = 50
) -> FloatArray:
    """P(KSS ≥ ``level``) (2..9) given the average crew member's mean KSS ``kss``: for the
    average crew member (``percent`` 50), or the 75th or 90th percentile one (the logit
    offsets of the module doc)."""
    if not 2 <= level <= 9:
        raise ValueError(f"level must be 2..9, got {level}")
    if percent not in PERCENTS:
        raise ValueError(f"percent must be one of {PERCENTS}, got {percent}")
    x = (as_float(kss) - params.kss_intercept) / params.kss_slope
    member = None if percent == 50 else percent
    return kss_exceedance_probability(x, level - 1, params, percentile=member)
