"""Population percentiles of sleepiness (Ingre et al. 2014, individual differences).

Vigil's scores are the average crew member's. Ingre et al. (2014) fitted the TPM on 136
aircrew with random individual effects and published, besides the average, reference
limits below which the KSS of 50 %, 75 % and 90 % of the population lies, and an ordinal
model giving the probability of any KSS level (reference §2.5, §2.7):

- limits: the average KSS plus 0 (50 %), +0.57 (75 %) and +1.07 (90 %) KSS units,
  clipped to the scale;
- P(KSS ≥ k) for the average crew member: the ordinal model 5c,
  ``logistic(−0.599·X − K_{k−1})`` with X the alertness giving that KSS.

The numbers reached the reference through a secondary source (its caveat); only the
abstract of the paper could be read here, so the paper's own printed examples were not
checked (docs/model.md "Percentiles").

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


def kss_at_least(kss: object, level: int, params: Parameters = DEFAULT) -> FloatArray:
    """P(KSS ≥ ``level``) (2..9) for the average crew member whose mean KSS is ``kss``."""
    if not 2 <= level <= 9:
        raise ValueError(f"level must be 2..9, got {level}")
    x = (as_float(kss) - params.kss_intercept) / params.kss_slope
    return kss_exceedance_probability(x, level - 1, params)
