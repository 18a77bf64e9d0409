"""The sleep predictor's fit groups (vigil.validation.fit_sleep): their residuals read the
same values as the report's rows, and the fitted value is the best of its neighbours."""

from __future__ import annotations

import numpy as np
import pytest

from vigil.model.parameters import DEFAULT
from vigil.validation import CASES, evaluate, run_all
from vigil.validation.fit_sleep import EARLY_START, SLEEP_FITS, early_start_values


def test_fit_values_are_the_report_rows() -> None:
    """The fit computes each row as the report does (same scenarios, same measure)."""
    runs = run_all()
    values = early_start_values(DEFAULT.early_advance_fraction)
    by_key = {c.key: c for c in CASES}
    for key in EARLY_START.rows:
        assert values[key] == pytest.approx(evaluate(by_key[key], runs).value, abs=1e-9), key


def test_fitted_value_minimises_the_stated_loss_locally() -> None:
    """early_advance_fraction = 0.66 has a lower loss than 0.61 and 0.71 (the grid of
    docs/sleep.md); its rows are the fitted ones it names."""
    assert SLEEP_FITS == (EARLY_START,)
    assert EARLY_START.parameters == ("early_advance_fraction",)

    def loss(x: float) -> float:
        return float(np.sum(EARLY_START.residuals(np.array([x])) ** 2))

    best = loss(DEFAULT.early_advance_fraction)
    assert best < loss(DEFAULT.early_advance_fraction - 0.05)
    assert best < loss(DEFAULT.early_advance_fraction + 0.05)
