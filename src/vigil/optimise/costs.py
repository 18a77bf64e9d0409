"""Cost terms an optimiser can price a chain with, and the operator's weighted sum.

Per duty (:class:`DutyTerms`), from the scored intervals and predicted sleep:

==================  ======  ===========================================================
term                unit    meaning
==================  ======  ===========================================================
``risk``            R       the duty's relative risk R_d (reference §8; 1 = the reference
                            duty), as ProcessFatigueRisk reports it (3 decimals)
``hours_kss7``      h       time at the controls with the 15-minute interval's mean KSS
                            above 7 ("sleepy, some effort to stay awake", ref §2.6):
                            on duty, outside the person's own rest windows (in-flight
                            rest, split-duty break)
``hours_band``      h       the same above the operator's highest KSS warning level
``sleep24``         h       predicted sleep in the 24 h before report
``tod``             --      top-of-descent fatigue: Σ over landings of
                            ``w · exp(β·(K − 5))``, K the mean KSS of the interval
                            holding top of descent, β = ``risk_beta`` (ln 1.72 per KSS
                            step, Åkerstedt et al. 2008, the risk model's), ``w`` the
                            category weight of the landing airport (1 for intermediate
                            landings, whose airport the roster does not name)
``tod_kss``         KSS     the highest KSS at any top of descent
==================  ======  ===========================================================

Landings follow the workload model's sectors (reference §6): ``n`` sectors evenly
spaced over ``[report + report_to_takeoff, off − landing_to_off]``, sector ``j`` landing
at the end of its share; top of descent is ``tod_lead_h`` before landing [C].

Per chain (:class:`Terms`): ``risk_sum`` (Σ R_d, reference-duty equivalents),
``risk_max``, ``high_risk_duties`` (R_d above the operator's elevated-band bound, the
start of "high"), ``hours_kss7`` and ``hours_band`` (sums), ``min_sleep24`` (the lowest
predicted sleep before any report, h), ``tod_fatigue`` (sum), ``tod_kss_max`` and
``cost``, the weighted sum of :data:`COST_TERMS` with the operator's weights
(:class:`CostSettings`); ``short_sleep`` is ``max(0, sleep_need_h − min_sleep24)`` [h].
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil.model.parameters import Parameters
from vigil.optimise._scoring import Layout
from vigil.settings.bands import DEFAULT_BOUNDS

__all__ = [
    "COST_TERMS",
    "TERM_NAMES",
    "CostSettings",
    "DutyTerms",
    "Terms",
    "chain_terms",
    "duty_terms",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: Terms the weighted cost adds (each times its weight).
COST_TERMS = (
    "risk_sum", "high_risk_duties", "hours_kss7", "hours_band", "short_sleep", "tod_fatigue",
)  # fmt: skip

#: Default weights [cost units per term unit] [C]: one reference duty of risk is one unit;
#: a high-risk duty adds 5, an hour at the controls above KSS 7 adds 2 (above the band
#: 0: by default the band is KSS 7 too), an hour of sleep short of 7 h before a duty 1,
#: top-of-descent fatigue 0.5 per landing-equivalent.
DEFAULT_WEIGHTS: dict[str, float] = {
    "risk_sum": 1.0,
    "high_risk_duties": 5.0,
    "hours_kss7": 2.0,
    "hours_band": 0.0,
    "short_sleep": 1.0,
    "tod_fatigue": 0.5,
}

#: Default weights of the airport categories (ICAO-style A/B/C aerodrome familiarity).
DEFAULT_CATEGORY_WEIGHTS: dict[str, float] = {"A": 1.0, "B": 1.5, "C": 2.0}


@dataclass(frozen=True, slots=True)
class CostSettings:
    """What the operator sets: weights, thresholds and airport categories."""

    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    band_kss: float = 7.0  #: the operator's highest KSS warning level
    #: R above which a duty is "high": the upper bound of the operator's elevated band
    #: (default 1.72², two KSS units of the crash hazard, :mod:`vigil.settings.bands`)
    high_risk: float = DEFAULT_BOUNDS[1]
    sleep_need_h: float = 7.0  #: [h] predicted sleep before a duty below which it counts short
    tod_lead_h: float = 1.0 / 3.0  #: [h] top of descent before landing [C]
    airport_category: Mapping[str, str] = field(default_factory=dict)  #: code -> A/B/C
    category_weight: Mapping[str, float] = field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_WEIGHTS)
    )

    def __post_init__(self) -> None:
        unknown = sorted(set(self.weights) - set(COST_TERMS))
        if unknown:
            raise ValueError(f"unknown cost terms {unknown}; known: {list(COST_TERMS)}")
        for name, value in self.weights.items():
            if not math.isfinite(value):
                raise ValueError(f"weight {name!r} must be a finite number")
        for code, cat in self.airport_category.items():
            if cat not in self.category_weight:
                raise ValueError(f"airport {code!r}: unknown category {cat!r}")

    def weight(self, name: str) -> float:
        return float(self.weights.get(name, 0.0))

    def landing_weight(self, codes: frozenset[str]) -> float:
        """Category weight of an airport known by ``codes`` (1 when uncategorised)."""
        for code in codes:
            cat = self.airport_category.get(code)
            if cat is not None:
                return float(self.category_weight[cat])
        return 1.0


@dataclass(frozen=True, slots=True)
class DutyTerms:
    """Per-duty cost terms (module docstring), one array element per duty."""

    risk: FloatArray
    hours_kss7: FloatArray
    hours_band: FloatArray
    sleep24: FloatArray
    tod: FloatArray
    tod_kss: FloatArray

    def take(self, rows: IntArray) -> DutyTerms:
        return DutyTerms(*(getattr(self, f.name)[rows] for f in fields(self)))

    def with_rows(self, rows: IntArray, other: DutyTerms) -> DutyTerms:
        """A copy with ``rows`` replaced by ``other``'s values (in order)."""
        out = {}
        for f in fields(self):
            arr = getattr(self, f.name).copy()
            arr[rows] = getattr(other, f.name)
            out[f.name] = arr
        return DutyTerms(**out)


