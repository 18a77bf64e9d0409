"""The report's plain verdict: one sentence for the person who decides whether to adopt.

:func:`verdict` reads the KSS fit (:mod:`vigil.calibration.fit`) and the residuals
(observed − predicted) and says, in words, which way the model is off for these crews,
by how much, and where: overall, or in the time-of-day or hours-on-duty band whose bias
is clearly larger than the rest. It says so plainly when the ratings are too few or the
difference is within noise, using the 95 % intervals the report already computes.

Rules (docs/calibration.md "The verdict"), fixed before any data are seen:

- **Too few**: fewer than :data:`~vigil.calibration.fit.MIN_OBSERVATIONS` KSS ratings
  or :data:`~vigil.calibration.fit.MIN_CREW` crew members, the same minimum that offers a
  preset.
- **A band is named** when it holds at least :data:`MIN_BAND` ratings, its own bias
  interval excludes 0, and it is clearly larger than the rest: the Welch 95 % interval of
  (band bias − bias of the other ratings) excludes 0 and the band's bias exceeds the
  overall one by at least :data:`CLEARLY_LARGER` KSS. That margin is the 95 % half-width
  of the bias at the preset minimum (about 0.28 KSS from the model's residual SD of 1.4,
  Ingre et al. 2014 [1]_), the smallest shift the report treats as worth a preset.
- **Spread**: the slope interval excludes 1 and either the bias interval holds 0 or the
  preset would move scores at KSS 3 and KSS 7 in opposite directions: the model spreads
  its scores more (slope < 1) or less (slope > 1) than the crews do, and "too sleepy on
  average" would hide that.
- **Overall**: otherwise, when the overall bias interval excludes 0.
- **Within noise**: otherwise.

Bias < 0 means the model predicts more sleepiness than the crews report ("too sleepy").
Adopting the offered preset maps a score ``K`` to ``a + b·K`` (docs/calibration.md
"Adopting coefficients"), so its effect on the ratings of a band is the mean of
``a + (b − 1)·K`` over them; because least squares passes through the means, over all
ratings that mean equals the overall bias.

References
----------
.. [1] M. Ingre, W. Van Leeuwen, T. Klemets et al., "Validating and extending the
   three process model of alertness in airline operations", PLoS ONE 9(10): e108679,
   2014. doi:10.1371/journal.pone.0108679
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from vigil.calibration.fit import MIN_CREW, MIN_OBSERVATIONS, Fit

if TYPE_CHECKING:
    from vigil.calibration.observations import Matched

__all__ = [
    "CLEARLY_LARGER",
    "MIN_BAND",
    "Verdict",
    "adoption_effect",
    "adoption_text",
    "band_order",
    "verdict",
]

#: fewest ratings in a band for the verdict to name it
MIN_BAND = 30
#: how much larger than the overall bias a band's bias must be to be named [KSS]
CLEARLY_LARGER = 0.28

#: words for the report's band labels (vigil.calibration.report TIME_OF_DAY, HOURS_ON_DUTY)
_TIME_OF_DAY_WORDS = {
    "00-06": "at night (00–06 home-base time)",
    "06-12": "in the morning (06–12 home-base time)",
    "12-18": "in the afternoon (12–18 home-base time)",
    "18-24": "in the evening (18–24 home-base time)",
}
_HOURS_ON_DUTY_WORDS = {
    "0-4": "in the first 4 hours of duty",
    "4-8": "4 to 8 hours into duty",
    "8-12": "8 to 12 hours into duty",
    "12+": "after 12 hours on duty",
}


def band_order(label: str) -> tuple[int, float, str]:
    """Sort key for band labels: numeric bands ("0-4", "12+", "06-12") by their first
    number, then any other labels as text."""
    digits = ""
    for ch in label:
        if not ch.isdigit():
            break
        digits += ch
    return (0, float(digits), label) if digits else (1, 0.0, label)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The one-sentence verdict and the figures it rests on."""

    kind: str  #: "too-few", "within-noise", "too-sleepy", "too-alert", "spread"
    text: str
    where: str  #: "overall", "timeOfDay", "hoursOnDuty"
    band: str | None  #: the band's label when ``where`` names one
    n: int  #: ratings the figures below rest on
    bias: float | None  #: mean(observed − predicted) of those ratings [KSS]
    bias_ci: tuple[float, float] | None
    adopt_change: float | None  #: mean change of their scores on adopting [KSS]

    def to_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None or not math.isfinite(x) else round(x, 3)

        return {
            "kind": self.kind,
            "text": self.text,
            "where": self.where,
            "band": self.band,
            "n": self.n,
            "bias": r(self.bias),
            "biasCI95": [r(v) for v in self.bias_ci] if self.bias_ci else None,
            "adoptChange": r(self.adopt_change),
        }


def _num(x: float) -> str:
    """A size in KSS points, one decimal (two when one would read 0.0)."""
    size = abs(x)
    return f"{size:.1f}" if round(size, 1) >= 0.1 else f"{size:.2f}"


