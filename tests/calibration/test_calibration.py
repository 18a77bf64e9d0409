"""The calibration report on simulated crews with a known truth.

Ratings come from :func:`vigil.calibration.simulate_observations`: the model's interval
score plus a known bias and N(0, 1) noise, rounded and clipped to the scale. The fit must
find the bias within 0.1 KSS; ratings drawn from another model (the FIPS-style
``tpm_default`` preset) must come out miscalibrated; ratings from the model itself must not.
"""

from __future__ import annotations

from functools import cache

import pytest

from vigil.calibration import (
    MIN_OBSERVATIONS,
    CalibrationReport,
    ObservationsError,
    build_report,
    parse_observations,
    parse_sleep_periods,
    simulate_observations,
)
from vigil.domain import DateFormat
from vigil.roster.synthetic import generate_roster
from vigil.scoring.context import DEFAULT_CONTEXT


@cache
def roster() -> str:
    """20 crew members over 28 days: about 300 duties."""
    return generate_roster(20, 28, seed=3)


@cache
def report_for(seed: int, bias: float, preset: str | None = None) -> CalibrationReport:
    context = DEFAULT_CONTEXT.with_preset(preset) if preset else DEFAULT_CONTEXT
    text = simulate_observations(roster(), seed=seed, bias=bias, per_duty=4, context=context)
    ratings, errors = parse_observations(text)
    assert errors == []
    return build_report(roster(), DateFormat.DMY, ratings)


@pytest.mark.parametrize("bias", [1.0, -0.7])
def test_fit_recovers_a_known_bias(bias: float) -> None:
    report = report_for(11, bias)
    fit = report.fits["KSS"]
    assert fit is not None and fit.n > 1000 and fit.crew >= 15
    assert abs(fit.bias - bias) < 0.1
    assert fit.bias_ci[0] < bias < fit.bias_ci[1]
    assert not fit.calibrated and fit.enough
    overall = report.to_dict()["scales"]["KSS"]["overall"]
    assert overall["n"] == fit.n and abs(overall["bias"] - bias) < 0.1


def test_the_model_itself_is_not_flagged() -> None:
    fit = report_for(12, 0.0).fits["KSS"]
    assert fit is not None and abs(fit.bias) < 0.1 and abs(fit.slope - 1.0) < 0.1
    assert fit.calibrated


def test_another_model_shows_up_as_miscalibrated() -> None:
    fit = report_for(13, 0.0, "tpm_default").fits["KSS"]
    assert fit is not None and not fit.calibrated
    # FIPS KSS = 10.6 - 0.6 X against 9.68 - 0.46 X: steeper by about 0.6/0.46
    assert fit.slope_ci[0] > 1.0


def test_report_tables_and_shares() -> None:
    data = report_for(11, 1.0).to_dict()
    kss = data["scales"]["KSS"]
    assert sum(g["n"] for g in kss["byTimeOfDay"]) == kss["overall"]["n"]
    assert sum(g["n"] for g in kss["byHoursOnDuty"]) == kss["overall"]["n"]
    assert [g["label"] for g in kss["byDutyType"]] == ["active"]
    assert sum(b["n"] for b in kss["calibrationBins"]) == kss["overall"]["n"]
    assert 0.0 < kss["overall"]["within1"] < kss["overall"]["within2"] <= 1.0
    assert data["modelVersion"].endswith("+ingre2014_5c")
    assert kss["fit"]["method"].startswith("OLS")


