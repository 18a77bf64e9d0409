"""Risk bands for a duty's relative risk R, each with what a safety officer does about it.

R is the duty's fatigue-related risk relative to the reference day duty (R = 1;
:mod:`vigil.model.risk`). The bounds are stated relative-risk levels of the shift-work
evidence the risk components come from:

========  ==========  ==============================================  =====================
R         band        action                                          why this bound
========  ==========  ==============================================  =====================
< 1.3     acceptable  publish as planned                              a night shift's risk
                                                                      over a morning shift,
                                                                      1.30 (Folkard &
                                                                      Tucker 2003 [1]_;
                                                                      Smith 1994: 1.23, CI
                                                                      to 1.31): what routine
                                                                      shift work carries
1.3 – 2   monitor     publish; mitigate or monitor (fatigue reports,  twice the reference
                      controlled rest, standby cover)                 day: beyond every
                                                                      single trend (4th
                                                                      night 1.36, 12-h shift
                                                                      1.28 [1]_) and the
                                                                      doubling over 2 h of
                                                                      work without a break
                                                                      (Tucker et al. 2003)
2 – 3     mitigate    mitigate before publishing (augment, add a      three times: beyond
                      break or in-flight rest, move the report)       the trends combined
                                                                      (night × 4th night ×
                                                                      12 h ≈ 2.3)
≥ 3       redesign    redesign before publishing                      outside what the
                                                                      shift-work evidence
                                                                      covers
========  ==========  ==============================================  =====================

One definition: :data:`DEFAULT_BOUNDS` is what the settings default to
(``vigil.settings.record``), what the console and the exports show and what docs/api.md,
docs/model.md, docs/console.md and docs/settings.md print (``tests/fleet/test_bands.py``
reads every place). Operators keep their own bounds (settings ``riskBands``); the words
and actions stay with the band's position.

References
----------
.. [1] Folkard S, Tucker P (2003). Shift work, safety and productivity. Occup Med
   53:95-101. doi:10.1093/occmed/kqg047
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vigil.model import DEFAULT

__all__ = ["ACTIONS", "DEFAULT_BOUNDS", "RISK_BANDS", "RiskBand", "bands_from", "risk_band"]


@dataclass(frozen=True, slots=True)
class RiskBand:
    """One band: ``[lower, upper)`` of R, its css class, its words and its action."""

    lower: float
    upper: float
    css: str
    words: str
    kss_units: float  #: KSS steps of excess sleepiness that alone give R = lower (ln / β)
    action: str = ""  #: what the safety officer does with a duty in this band


#: upper bounds of acceptable, monitor and mitigate (module docstring)
DEFAULT_BOUNDS: tuple[float, float, float] = (1.3, 2.0, 3.0)
#: (css class, words, action) of the four bands, lowest first
ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("standard", "acceptable", "publish as planned"),
    ("elevated", "monitor", "publish; mitigate or monitor (fatigue reports, controlled rest)"),
    ("high", "mitigate", "mitigate before publishing (augment, add a break, move the report)"),
    ("very-high", "redesign", "redesign before publishing"),
)


def _units(lower: float) -> float:
    """KSS steps of excess sleepiness at ``R = lower`` (S = 1.72 per step)."""
    if lower <= 0:
        return 0
    return round(math.log(lower) / DEFAULT.risk_beta, 2)


def bands_from(bounds: tuple[float, ...]) -> tuple[RiskBand, ...]:
    """The four bands split at three ascending, positive ``bounds`` (an operator's own)."""
    if len(bounds) != 3 or not 0 < bounds[0] < bounds[1] < bounds[2] < math.inf:
        raise ValueError(f"need three ascending positive bounds, got {bounds!r}")
    edges = (0.0, *bounds, math.inf)
    return tuple(
        RiskBand(edges[i], edges[i + 1], css, words, _units(edges[i]), action)
        for i, (css, words, action) in enumerate(ACTIONS)
    )


#: acceptable / monitor / mitigate / redesign at R 1.3, 2 and 3 (module docstring)
RISK_BANDS: tuple[RiskBand, ...] = bands_from(DEFAULT_BOUNDS)


def risk_band(risk: float | None, bands: tuple[RiskBand, ...] = RISK_BANDS) -> RiskBand | None:
    """The band of a relative risk; ``None`` when absent or not finite."""
    if risk is None or not math.isfinite(risk):
        return None
    for band in bands:
        if risk < band.upper:
            return band
    return bands[-1]
