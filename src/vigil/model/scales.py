"""The six output scales of the seed (§2.4), each a function of the final KSS.

Every scale is computed from the final (unrounded) KSS K, one code path per scale
(reference §2.6). Higher always means more fatigued; ranges follow contract §4.

Notes
-----
PMR rises by 4.2 points per KSS unit and VD by 8.6 (preset A), which looks at odds with
the reference's reading of [6]_ that errors react more to fatigue than response time. It
is not: the two scales are in different units. VD is already a change
relative to the rested state (the percentage loss of response speed, 100 - SAFTE
effectiveness [3]_), while PMR is a rate (lapses per 100 stimuli, cross-walked to the UMP's
PVT lapses [5]_) whose rested value is the 1 % floor. On the footing [6]_ uses, the change
from the rested level, errors rise far more: at KSS 7 missed responses are 14.7 times
their rested rate while response time is 1.37 times its rested value (1 / (1 - 0.271));
at KSS 9, 23 times against 1.80 times. PVT lapses are also the largest sleep-loss effect in
the meta-analysis of [4]_ (g = -0.776). So the mapping agrees with its sources and is kept
(tests/model/test_scales.py checks the relative ordering for every preset).

References
----------
.. [1] Samn SW, Perelli LP (1982). Estimating aircrew fatigue: a technique with application
   to airlift operations. USAF SAM-TR-82-21.
.. [2] Ingre M et al. (2014). PLoS ONE 9(10):e108679. doi:10.1371/journal.pone.0108679
.. [3] Hursh SR et al. (2004). Fatigue models for applied research in warfighting. Aviat
   Space Environ Med 75(3 Suppl):A44-A53.
.. [4] Lim J, Dinges DF (2010). A meta-analysis of the impact of short-term sleep deprivation
   on cognitive variables. Psychol Bull 136:375-389. doi:10.1037/a0018883
.. [5] Ramakrishnan S et al. (2016). A unified model of performance: validation of its
   predictions across different sleep/wake schedules. Sleep 39:249-262.
.. [6] Belyavin AJ, Spencer MB (2004). Modeling performance and alertness: the QinetiQ
   approach. Aviat Space Environ Med 75(3 Suppl):A93-A103 ("in general, there is a larger
   impact on the incidence of errors than on response time").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._arrays import FloatArray, Numeric, as_float, logistic
from .parameters import DEFAULT, Parameters


def samn_perelli(kss: Numeric, params: Parameters) -> FloatArray:
    """SP 1-7: ``clip(1 + 0.75·(K - 1), 1, 7)`` (reference §2.6 [C], anchors of [1]_)."""
    return np.clip(1.0 + params.sp_slope * (as_float(kss) - 1.0), 1.0, 7.0)


def karolinska(kss: Numeric, params: Parameters) -> FloatArray:
    """KSS 1-9: the final KSS itself, clipped to its range (reference §2.5)."""
    return np.clip(as_float(kss), 1.0, 9.0)


def karolinska_probability(kss: Numeric, params: Parameters) -> FloatArray:
    """KP [%]: ``100·logistic(1.3022·K - 9.555)`` = P(KSS >= 8) (reference §2.6, [2]_)."""
    return 100.0 * logistic(params.kp_slope * as_float(kss) + params.kp_intercept)


def vigilance_degradation(kss: Numeric, params: Parameters) -> FloatArray:
    """VD [%]: ``8.6·max(0, K - 3.85)`` (preset B 6.6, 3.0); SAFTE 100 - E cross-walk [3]_."""
    vd = params.vd_slope * np.maximum(0.0, as_float(kss) - params.vd_knee)
    return np.clip(vd, 0.0, 100.0)


def complex_reaction_degradation(kss: Numeric, params: Parameters) -> FloatArray:
    """CRD [%]: ``0.65·VD`` (reference §2.6 [D], effect-size ratio of [4]_)."""
    return params.crd_fraction * vigilance_degradation(kss, params)


def missed_responses(kss: Numeric, params: Parameters) -> FloatArray:
    """PMR [%]: ``clip(1 + 4.2·max(0, K - 3.75), 0, 100)`` (preset B 3.2, 2.85); UMP [5]_."""
    pmr = params.pmr_floor + params.pmr_slope * np.maximum(0.0, as_float(kss) - params.pmr_knee)
    return np.clip(pmr, 0.0, 100.0)


def pvt_lapses(kss: Numeric, params: Parameters) -> FloatArray:
    """LAPSES: 10-min PVT lapses from the final KSS, the cross-walk of ref §2.6 that PMR
    uses, read as a count (100 stimuli per 10-min PVT): ``pmr_floor + pmr_slope·max(0,
    K - pmr_knee)`` [lapses], [5]_. The ``unified`` preset reports the Unified Model's own
    lapses instead (:mod:`.unified`; the scoring service chooses)."""
    return missed_responses(kss, params)


ScaleFunction = Callable[[FloatArray, Parameters], FloatArray]

#: The seed §2.4 PreferredScale values mapped to their function of the final KSS.
SCALES: dict[str, ScaleFunction] = {
    "SP": samn_perelli,
    "KSS": karolinska,
    "KP": karolinska_probability,
    "VD": vigilance_degradation,
    "CRD": complex_reaction_degradation,
    "PMR": missed_responses,
}


@dataclass(frozen=True, slots=True)
class ScaleInfo:
    """Display facts about a scale, for charts and docs."""

    name: str  #: full name (seed §2.4)
    low: float  #: lowest value (contract §4)
    high: float  #: highest value (contract §4)
    unit: str  #: "" for rating scales, "%" for percentages
    warnings: tuple[float, ...]  #: warning levels, ascending (:data:`WARNING_KSS` mapped)


#: The one warning threshold every scale's warning level is derived from: KSS 7, "sleepy,
#: but no effort to keep awake", where physiological signs of sleepiness and impaired
#: function set in (Åkerstedt et al. 2014, reference §2.6 "Thresholds"). Each scale's level
#: is this KSS passed through that scale's own published mapping (:data:`SCALES`), so "at or
#: above warning" selects the same instants on every scale (the share of time
#: above warning no longer triples between KSS and SP).
WARNING_KSS = 7.0


def warning_level(scale: str, params: Parameters | None = None) -> float:
    """The warning level of ``scale`` (contract or extra): :data:`WARNING_KSS` through the
    scale's mapping.

    Exact (unrounded), for comparisons; preset B's VD and PMR mappings give their own
    levels (default: preset A, ``vigil.model.parameters.DEFAULT``).
    """
    mapping = SCALES[scale] if scale in SCALES else EXTRA_SCALES[scale]
    value = mapping(np.asarray([WARNING_KSS]), params or DEFAULT)
    return float(value[0])


def _level(scale: str) -> tuple[float, ...]:
    return (round(warning_level(scale), 1),)


#: Range, unit and warning level per scale. Each level is KSS 7 mapped (preset A, one
#: decimal): SP 5.5, KP 39.2, VD 27.1, CRD 17.6, PMR 14.7 (reference §2.6 "Reference
#: values"). Earlier levels came from different sources per scale (SP 5 is KSS 6.3, VD
#: 22.5 is KSS 6.5), so the same roster showed 3x more time above warning on SP than on KSS.
SCALE_INFO: dict[str, ScaleInfo] = {
    "SP": ScaleInfo("Samn-Perelli", 1.0, 7.0, "", _level("SP")),
    "KSS": ScaleInfo("Karolinska Sleepiness Scale", 1.0, 9.0, "", _level("KSS")),
    "KP": ScaleInfo("Karolinska Probability", 0.0, 100.0, "%", _level("KP")),
    "VD": ScaleInfo("Vigilance Degradation", 0.0, 100.0, "%", _level("VD")),
    "CRD": ScaleInfo("Complex Reaction Degradation", 0.0, 100.0, "%", _level("CRD")),
    "PMR": ScaleInfo("Percentage Missed Responses", 0.0, 100.0, "%", _level("PMR")),
}


#: Scales outside the contract's list (seed §2.4), offered by ``vigil score --scale`` only:
#: LAPSES, PVT lapses per 10-min test (docs/model.md "The unified preset").
EXTRA_SCALES: dict[str, ScaleFunction] = {"LAPSES": pvt_lapses}
#: Display facts of :data:`EXTRA_SCALES`; LAPSES's warning level is KSS 7 mapped (14.65).
EXTRA_SCALE_INFO: dict[str, ScaleInfo] = {
    "LAPSES": ScaleInfo(
        "PVT lapses (10-min PVT, RT > 500 ms)", 0.0, 100.0, "",
        (round(float(pvt_lapses(np.asarray([WARNING_KSS]), DEFAULT)[0]), 2),),
    ),
}  # fmt: skip


def scale_function(code: str) -> ScaleFunction:
    """The function of the final KSS behind scale ``code`` (:data:`SCALES` or
    :data:`EXTRA_SCALES`)."""
    return SCALES[code] if code in SCALES else EXTRA_SCALES[code]


def scale_info(code: str) -> ScaleInfo:
    """Display facts of scale ``code``, contract scale or extra."""
    return SCALE_INFO[code] if code in SCALE_INFO else EXTRA_SCALE_INFO[code]


def interval_means(values: object, samples_per_interval: int = 15) -> FloatArray:
    """Mean of each score interval's sample values, ignoring NaN padding.

    Layout: row ``i`` of ``values`` holds that row's intervals back to back, each with
    exactly ``samples_per_interval`` slots (the minute midpoints +0.5 ... +14.5 min of a
    15-min interval; a short last interval has its missing minutes NaN). So
    ``values.shape == (n, n_intervals * samples_per_interval)``; ``(n, n_intervals, spi)``
    is accepted too. Average after the scale mapping (reference §9.2 step 4).

    Parameters
    ----------
    values : array_like, shape (n, k·spi) or (n, k, spi)
        Per-sample scale values; NaN marks padding.
    samples_per_interval : int
        Slots per interval (15 for minute midpoints).

    Returns
    -------
    numpy.ndarray, shape (n, k)
        Interval means; NaN where an interval has no finite sample.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 2:
        n, total = v.shape
        if total % samples_per_interval:
            raise ValueError(f"width {total} is not a multiple of {samples_per_interval}")
        v = v.reshape(n, total // samples_per_interval, samples_per_interval)
    elif v.ndim != 3:
        raise ValueError(f"values must be 2-D or 3-D, got ndim={v.ndim}")
    finite = np.isfinite(v)
    count = finite.sum(axis=-1)
    total_sum = np.where(finite, v, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total_sum / np.maximum(count, 1), np.nan)