def _signed(x: float) -> str:
    return ("−" if x < 0 else "+") + _num(x)


def _coef(x: float) -> str:
    return f"−{abs(x):.2f}" if x < 0 else f"{x:.2f}"


def _mean_ci(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    n = values.size
    mean = float(values.mean())
    if n < 2:
        return mean, -math.inf, math.inf
    half = float(stats.t.ppf(0.975, n - 1)) * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def _welch_excludes_zero(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> bool:
    """Whether the Welch 95 % interval of mean(a) − mean(b) excludes 0."""
    if a.size < 2 or b.size < 2:
        return False
    va, vb = float(a.var(ddof=1)) / a.size, float(b.var(ddof=1)) / b.size
    se = math.sqrt(va + vb)
    if se == 0.0:
        return float(a.mean()) != float(b.mean())
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    return abs(float(a.mean()) - float(b.mean())) > float(stats.t.ppf(0.975, dof)) * se


def adoption_effect(fit: Fit, predicted: npt.NDArray[np.float64]) -> float:
    """Mean change of these predicted KSS scores under the offered preset: a + (b − 1)·K."""
    return float(np.mean(fit.intercept + (fit.slope - 1.0) * predicted))


def _band(
    matched: Sequence[Matched], overall_bias: float
) -> tuple[str, str, npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The band with the largest clearly-larger bias, or ``None`` (module docstring)."""
    residual = np.array([m.residual for m in matched])
    predicted = np.array([m.predicted for m in matched])
    best: tuple[float, str, str, npt.NDArray[np.bool_]] | None = None
    for where, labels in (
        ("timeOfDay", [m.time_of_day for m in matched]),
        ("hoursOnDuty", [m.hours_on_duty for m in matched]),
    ):
        keys = np.array(labels)
        for label in sorted(set(labels), key=band_order):
            inside = keys == label
            ours, rest = residual[inside], residual[~inside]
            if ours.size < MIN_BAND:
                continue
            mean, lo, hi = _mean_ci(ours)
            if lo <= 0.0 <= hi or abs(mean) < abs(overall_bias) + CLEARLY_LARGER:
                continue
            if not _welch_excludes_zero(ours, rest):
                continue
            if best is None or abs(mean) > best[0]:
                best = (abs(mean), where, label, inside)
    if best is None:
        return None
    _, where, label, inside = best
    return where, label, residual[inside], predicted[inside]


def _band_words(where: str, label: str) -> str:
    words = _TIME_OF_DAY_WORDS if where == "timeOfDay" else _HOURS_ON_DUTY_WORDS
    fallback = "home-base time" if where == "timeOfDay" else "hours on duty"
    return words.get(label, f"at {label} {fallback}")


def verdict(matched: Sequence[Matched], fit: Fit | None) -> Verdict:
    """The one-sentence verdict of the KSS ratings ``matched`` and their ``fit``."""
    kss = [m for m in matched if m.observation.instrument == "KSS"]
    judged = (kss or not matched) and fit is not None
    if not judged or fit is None or fit.n < MIN_OBSERVATIONS or fit.crew < MIN_CREW:
        return _too_few(matched, kss, fit)
    band = _band_verdict(kss, fit)
    return band if band is not None else _overall_verdict(kss, fit)


def _too_few(matched: Sequence[Matched], kss: Sequence[Matched], fit: Fit | None) -> Verdict:
    """No verdict yet: no KSS ratings among those compared, or too few ratings or crew."""
    if not kss and matched:
        return Verdict(
            "too-few",
            "No KSS ratings were compared, and the verdict and the preset rest on KSS; "
            "the tables below compare the other scale's ratings.",
            "overall",
            None,
            0,
            None,
            None,
            None,
        )
    n = len(kss)
    crew = len({m.observation.reference for m in kss})
    text = (
        f"Too few ratings to judge yet: {n} KSS rating{'s' if n != 1 else ''} "
        f"from {crew} crew member{'s' if crew != 1 else ''} were compared, and a verdict "
        f"needs at least {MIN_OBSERVATIONS} from {MIN_CREW}"
    )
    if fit is not None and math.isfinite(fit.bias) and fit.bias != 0.0:
        way = "sleepy" if fit.bias < 0 else "alert"
        text += f"; so far Vigil reads them {_num(fit.bias)} KSS too {way}"
    return Verdict(
        "too-few",
        text + ".",
        "overall",
        None,
        n,
        fit.bias if fit else None,
        fit.bias_ci if fit else None,
        None,
    )


def _adopt_clause(fit: Fit, change: float, those: str) -> str:
    """What adopting the fitted preset would do to ``those`` scores (or why none is
    offered)."""
    if not fit.enough:
        return f"; no preset is offered ({fit.why_not})"
    if round(abs(change), 1) < 0.1:
        return f"; adopting leaves {those} almost unchanged"
    return f"; adopting {'lowers' if change < 0 else 'raises'} {those} by about {_num(change)}"


def _band_verdict(kss: Sequence[Matched], fit: Fit) -> Verdict | None:
    """The verdict on one kind of duty or time of day whose ratings Vigil misreads most
    (:func:`_band`), or ``None`` when none stands out."""
    band = _band(kss, fit.bias)
    if band is None:
        return None
    where, label, residual, band_predicted = band
    mean, lo, hi = _mean_ci(residual)
    change = adoption_effect(fit, band_predicted) if fit.enough else None
    way = "sleepy" if mean < 0 else "alert"
    text = f"Vigil reads your crews {_num(mean)} KSS too {way} {_band_words(where, label)}"
    text += _adopt_clause(fit, change or 0.0, "those scores")
    if change is not None and abs(change) < 0.5 * abs(mean):
        text += ", only partly, because the preset shifts every duty alike"
    text += "."
    kind = "too-sleepy" if mean < 0 else "too-alert"
    return Verdict(kind, text, where, label, int(residual.size), mean, (lo, hi), change)


def _overall_verdict(kss: Sequence[Matched], fit: Fit) -> Verdict:
    """The verdict on all ratings: shifted on average, spread (a slope away from 1), or
    within noise."""
    lo, hi = fit.bias_ci
    shifted = not lo <= 0.0 <= hi
    slo, shi = fit.slope_ci
    at3, at7 = (fit.intercept + (fit.slope - 1.0) * k for k in (3.0, 7.0))
    # a slope away from 1 whose correction moves alert and sleepy scores in opposite
    # directions: "too sleepy on average" would hide it
    spread = not slo <= 1.0 <= shi and (not shifted or at3 * at7 < 0.0)
    if shifted and not spread:
        predicted = np.array([m.predicted for m in kss])
        change = adoption_effect(fit, predicted) if fit.enough else None
        way = "sleepy" if fit.bias < 0 else "alert"
        text = f"Vigil reads your crews {_num(fit.bias)} KSS too {way} on average"
        text += _adopt_clause(fit, change or 0.0, "their scores") + "."
        kind = "too-sleepy" if fit.bias < 0 else "too-alert"
        return Verdict(kind, text, "overall", None, fit.n, fit.bias, fit.bias_ci, change)
    if shifted:
        way = "sleepy" if fit.bias < 0 else "alert"
        agree = f"On average Vigil reads your crews {_num(fit.bias)} KSS too {way}"
    else:
        agree = (
            f"On average Vigil agrees with your crews: the difference, {_signed(fit.bias)} "
            f"KSS (95 % interval {_signed(lo)} to {_signed(hi)}), is within noise"
        )
    if not spread:
        text = f"{agree}, so there is no reason to adopt a correction."
        return Verdict("within-noise", text, "overall", None, fit.n, fit.bias, fit.bias_ci, None)
    how = "overstates" if fit.slope < 1.0 else "understates"
    text = f"{agree}, but it {how} the differences between duties (slope {fit.slope:.2f})"
    if fit.enough:
        text += f"; adopting moves scores of KSS 3 by {_signed(at3)} and of KSS 7 by {_signed(at7)}"
    else:
        text += f"; no preset is offered ({fit.why_not})"
    return Verdict("spread", text + ".", "overall", None, fit.n, fit.bias, fit.bias_ci, None)


def adoption_text(
    fit: Fit | None,
    predicted: npt.NDArray[np.float64],
    *,
    current: str | None = None,
    offered: str | None = None,
) -> str | None:
    """What pressing *Adopt* does, in words; ``None`` when no preset is offered.

    Adopting (web console, docs/calibration.md "Adopting coefficients") records a new
    settings version whose ``preset`` is the offered calibrated preset; scores computed
    from then on use it, and stored rosters keep the scores they were given.

    Parameters
    ----------
    fit : Fit or None
        The KSS fit of the report.
    predicted : ndarray
        Predicted KSS of the compared ratings, for the average change.
    current, offered : str, optional
        The operator's preset now and the offered preset's name, when known.
    """
    if fit is None or not fit.enough:
        return None
    low, high = (fit.intercept + (fit.slope - 1.0) * k for k in (3.0, 7.0))
    mean = adoption_effect(fit, predicted) if predicted.size else fit.bias
    setting = "the operator's preset"
    if offered and current:
        setting = f"the operator's preset from {current} to {offered}"
    elif offered:
        setting = f"the operator's preset to {offered}"
    return (
        f"Adopting changes {setting}, as a new recorded settings version. Every KSS score "
        f"computed from then on becomes {_coef(fit.intercept)} + {fit.slope:.2f} × the KSS "
        f"this roster's settings give: {_signed(mean)} on average for duties like these "
        f"({_signed(low)} at KSS 3, {_signed(high)} at KSS 7), and the scales derived from "
        "KSS (Samn-Perelli and the others) follow. Rosters already stored keep their scores; "
        "a roster uploaded again after adopting is scored with the new preset."
    )
