"""The duty-risk fit (RISK_FIT): fitted rows marked as such, defaults at its optimum, and
the fit's measures equal to the scoring path's R."""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares

from vigil import model
from vigil.validation import risk_measures as rm
from vigil.validation.catalog import all_cases
from vigil.validation.risk_fit import RISK_FIT, row_values
from vigil.validation.runs import run_all


def test_fitted_rows_name_the_group_parameters() -> None:
    by_key = {c.key: c for c in all_cases()}
    for key in RISK_FIT.rows:
        case = by_key[key]
        assert case.kind == "fitted" and set(case.fits) <= set(RISK_FIT.parameters), key
    held_out = ("folkard2003-10h", "folkard2003-nights", "folkard2003-nights-first")
    assert not set(held_out) & set(RISK_FIT.rows)
    assert by_key["folkard2003-10h"].kind == "independent"


def test_defaults_are_the_fit_and_measures_match_the_service() -> None:
    runs = run_all()
    fit = least_squares(RISK_FIT.residuals, RISK_FIT.initial, bounds=RISK_FIT.bounds)
    defaults = np.array([model.DEFAULT.risk_tod_amplitude, model.DEFAULT.tot_coefficient])
    np.testing.assert_allclose(defaults, fit.x, atol=0.001)  # stored to 3 decimals
    # the fit's shift ratio is the service's R ratio (R is rounded to 3 decimals)
    service = runs["SHIFT-N"].duties[0].risk / runs["SHIFT-M"].duties[0].risk
    assert abs(row_values(runs, model.DEFAULT)[0] - service) < 0.005
    assert abs(rm.shift_ratio(runs, "SHIFT-N", "SHIFT-M") - service) < 0.005
