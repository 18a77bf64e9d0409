"""Risk bands for a duty's relative risk R (docs/model.md "Risk and its public meaning").

A band boundary is a whole number of KSS units of extra sleepiness. The risk hazard is
``h = exp(β(K - 5))`` with ``β = ln 1.72``, the odds ratio of a crash per KSS unit
(Åkerstedt et al. 2008 [1]_, reference §8). So a duty with ``R = 1.72^k`` carries the
hazard of the reference duty (R = 1) flown ``k`` KSS units sleepier throughout:

======================  ================  ================================================
R                       band              meaning
======================  ================  ================================================
< 1.72                  standard          within one KSS unit of the reference day
1.72 – 2.96             elevated          1–2 KSS units sleepier than the reference day
2.96 – 5.09             high              2–3 units: a rested reference duty (mean KSS ≈ 4)
                                          pushed to the KSS 7 warning level
≥ 5.09                  very high         3 or more units: beyond the warning level
======================  ================  ================================================

The earlier bands (1.5 / 3 / 5, suggested without a source) put an ordinary four-sector
day (R 1.75) and 48 % of a generated airline month in "elevated" or worse; a step of one
KSS unit is the smallest change the hazard's own evidence resolves. Operators may set
their own bands (the settings issue stores them); the dashboard shows the distribution
beside these so they can.

References
----------
.. [1] Åkerstedt T, Connor J, Gray A, Kecklund G (2008). Predicting road crashes from a
   mathematical model of alertness regulation - the Sleep/Wake Predictor. Accid Anal Prev
   40:1480-1485. doi:10.1016/j.aap.2008.03.005
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vigil.model import DEFAULT

__all__ = ["RISK_BANDS", "RiskBand", "risk_band"]


@dataclass(frozen=True, slots=True)
class RiskBand:
    """One band: ``[lower, upper)`` of R, its css class and its words."""

    lower: float
    upper: float
    css: str
    words: str
    kss_units: int  #: extra KSS units at the band's lower bound


def _bound(units: int) -> float:
    return round(math.exp(DEFAULT.risk_beta * units), 2)


#: standard / elevated / high / very high, at 1, 2 and 3 KSS units (module docstring)
RISK_BANDS: tuple[RiskBand, ...] = (
    RiskBand(0.0, _bound(1), "standard", "comparable to a standard day", 0),
    RiskBand(_bound(1), _bound(2), "elevated", "elevated", 1),
    RiskBand(_bound(2), _bound(3), "high", "high", 2),
    RiskBand(_bound(3), math.inf, "very-high", "very high", 3),
)


def risk_band(risk: float | None) -> RiskBand | None:
    """The band of a relative risk; ``None`` when absent or not finite."""
    if risk is None or not math.isfinite(risk):
        return None
    for band in RISK_BANDS:
        if risk < band.upper:
            return band
    return RISK_BANDS[-1]