def test_too_few_ratings_offer_no_preset() -> None:
    text = simulate_observations(roster(), seed=1, per_duty=1)
    ratings, _ = parse_observations(text)
    few = ratings[: MIN_OBSERVATIONS // 2]
    fit = build_report(roster(), DateFormat.DMY, few).fits["KSS"]
    assert fit is not None and not fit.enough and f"{MIN_OBSERVATIONS} KSS ratings" in fit.why_not


def test_ratings_outside_duties_and_unknown_crew_are_listed() -> None:
    text = (
        "reference,timestamp,instrument,value\n"
        "Nobody,2026-03-01T06:00:00Z,KSS,5\n"
        "P1,2026-03-10T06:00:00Z,SP,3\n"
        "P1,2026-03-01T07:00:00+01:00,KSS,4\n"
    )
    ratings, errors = parse_observations(text)
    assert errors == [] and len(ratings) == 3
    roster_text = (
        "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
        "HomeBase,TimeReference\r\nP1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0\r\n"
    )
    report = build_report(roster_text, DateFormat.DMY, ratings)
    assert [m.observation.row for m in report.matched] == [4]  # 06:00Z, the first interval
    assert report.matched[0].predicted > 0 and report.matched[0].hours_on_duty == "0-4"
    assert [u.split("|")[0] for u in report.unmatched] == ["2", "3"]
    assert report.fits["KSS"] is None  # fewer than 3 ratings: no statistics


def test_bad_lines_and_bad_files() -> None:
    ratings, errors = parse_observations(
        "Reference,Timestamp,Instrument,Value\n"
        "P1,2026-03-01 06:00,KSS,5\n"
        "P1,2026-03-01T06:00:00Z,XYZ,5\n"
        "P1,2026-03-01T06:00:00Z,SP,8\n"
        ",2026-03-01T06:00:00Z,KSS,5\n"
    )
    assert ratings == []
    assert [e.split("|")[0] for e in errors] == ["2", "3", "4", "5"]
    assert "not a SP rating (1 to 7)" in errors[2]
    with pytest.raises(ObservationsError, match="lacks instrument"):
        parse_observations("Reference,Timestamp,Value\nP1,2026-03-01T06:00:00Z,5\n")
    periods, sleep_errors = parse_sleep_periods(
        "Reference,SleepStart,SleepEnd\n"
        "P1,2026-03-01T22:00:00Z,2026-03-02T06:00:00Z\n"
        "P1,2026-03-02T06:00:00Z,2026-03-01T22:00:00Z\n"
    )
    assert len(periods) == 1 and sleep_errors == ["Sleep:3|P1|SleepEnd is not after SleepStart"]


def test_actual_sleep_is_used_and_compared() -> None:
    roster_text = (
        "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
        "HomeBase,TimeReference\r\n"
        "P1,02/03/2026,06:00,LHR,02/03/2026,14:00,LHR,LHR,0\r\n"
        "P1,03/03/2026,06:00,LHR,03/03/2026,14:00,LHR,LHR,0\r\n"
    )
    rating = "Reference,Timestamp,Instrument,Value\nP1,2026-03-03T06:10:00Z,KSS,6\n"
    short_night = (
        "Reference,SleepStart,SleepEnd\n"
        "P1,2026-03-01T22:00:00Z,2026-03-02T04:30:00Z\n"
        "P1,2026-03-03T01:00:00Z,2026-03-03T04:30:00Z\n"
    )
    ratings, _ = parse_observations(rating)
    periods, _ = parse_sleep_periods(short_night)
    predicted = build_report(roster_text, DateFormat.DMY, ratings)
    actual = build_report(roster_text, DateFormat.DMY, ratings, periods)
    assert actual.sleep_given_for == ("P1",)
    # 3.5 h of sleep before the second early start: sleepier than predicted sleep says
    assert actual.matched[0].predicted > predicted.matched[0].predicted + 0.5
    [home] = actual.sleep
    assert home.break_type == "home" and home.breaks == 1
    assert home.actual_hours == pytest.approx(3.5)
    assert home.predicted_hours > 5.0 and home.bias_hours < -1.5


def test_pdf_and_svg() -> None:
    from vigil.calibration.plots import plot_svg, report_pdf

    report = report_for(11, 1.0)
    svg = plot_svg(report, "KSS")
    assert svg.startswith(b"<?xml") and b"<svg" in svg and svg == plot_svg(report, "KSS")
    pdf = report_pdf(report, "test")
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    # tenant text is printed as written: an unbalanced TeX command would break mathtext
    assert report_pdf(report, r"winter $\frac{$ study").startswith(b"%PDF")


def test_only_the_rated_crews_are_read_and_scored() -> None:
    """A study group's report scores its crews alone (vigil.roster.subset): the same
    numbers as scoring the whole roster, and an unrated crew member's bad row is not
    reported (a rated one's is, at its row number in the roster)."""
    lines = roster().removesuffix("\r\n").split("\r\n")
    bad = lines[-1].split(",")
    bad[3] = "XYZ"  # an unknown airport on the last row
    text = "\r\n".join([*lines, ",".join(bad)])
    bad_ref, bad_row = bad[0], len(lines) + 1
    ratings, _ = parse_observations(simulate_observations(roster(), seed=5, bias=0.4, per_duty=2))
    group = sorted({r.reference for r in ratings} - {bad_ref})[:5]
    rated = [r for r in ratings if r.reference in group]
    report = build_report(text, DateFormat.DMY, rated)
    assert {m.observation.reference for m in report.matched} == set(group)
    assert not any(f"|{bad_ref}|" in e for e in report.input_errors)
    with_bad = build_report(
        text, DateFormat.DMY, [*rated, *(r for r in ratings if r.reference == bad_ref)]
    )
    assert any(e.startswith(f"{bad_row}|{bad_ref}|") for e in with_bad.input_errors)
    # the group's predictions are the whole roster's scores at the rated intervals
    from vigil.domain import INTERVAL
    from vigil.scoring.service import ScoreRequest, score

    whole = {r.reference: r for r in score(ScoreRequest(roster(), DateFormat.DMY)).schedules}
    for m in report.matched:
        result, at = whole[m.observation.reference], m.observation.at
        duty = next(d for d in result.duties if d.on_duty <= at < d.off_duty)
        k = duty.first_interval + int((at - duty.on_duty) / INTERVAL)
        assert m.predicted == float(result.scores["KSS"][k])