@dataclass(frozen=True, slots=True)
class Terms:
    """Per-candidate chain terms (module docstring), one array element per candidate."""

    risk_sum: FloatArray
    risk_max: FloatArray
    high_risk_duties: IntArray
    hours_kss7: FloatArray
    hours_band: FloatArray
    min_sleep24: FloatArray
    short_sleep: FloatArray
    tod_fatigue: FloatArray
    tod_kss_max: FloatArray
    cost: FloatArray

    def columns(self) -> dict[str, list[float]]:
        """Every term as a list, by name (the HTTP and CLI output)."""
        return {f.name: getattr(self, f.name).tolist() for f in fields(self)}


TERM_NAMES = tuple(f.name for f in fields(Terms))


def duty_terms(
    layout: Layout,
    kss: FloatArray,
    risks: FloatArray,
    sleep: tuple[FloatArray, FloatArray],
    params: Parameters,
    costs: CostSettings,
    end_weight: FloatArray | None = None,
    working: npt.NDArray[np.bool_] | None = None,
) -> DutyTerms:
    """Per-duty terms of the duties of a chunk ``layout`` (interval mean KSS ``kss``,
    risks ``risks``, each crew row's predicted sleep ``sleep`` as NaN-padded start and
    end arrays, ``end_weight`` the category weight of each duty's last landing).

    Time at the controls is ``working`` (per interval: the service's at-work mask,
    :func:`vigil.scoring.controls.at_controls`), or, without it, every interval outside
    the crew member's own in-flight rest."""
    lay = layout
    on: FloatArray = lay.on
    duty: IntArray = lay.duty
    start: FloatArray = lay.start
    n = on.size
    if n == 0:
        empty = np.zeros(0)
        return DutyTerms(empty, empty, empty, empty, empty, empty)
    length = np.clip(lay.off[duty] - start, 0.0, 0.25)
    controls = _outside_rest(lay, start + length / 2) if working is None else working
    hours7 = np.bincount(duty, weights=length * (controls & (kss > 7.0)), minlength=n).astype(
        np.float64
    )
    hours_band = np.bincount(
        duty, weights=length * (controls & (kss > costs.band_kss)), minlength=n
    ).astype(np.float64)
    # predicted sleep in the 24 h before report
    sleep24 = np.empty(n)
    _sleep_before(on, lay.crew, np.ascontiguousarray(sleep[0]), np.ascontiguousarray(sleep[1]),
                  24.0, sleep24)  # fmt: skip
    tod_sum, tod_max = _descent_fatigue(lay, kss, params, costs, end_weight)
    return DutyTerms(
        np.asarray(risks, dtype=np.float64), hours7, hours_band, sleep24, tod_sum, tod_max
    )


