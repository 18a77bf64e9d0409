"""``vigil validate``: errors or a summary, ``--json``, exit status 0/1/2.

Expected figures for ``tests/data/roster_small.csv`` (see ``tests/data/README.md``):
P1 06:00Z-19:30Z (54 intervals) and 23:00Z-06:30Z (30); "Smith, J" 05:45-13:10 UK time
(7 h 25 min: 30 intervals) and 05:45-11:00 UTC (21); 135 intervals in all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from vigil.cli import validate

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture
def run():
    app = typer.Typer()

    @app.callback()
    def main() -> None:  # a group, so the command is called by name as in `vigil`
        """Test app."""

    validate.register(app)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, ["validate", *args])

    return invoke


def test_summary_of_a_valid_roster(run) -> None:
    result = run(str(DATA / "roster_small.csv"))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "OK: 2 schedules, 4 duties, 135 intervals of 15 min",
        "airports: EGCC JFK LHR MAN",
        "from 2026-03-01T06:00:00Z to 2026-03-04T06:30:00Z",
    ]


def test_json_summary_with_activity_and_sleep(run) -> None:
    result = run(
        str(DATA / "roster_small.csv"),
        "--activity", str(DATA / "activity_small.csv"),
        "--sleep", str(DATA / "sleep_small.json"),
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "errors": [],
        "schedules": 2,
        "duties": 4,
        "intervals": 135,
        "airports": ["EGCC", "JFK", "LHR", "MAN"],
        "start": "2026-03-01T06:00:00Z",
        "end": "2026-03-04T06:30:00Z",
    }


def test_errors_one_per_line_and_exit_1(run) -> None:
    result = run(str(DATA / "roster_errors.csv"))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "1|P1|Off-duty 03/03/2026 14:30 is more than 30 hours after on-duty 01/03/2026 06:00 "
        "(56 h 30 min)",
        "2|P2|Unknown airport code 'XYZ' in StartAirport",
    ]


def test_json_with_errors_exits_1(run) -> None:
    result = run(str(DATA / "roster_errors.csv"), "--json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert (summary["schedules"], summary["duties"], summary["start"]) == (0, 0, None)
    assert [e.split("|")[0] for e in summary["errors"]] == ["1", "2"]


def test_mdy_option(run, tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("P1,3/13/2026,06:00,LHR,3/13/2026,07:00,LHR,,0\n", encoding="utf-8")
    assert run(str(path), "--date-format", "mdy").exit_code == 0
    assert run(str(path)).exit_code == 1


@pytest.mark.parametrize(
    "args",
    [
        ["missing.csv"],
        ["ROSTER", "--sleep", "missing.json"],
        ["ROSTER", "--date-format", "ymd"],
        ["ROSTER", "--sleep", "NOTJSON"],
    ],
)
def test_usage_problems_exit_2(run, tmp_path: Path, args: list[str]) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"SleepData": 3}', encoding="utf-8")
    mapping = {"ROSTER": str(DATA / "roster_small.csv"), "NOTJSON": str(bad_json)}
    args = [mapping.get(a, str(tmp_path / a) if a.startswith("missing") else a) for a in args]
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""


def test_registered_in_the_vigil_command() -> None:
    from vigil.cli import create_app

    result = CliRunner().invoke(create_app(), ["validate", str(DATA / "roster_errors.csv")])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[1] == "2|P2|Unknown airport code 'XYZ' in StartAirport"
