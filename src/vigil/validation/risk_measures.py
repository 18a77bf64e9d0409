"""Measures of the duty-risk rows, recomputed from a scenario's scored KSS.

The scored scenarios (:func:`vigil.validation.scenarios.run_all`) give each interval's
final KSS; these measures rebuild the risk hazard h of :mod:`vigil.model.risk` from them
for any parameter set, so the joint fit (:mod:`.risk_fit`) can vary the risk parameters
without re-running the model. With the default parameters they equal the scoring path's
R (checked by ``tests/validation/test_risk_rows.py``). Every scenario they read is a
single ground shift (no sectors, no workload term, no rest) at ACC, acclimatised, so the
body clock is UTC and M = 1.
"""

from __future__ import annotations

import numpy as np

from vigil import model
from vigil.model import risk
from vigil.validation.scenarios import Runs, epoch_hours


def shift_hazard(runs: Runs, name: str, params: model.Parameters = model.DEFAULT) -> np.ndarray:
    """Per-interval hazard ``h·Δt`` of a single-duty ground-shift scenario."""
    result = runs[name]
    duty = result.duties[0]
    report, off = epoch_hours(duty.on_duty), epoch_hours(duty.off_duty)
    kss = np.asarray(result.scores["KSS"], dtype=np.float64)[None, :]
    terms = risk.hazard_terms(kss, [report], [off], [0], params)
    h = terms.term * terms.tod * terms.brk * terms.tot * terms.length
    return np.asarray(h[0])


def shift_ratio(
    runs: Runs, name: str, over: str, params: model.Parameters = model.DEFAULT
) -> float:
    """H of scenario ``name`` over H of scenario ``over`` (equal-length shifts)."""
    return float(shift_hazard(runs, name, params).sum() / shift_hazard(runs, over, params).sum())


def hourly_rate_ratio(
    runs: Runs, name: str, over: str, params: model.Parameters = model.DEFAULT
) -> float:
    """Risk per hour on duty of ``name`` over that of ``over`` (shifts of any length)."""
    a, b = shift_hazard(runs, name, params), shift_hazard(runs, over, params)
    return float((a.sum() / (a.size * 0.25)) / (b.sum() / (b.size * 0.25)))


def hazard_peak(runs: Runs, name: str, params: model.Parameters = model.DEFAULT) -> float:
    """Hours after report at which the hazard h of a shift peaks (interval midpoints,
    refined by the parabola through the highest interval and its neighbours)."""
    h = shift_hazard(runs, name, params)
    j = int(np.argmax(h))
    shift = 0.0
    if 0 < j < h.size - 1:
        y0, y1, y2 = h[j - 1 : j + 2]
        denominator = y0 - 2.0 * y1 + y2
        shift = 0.5 * (y0 - y2) / denominator if denominator != 0 else 0.0
    return (j + shift) * 0.25 + 0.125