def _outside_rest(lay: Layout, mid: FloatArray) -> npt.NDArray[np.bool_]:
    """Per interval (midpoint ``mid``): outside its crew member's in-flight rest."""
    duty: IntArray = lay.duty
    rest_s: FloatArray = lay.rest_start[duty]
    rest_e: FloatArray = lay.rest_end[duty]
    inside = (mid[:, None] >= rest_s) & (mid[:, None] < rest_e)
    resting = np.asarray(inside.any(axis=1), dtype=np.bool_)
    return ~resting


def _descent_fatigue(
    lay: Layout,
    kss: FloatArray,
    params: Parameters,
    costs: CostSettings,
    end_weight: FloatArray | None,
) -> tuple[FloatArray, FloatArray]:
    """Per duty the weighted sum of ``exp(β (KSS - 5))`` and the greatest KSS at the top
    of descent of its landings (sectors as reference §6 places them; the last landing
    weighted by ``end_weight``)."""
    on: FloatArray = lay.on
    off: FloatArray = lay.off
    n = on.size
    sectors = np.maximum(lay.sectors, 1.0).astype(np.int64)
    count: IntArray = lay.count
    first = np.zeros(n, np.int64)
    np.cumsum(count[:-1], out=first[1:])
    owner = np.repeat(np.arange(n), sectors)
    j = np.arange(int(sectors.sum())) - np.repeat(np.cumsum(sectors) - sectors, sectors)
    a = on + params.report_to_takeoff
    b = np.maximum(off - params.landing_to_off, a)
    landing = a[owner] + (j + 1) * (b - a)[owner] / sectors[owner]
    tod = np.clip(landing - costs.tod_lead_h, on[owner], off[owner])
    k_idx = np.minimum(((tod - on[owner]) / 0.25).astype(np.int64), count[owner] - 1)
    k_tod = kss[first[owner] + np.maximum(k_idx, 0)]
    last = j == sectors[owner] - 1
    w = np.where(last, 1.0 if end_weight is None else end_weight[owner], 1.0)
    fatigue = w * np.exp(params.risk_beta * (k_tod - 5.0))
    tod_sum = np.bincount(owner, weights=fatigue, minlength=n).astype(np.float64)
    # every duty has at least one landing, its rows contiguous: a segment maximum
    tod_max = np.maximum.reduceat(k_tod, np.cumsum(sectors) - sectors)
    return tod_sum, tod_max


@nb.njit(cache=True)
def _sleep_before(
    on: FloatArray, crew: IntArray, ss: FloatArray, se: FloatArray, hours: float, out: FloatArray
) -> None:
    """Per duty, the hours of its crew row's sleep (``ss``/``se``: sorted, NaN-padded on
    the right) inside the ``hours`` before its report ``on``."""
    for d in range(on.size):
        c, lo, hi = crew[d], on[d] - hours, on[d]
        total = 0.0
        for j in range(ss.shape[1]):
            a = ss[c, j]
            if math.isnan(a) or a >= hi:
                break
            overlap = min(se[c, j], hi) - max(a, lo)
            if overlap > 0.0:
                total += overlap
        out[d] = total


def chain_terms(duties: DutyTerms, offsets: IntArray, costs: CostSettings) -> Terms:
    """Chain aggregates of per-duty terms (chain ``i`` owns rows ``offsets[i]:offsets[i+1]``,
    never empty) and the weighted cost."""
    at = offsets[:-1]
    risk_sum = np.add.reduceat(duties.risk, at)
    min_sleep = np.minimum.reduceat(duties.sleep24, at)
    terms: dict[str, Any] = {
        "risk_sum": risk_sum,
        "risk_max": np.maximum.reduceat(duties.risk, at),
        "high_risk_duties": np.add.reduceat((duties.risk > costs.high_risk).astype(np.int64), at),
        "hours_kss7": np.add.reduceat(duties.hours_kss7, at),
        "hours_band": np.add.reduceat(duties.hours_band, at),
        "min_sleep24": min_sleep,
        "short_sleep": np.maximum(costs.sleep_need_h - min_sleep, 0.0),
        "tod_fatigue": np.add.reduceat(duties.tod, at),
        "tod_kss_max": np.maximum.reduceat(duties.tod_kss, at),
    }
    cost = np.zeros(at.size)
    for name in COST_TERMS:
        weight = costs.weight(name)
        if weight:
            cost = cost + weight * terms[name]
    return Terms(cost=cost, **terms)  # each term's array, by name


def with_weights(costs: CostSettings, weights: Mapping[str, float]) -> CostSettings:
    """``costs`` with some weights changed."""
    return replace(costs, weights={**costs.weights, **weights})
