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

__all__ = ["DEFAULT_BOUNDS", "RISK_BANDS", "RiskBand", "bands_from", "risk_band"]


@dataclass(frozen=True, slots=True)
class RiskBand:
    """One band: ``[lower, upper)`` of R, its css class and its words."""

    lower: float
    upper: float
    css: str
    words: str
    kss_units: float  #: extra KSS units at the band's lower bound (ln lower / β)


def _bound(units: int) -> float:
    return round(math.exp(DEFAULT.risk_beta * units), 2)


#: the upper bounds of standard, elevated and high: 1, 2 and 3 KSS units (module docstring)
DEFAULT_BOUNDS: tuple[float, float, float] = (_bound(1), _bound(2), _bound(3))
_NAMES = (
    ("standard", "comparable to a standard day"),
    ("elevated", "elevated"),
    ("high", "high"),
    ("very-high", "very high"),
)


def _units(lower: float) -> float:
    """KSS units of extra sleepiness at ``R = lower`` (whole when within 0.01 of one)."""
    if lower <= 0:
        return 0
    units = math.log(lower) / DEFAULT.risk_beta
    return round(units) if abs(units - round(units)) < 0.01 else round(units, 2)


def bands_from(bounds: tuple[float, ...]) -> tuple[RiskBand, ...]:
    """The four bands split at three ascending, positive ``bounds`` (an operator's own)."""
    if len(bounds) != 3 or not 0 < bounds[0] < bounds[1] < bounds[2] < math.inf:
        raise ValueError(f"need three ascending positive bounds, got {bounds!r}")
    edges = (0.0, *bounds, math.inf)
    return tuple(
        RiskBand(edges[i], edges[i + 1], css, words, _units(edges[i]))
        for i, (css, words) in enumerate(_NAMES)
    )


#: standard / elevated / high / very high, at 1, 2 and 3 KSS units (module docstring)
RISK_BANDS: tuple[RiskBand, ...] = bands_from(DEFAULT_BOUNDS)


def risk_band(risk: float | None, bands: tuple[RiskBand, ...] = RISK_BANDS) -> RiskBand | None:
    """The band of a relative risk; ``None`` when absent or not finite."""
    if risk is None or not math.isfinite(risk):
        return None
    for band in bands:
        if risk < band.upper:
            return band
    return bands[-1]
