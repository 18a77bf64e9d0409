"""The fitting procedure: it recovers known values, keeps hand-set values it cannot improve,
and re-predicts the fitted rows exactly as the report does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from typer.testing import CliRunner

from vigil import model
from vigil.cli import create_app
from vigil.model.sleep_parameters import DEFAULT_SLEEP
from vigil.validation import fit, fit_groups, run_all
from vigil.validation.catalog import all_cases
from vigil.validation.fit_groups import registered


def _toy(residuals: object, initial: float = 0.9) -> fit.FitGroup:
    return fit.FitGroup(
        name="toy",
        parameters=("p",),
        initial=(initial,),
        bounds=((0.0,), (1.0,)),
        rows=("row",),
        loss="squared (p - target) / scale",
        residuals=residuals,  # type: ignore[arg-type]
    )


def test_a_smooth_group_recovers_its_known_value() -> None:
    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.array([(x[0] - 0.37) / 0.1])

    result = fit.fit(_toy(residuals))
    assert result.fitted[0] == pytest.approx(0.37, abs=1e-3)
    assert result.cost_after < 1e-6 < result.cost_before
    assert result.identified == (True,) and result.same == (False,)


def test_a_step_loss_is_found_by_the_grid() -> None:
    # piecewise constant, as the predictor's minute-resolved sleep is: zero gradient away
    # from the step, so only the grid can find the zero-loss plateau
    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.array([0.0 if 0.4 <= x[0] <= 0.6 else 1.0])

    result = fit.fit(_toy(residuals))
    assert 0.4 <= result.fitted[0] <= 0.6 and result.cost_after == 0.0


def test_a_flat_loss_keeps_the_hand_set_value_and_says_not_identified() -> None:
    result = fit.fit(_toy(lambda x: np.array([0.5])))
    assert result.fitted == (0.9,) and result.identified == (False,) and result.same == (True,)


def test_residuals_are_standardised_by_the_band() -> None:
    assert fit.standardised(6.0, 5.0, 6.0) == 1.0
    assert fit.standardised(5.25, 5.0, 6.0) == -0.5
    assert fit.standardised(1.5, 2.0, float("inf")) == 0.5
    assert fit.standardised(0.5, 0.0, 1.0 / 60.0, one_sided=True, unit=1.0 / 60.0) == 29.0
    assert fit.standardised(0.0, 0.0, 1.0 / 60.0, one_sided=True) == 0.0
    assert fit.standardised(float("nan"), 0.0, 1.0) == 10.0


def test_the_report_lists_the_changes_to_apply() -> None:
    result = fit.fit(_toy(lambda x: np.array([(x[0] - 0.37) / 0.1])))
    text = fit.render_markdown([result], {"q": "[h] a choice [C]"}, {"r": "why"}, "v")
    assert "| toy | `p` | 0.9 | 0.37 |" in text
    assert "- p: 0.9 -> 0.37" in text
    assert "- `q`: [h] a choice [C]" in text and "- `r`: why" in text
    body = json.loads(fit.to_json([result], "v"))
    assert body["groups"][0]["parameters"]["p"]["fitted"] == pytest.approx(0.37, abs=1e-3)


def test_every_group_fits_only_fitted_rows_that_name_its_parameters() -> None:
    cases = {c.key: c for c in all_cases()}
    for group in registered():
        lows, highs = group.bounds
        assert all(lo <= v <= hi for v, lo, hi in zip(group.initial, lows, highs, strict=True))
        for key in group.rows:
            assert cases[key].kind == "fitted", (group.name, key)
        named = {p for key in group.rows for p in cases[key].fits}
        assert set(group.parameters) <= named, group.name


def test_the_fit_runner_predicts_the_rows_as_the_report_does() -> None:
    runs = run_all()
    items = list(fit_groups._scenarios().values())
    again = fit_groups.sleep_runs(items, model.DEFAULT, DEFAULT_SLEEP)
    # the sleep groups' rows (the duty-risk group reads scored runs: tests/validation/test_risk_fit)
    sleep_rows = {key for group in fit_groups.FIT_GROUPS() for key in group.rows}
    fitted = [c for c in all_cases() if c.kind == "fitted" and c.key in sleep_rows]
    assert fitted
    values = {c.key: (c.compute(again), c.compute(runs)) for c in fitted}
    differ = {k: v for k, v in values.items() if abs(v[0] - v[1]) > 1e-9}
    assert differ == {}


def test_parameters_are_set_by_name_in_the_model_or_the_sleep_rules() -> None:
    params, sleep = fit_groups.with_values(("nap_length", "local_ramp"), (2.0, 24.0))
    assert params.nap_length == 2.0 and sleep.local_ramp == 24.0
    assert params.gate_onset == model.DEFAULT.gate_onset
    with pytest.raises(KeyError, match="nonesuch"):
        fit_groups.with_values(("nonesuch",), (1.0,))


def test_command_fits_a_group_and_writes_the_report(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        create_app(), ["report", "fit", "--group", "nap rule", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    text = (tmp_path / "fit.md").read_text(encoding="utf-8")
    assert "`nap_after_wake`" in text and "early_advance_fraction" not in text.split("##")[0]
    assert json.loads((tmp_path / "fit.json").read_text())["groups"][0]["name"] == "nap rule"
    bad = CliRunner().invoke(create_app(), ["report", "fit", "--group", "nonesuch"])
    assert bad.exit_code == 2 and "nonesuch" in bad.output


def test_groups_of_parameters_the_model_no_longer_has_are_left_out_and_said() -> None:
    spec = ("gone", (("no_such_parameter", 0.0, 1.0),), ("LATE",), (), "loss")
    assert fit_groups._missing(spec) == ["no_such_parameter"]
    names = {g.name for g in registered()}
    assert {s[0] for s in fit_groups._specs() if not fit_groups._missing(s)} <= names
    reasons = fit_groups.not_fitted()
    assert "DEPARTURE_HOUR" in reasons and "no_such_parameter" not in reasons
