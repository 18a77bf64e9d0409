"""One per-duty table from either source: stored results or a scoring run's results.

:func:`vigil.fleet.table.duty_table` (the dashboard, its exports and the charts, from the
stored frames the worker writes) and :func:`vigil.fleet.table.results_table` (``vigil
report roster`` and ``vigil score --per duty|schedule``, from the results in memory) are
one builder; they must give the same table, field by field, on every scale, for a roster
whose crew rest in flight (the rest is left out of every figure, both ways).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from vigil.cli import _tables, report
from vigil.domain import DateFormat
from vigil.fleet.export_csv import duty_csv
from vigil.fleet.table import DutyTable, duty_table, results_facts, results_table, with_offsets
from vigil.model import warning_level
from vigil.results.compact import StoredScores, unpack
from vigil.results.frames import encode_frame, join_frames
from vigil.results.routes import RouteFacts, route_facts_of_columns
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreReport, ScoreRequest, score

#: an airline month's mix: short-haul, augmented long-haul with in-flight rest, cabin crew
ROSTER = generate_airline_roster(12, 28, seed=7)


@pytest.fixture(scope="module")
def scored() -> ScoreReport:
    return score(ScoreRequest(ROSTER, risk=True, extra_scales=SCALE_CODES))


@pytest.fixture(scope="module")
def stored(scored: ScoreReport) -> StoredScores:
    """The scores as the worker stores them (frames) and the console reads them back."""
    from vigil import model

    return unpack(join_frames([encode_frame(scored.schedules, model.DEFAULT, SCALE_CODES)]))


def _facts(scored: ScoreReport) -> RouteFacts:
    parsed = parse_request(ROSTER, DateFormat.DMY)
    entries = [(r.reference, len(r.duties)) for r in scored.schedules]
    return route_facts_of_columns(entries, parsed.columns)


@pytest.mark.parametrize("scale", SCALE_CODES)
def test_results_and_stored_results_give_the_same_table(
    scored: ScoreReport, stored: StoredScores, scale: str
) -> None:
    routes = _facts(scored)
    direct = results_table(scored.schedules, results_facts(scored.schedules, routes), scale)
    kept = duty_table(stored, with_offsets(stored, routes), scale)
    assert int(direct.rest_intervals.sum()) > 0  # some crew rest in flight: the mask counts
    assert direct.level == kept.level == warning_level(scale)
    for field in dataclasses.fields(DutyTable):
        a, b = getattr(direct, field.name), getattr(kept, field.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b, err_msg=field.name)
        else:
            assert a == b, field.name


def test_cli_duty_rows_are_the_fleet_table(scored: ScoreReport) -> None:
    """``vigil score --per duty`` shows the fleet table's figures, its level included."""
    report_kp = dataclasses.replace(scored, scale="KP")
    frame = _tables.duty_table(report_kp, parse_request(ROSTER, DateFormat.DMY).columns)
    routes = _facts(scored)
    t = results_table(scored.schedules, results_facts(scored.schedules, routes), "KP")
    np.testing.assert_array_equal(frame["peakKP"].to_numpy(), t.peak)
    np.testing.assert_array_equal(frame["restIntervals"].to_numpy(), t.rest_intervals)
    np.testing.assert_array_equal(
        frame["minutesAtOrAbove39.2"].to_numpy(), np.round(t.above_minutes).astype(np.int64)
    )
    assert frame["route"][0] == "-".join(
        t.airports.code[a] for a in (int(t.start[0]), int(t.end[0]))
    )
    assert frame.schema["reportUtc"] == pl.Datetime("us", "UTC")


def test_report_roster_csv_is_the_console_export(
    scored: ScoreReport, stored: StoredScores, tmp_path: Path
) -> None:
    """``vigil report roster --out x.csv`` writes the bytes the console's export writes
    from the stored results (default settings, KSS)."""
    roster = tmp_path / "month.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    app = report.typer.Typer()
    report.register(app)
    out = tmp_path / "month-report.csv"
    result = CliRunner().invoke(app, ["report", "roster", str(roster), "--out", str(out)])
    assert result.exit_code == 0, result.output
    console = duty_table(stored, with_offsets(stored, _facts(scored)), "KSS")
    assert out.read_bytes() == b"".join(duty_csv(console, "iata"))
