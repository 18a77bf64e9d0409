"""``vigil plan-rest`` plans offline and writes the roster to paste back."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from test_planner_plan import roster
from typer.testing import CliRunner

from vigil.cli import create_app

ON = datetime(2026, 3, 3, 20, 0, tzinfo=UTC)
ARGS = ["--duty", "2026-03-03T20:00Z", "--crew", "CA,FO,CB,FB", "--landing", "CA,FO"]


def test_plan_rest_prints_the_summary_and_writes_the_roster(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text(roster(ON, 14.0), encoding="utf-8")
    out = tmp_path / "planned.csv"
    result = CliRunner().invoke(create_app(), ["plan-rest", str(path), *ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Landing pilots CA and FO take break")
    assert "equal split: worst KSS at a critical phase" in result.output
    assert "relief pilots CB, FB at the longest stretch at the controls" in result.output
    planned = out.read_text(encoding="utf-8").splitlines()
    assert planned[0].endswith("SecondRestEndTime")
    assert all(len(line.split(",")) == len(planned[0].split(",")) for line in planned)

    as_json = CliRunner().invoke(create_app(), ["plan-rest", str(path), *ARGS, "--json"])
    assert as_json.exit_code == 0
    data = json.loads(as_json.output)
    assert data["rosterData"].splitlines() == planned


def test_a_pilot_not_rostered_yet_is_a_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    text = "\r\n".join(x for x in roster(ON, 14.0).split("\r\n") if not x.startswith("FB,"))
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(create_app(), ["plan-rest", str(path), *ARGS])
    assert result.exit_code == 2 and "--crew" in result.output
    args = ["plan-rest", str(path), *ARGS, "--placeholders", "FB"]
    result = CliRunner().invoke(create_app(), args)
    assert result.exit_code == 0, result.output
    assert "placeholders (not in the roster, planned rested): FB" in result.output


def test_a_duty_that_cannot_be_planned_exits_2_naming_the_option(tmp_path: Path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text(roster(ON, 14.0), encoding="utf-8")
    args = ["plan-rest", str(path), *ARGS[:4], "--landing", "CA,XX"]
    result = CliRunner().invoke(create_app(), args)
    assert result.exit_code == 2
    assert "--landing" in result.output and "not one of References" in result.output
