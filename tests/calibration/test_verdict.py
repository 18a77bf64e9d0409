"""The plain verdict and the band order on constructed ratings with a known truth.

Ratings are built directly as :class:`~vigil.calibration.report.Matched` rows: a predicted
KSS spread over 3–8, observed = predicted + a known bias (in one band or everywhere) +
N(0, 1) noise, fitted with the report's own :func:`~vigil.calibration.fit.fit_kss`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import numpy as np
import pytest

from vigil.calibration import fit_kss
from vigil.calibration.observations import Matched, Observation
from vigil.calibration.report import CalibrationReport
from vigil.calibration.verdict import adoption_text, band_order, verdict

TIMES = ("00-06", "06-12", "12-18", "18-24")
HOURS = ("0-4", "4-8", "8-12", "12+")


def _ratings(
    n: int,
    *,
    bias: float = 0.0,
    night_bias: float = 0.0,
    slope: float = 1.0,
    crew: int = 10,
    seed: int = 1,
    instrument: str = "KSS",
) -> list[Matched]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        predicted = float(rng.uniform(3.0, 8.0))
        tod = TIMES[i % 4]
        shift = bias + (night_bias if tod == "00-06" else 0.0)
        # observed spreads around the middle of the range (5.5) with the given slope
        observed = 5.5 + slope * (predicted - 5.5) + shift + float(rng.normal(0.0, 1.0))
        at = datetime(2026, 3, 1, tzinfo=UTC)
        obs = Observation(i + 2, f"P{i % crew}", at, instrument, observed)
        out.append(Matched(obs, predicted, tod, "active", HOURS[(i // 4) % 4]))
    return out


def _report(matched: list[Matched]) -> CalibrationReport:
    fit = fit_kss(
        np.array([m.predicted for m in matched]),
        np.array([m.observation.value for m in matched]),
        np.array([hash(m.observation.reference) for m in matched]),
        name="acme-kss-v1",
        source="test",
    )
    return CalibrationReport("m", 0, tuple(matched), (), (), (), (), {"KSS": fit})


def test_too_sleepy_at_night_names_the_band_and_the_adoption_effect() -> None:
    report = _report(_ratings(800, night_bias=-1.2))
    said = report.verdict()
    assert said.kind == "too-sleepy" and said.where == "timeOfDay" and said.band == "00-06"
    assert said.bias is not None and abs(said.bias + 1.2) < 0.2
    assert said.text.startswith("Vigil reads your crews 1.")
    assert "too sleepy at night (00–06 home-base time)" in said.text
    assert "adopting lowers those scores by about" in said.text
    # the linear preset corrects the night band only partly: the overall bias is -0.3
    assert said.adopt_change is not None and -1.2 < said.adopt_change < -0.1
    assert said.text.endswith("only partly, because the preset shifts every duty alike.")


def test_too_alert_everywhere_is_an_overall_verdict() -> None:
    report = _report(_ratings(800, bias=0.8))
    said = report.verdict()
    assert said.kind == "too-alert" and said.where == "overall" and said.band is None
    assert "0.8 KSS too alert on average; adopting raises their scores by about 0.8" in (said.text)
    # least squares passes through the means: over all ratings the change is the bias
    fit = report.fits["KSS"]
    assert fit is not None and said.adopt_change is not None
    assert abs(said.adopt_change - fit.bias) < 1e-9


def test_no_difference_is_within_noise() -> None:
    said = _report(_ratings(800, seed=4)).verdict()
    assert said.kind == "within-noise" and said.adopt_change is None
    assert "within noise" in said.text and "no reason to adopt" in said.text


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_a_flatter_crew_line_is_a_spread_verdict(seed: int) -> None:
    said = _report(_ratings(1200, slope=0.6, seed=seed)).verdict()
    assert said.kind == "spread" and said.where == "overall"
    assert said.text.startswith("On average Vigil ")
    assert "it overstates the differences between duties (slope 0.6" in said.text
    # a + (b − 1)·K with b ≈ 0.6 through (5.5, 5.5): about +1.0 at KSS 3, −0.6 at KSS 7
    moves = re.search(r"KSS 3 by \+(\d\.\d) and of KSS 7 by −(\d\.\d)\.$", said.text)
    assert moves is not None
    assert abs(float(moves.group(1)) - 1.0) < 0.3 and abs(float(moves.group(2)) - 0.6) < 0.3


def test_only_sp_ratings_say_the_verdict_needs_kss() -> None:
    said = verdict(_ratings(200, instrument="SP"), None)
    assert said.kind == "too-few" and said.text.startswith("No KSS ratings were compared")


def test_too_few_ratings_say_so_plainly() -> None:
    said = _report(_ratings(40, bias=-1.5)).verdict()
    assert said.kind == "too-few"
    assert said.text.startswith("Too few ratings to judge yet: 40 KSS ratings from 10 crew")
    so_far = re.search(r"so far Vigil reads them (\d\.\d) KSS too sleepy\.$", said.text)
    # 40 ratings with SD 1: the bias's SE is 0.16, so 1.5 ± 2.5 SE
    assert so_far is not None and abs(float(so_far.group(1)) - 1.5) < 0.4
    too_few_crew = _report(_ratings(400, bias=-1.5, crew=3)).verdict()
    assert too_few_crew.kind == "too-few" and "from 3 crew members" in too_few_crew.text
    assert verdict([], None).text.startswith("Too few ratings to judge yet: 0 KSS ratings")


def test_adoption_text_says_what_changes() -> None:
    report = _report(_ratings(800, bias=-0.6))
    text = report.adoption(current="ingre2014_5c", offered="acme-kss-v1")
    assert text is not None
    assert "the operator's preset from ingre2014_5c to acme-kss-v1" in text
    assert "−0.6 on average" in text and "Rosters already stored keep their scores" in text
    assert adoption_text(None, np.array([])) is None
    assert _report(_ratings(40)).adoption() is None  # no preset offered


def test_json_carries_the_verdict_and_bands_sort_numerically() -> None:
    data = _report(_ratings(800, night_bias=-1.2)).to_dict()
    assert data["verdict"] == data["verdictDetail"]["text"]
    assert data["verdictDetail"]["band"] == "00-06" and data["adoption"]
    labels = [g["label"] for g in data["scales"]["KSS"]["byHoursOnDuty"]]
    assert labels == ["0-4", "4-8", "8-12", "12+"]
    assert sorted(["12+", "0-4", "8-12", "4-8", "active"], key=band_order) == [
        "0-4",
        "4-8",
        "8-12",
        "12+",
        "active",
    ]
