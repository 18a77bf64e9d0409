"""Operator-specific KSS coefficients: observed ≈ intercept + slope · predicted.

Ordinary least squares (:func:`scipy.stats.linregress`) of the crew's KSS ratings on the
model's KSS for the same 15-minute intervals, with 95 % confidence intervals from the
t distribution. The mean residual (observed − predicted) is the bias.

Assumptions (docs/calibration.md "Statistics"): residuals independent with constant
variance. Ratings of one crew member are correlated in practice, so the intervals are
too narrow by a design effect; the minimum below asks for several crew members, and the
report shows how many gave ratings.

Minimum for offering coefficients (:data:`MIN_OBSERVATIONS` and friends): the KSS
residual SD of the model's own source data is about 1.4 (Ingre et al. 2014 [1]_), so
100 ratings give a standard error of the bias of about 0.14 KSS (95 % half-width
≈ 0.28), the smallest shift worth a new preset; 5 crew members keep one person's
habits from being the whole fit; a spread of predicted KSS (SD ≥ 0.5) makes the slope
identifiable at all.

References
----------
.. [1] M. Ingre, W. Van Leeuwen, T. Klemets et al., "Validating and extending the
   three process model of alertness in airline operations", PLoS ONE 9(10): e108679,
   2014. doi:10.1371/journal.pone.0108679
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

__all__ = ["MIN_CREW", "MIN_OBSERVATIONS", "MIN_PREDICTED_SD", "Fit", "fit_kss"]

MIN_OBSERVATIONS = 100
MIN_CREW = 5
MIN_PREDICTED_SD = 0.5  # [KSS]
#: fewer ratings than this give no statistics at all
MIN_FOR_STATISTICS = 3


@dataclass(frozen=True, slots=True)
class Fit:
    """The KSS fit and whether the model is calibrated for these crews."""

    n: int
    crew: int
    bias: float  #: mean(observed − predicted) [KSS]
    bias_ci: tuple[float, float]
    intercept: float
    slope: float
    intercept_ci: tuple[float, float]
    slope_ci: tuple[float, float]
    residual_sd: float  #: of observed − (intercept + slope · predicted)
    predicted_sd: float
    enough: bool  #: the minimum is met: coefficients may be offered as a preset
    why_not: str  #: what is missing when not ``enough``
    name: str  #: name of the preset offered
    source: str

    @property
    def calibrated(self) -> bool:
        """No evidence of miscalibration: the bias CI holds 0 and the slope CI holds 1."""
        return (
            self.bias_ci[0] <= 0.0 <= self.bias_ci[1]
            and self.slope_ci[0] <= 1.0 <= self.slope_ci[1]
        )

    def to_dict(self) -> dict[str, Any]:
        r = _round
        return {
            "n": self.n,
            "crew": self.crew,
            "bias": r(self.bias),
            "biasCI95": [r(v) for v in self.bias_ci],
            "intercept": r(self.intercept),
            "slope": r(self.slope),
            "interceptCI95": [r(v) for v in self.intercept_ci],
            "slopeCI95": [r(v) for v in self.slope_ci],
            "residualSD": r(self.residual_sd),
            "predictedSD": r(self.predicted_sd),
            "calibrated": self.calibrated,
            "enoughData": self.enough,
            "whyNotOffered": self.why_not,
            "offeredPreset": self.name if self.enough else None,
            "method": "OLS observed ~ predicted (scipy.stats.linregress), 95 % t intervals",
            "minimum": {
                "observations": MIN_OBSERVATIONS,
                "crew": MIN_CREW,
                "predictedSD": MIN_PREDICTED_SD,
            },
        }


def _round(x: float) -> float | None:
    return round(x, 4) if math.isfinite(x) else None


def _line(
    predicted: npt.NDArray[np.float64], observed: npt.NDArray[np.float64]
) -> tuple[float, float, float, float, float, float]:
    """Least squares of observed on predicted: slope, intercept, their standard errors,
    the residual SD and the t quantile of their 95 % intervals (n - 2 degrees of freedom)."""
    n = int(predicted.size)
    line = stats.linregress(predicted, observed)
    slope, intercept = float(line.slope), float(line.intercept)
    fitted = intercept + slope * predicted
    residual_sd = float(np.sqrt(np.sum((observed - fitted) ** 2) / max(n - 2, 1)))
    t2 = float(stats.t.ppf(0.975, max(n - 2, 1)))
    return slope, intercept, float(line.stderr), float(line.intercept_stderr), residual_sd, t2


def _missing(n: int, crews: int, spread: float) -> list[str]:
    """What a preset still needs: enough ratings, crew members and spread of predictions."""
    missing = []
    if n < MIN_OBSERVATIONS:
        missing.append(f"{MIN_OBSERVATIONS} KSS ratings (have {n})")
    if crews < MIN_CREW:
        missing.append(f"{MIN_CREW} crew members (have {crews})")
    if not spread >= MIN_PREDICTED_SD:
        missing.append(f"a predicted-KSS SD of {MIN_PREDICTED_SD} (have {spread:.2f})")
    return missing


def fit_kss(
    predicted: npt.NDArray[np.float64],
    observed: npt.NDArray[np.float64],
    crew: npt.NDArray[np.int64],
    *,
    name: str,
    source: str,
) -> Fit | None:
    """Fit observed KSS on predicted KSS; ``None`` with fewer than 3 ratings.

    Parameters
    ----------
    predicted, observed : ndarray
        Model and crew KSS of the same ratings.
    crew : ndarray
        A key per rating identifying the crew member (only distinct values count).
    name, source : str
        Name and provenance of the preset offered when the minimum is met.
    """
    n = int(predicted.size)
    if n < MIN_FOR_STATISTICS:
        return None
    t = float(stats.t.ppf(0.975, n - 1))
    residual = observed - predicted
    bias, bias_se = float(residual.mean()), float(residual.std(ddof=1)) / math.sqrt(n)
    spread = float(predicted.std(ddof=1))
    crews = int(np.unique(crew).size)
    slope, intercept, slope_se, intercept_se, residual_sd, t2 = (
        _line(predicted, observed) if spread > 0 else (math.nan,) * 5 + (t,)
    )
    missing = _missing(n, crews, spread)
    enough = not missing and math.isfinite(slope) and slope > 0
    if not missing and not enough:
        missing.append("a positive slope")
    return Fit(
        n=n,
        crew=crews,
        bias=bias,
        bias_ci=(bias - t * bias_se, bias + t * bias_se),
        intercept=intercept,
        slope=slope,
        intercept_ci=(intercept - t2 * intercept_se, intercept + t2 * intercept_se),
        slope_ci=(slope - t2 * slope_se, slope + t2 * slope_se),
        residual_sd=residual_sd,
        predicted_sd=spread,
        enough=enough,
        why_not="" if enough else "needs " + ", ".join(missing),
        name=name,
        source=source,
    )
