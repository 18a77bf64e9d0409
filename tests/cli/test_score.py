"""``vigil score`` (contract §7, issue 3): outputs, exit codes, given and predicted sleep."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vigil.cli import create_app

ROSTER = "\r\n".join(
    [
        "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "P1,03/03/2026,07:10,LHR,03/03/2026,15:05,LHR,LHR,0",
        "=SUM(A1:A9),02/03/2026,09:00,JFK,02/03/2026,17:00,JFK,JFK,1",
    ]
)
SLEEP = [
    {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-01T22:00:00Z",
        "SleepEnd": "2026-03-02T04:00:00Z",
    },
    {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-02T22:30:00Z",
        "SleepEnd": "2026-03-03T05:10:00Z",
    },
]


@pytest.fixture
def roster(tmp_path: Path) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(ROSTER, encoding="utf-8")
    return path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(create_app(), list(args))
    return result.exit_code, result.stdout, result.stderr


def test_json_out_is_the_contract_envelope(roster: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.json"
    code, _, _ = run("score", str(roster), "--risk", "--out", str(out))
    assert code == 0
    envelope = json.loads(out.read_text())
    assert envelope["errors"] == []
    p1 = envelope["scheduleScores"][0]
    assert p1["schedule"] == "P1"
    # 06:00-14:30 = 34 intervals, 07:10-15:05 = ceil(475/15) = 32
    assert [d["intervalCount"] for d in p1["duties"]] == [34, 32]
    assert len(p1["fatigueScores"]) == 66 and len(p1["riskScores"]) == 2


def test_csv_out_has_one_row_per_interval_and_no_live_formulas(
    roster: Path, tmp_path: Path
) -> None:
    out = tmp_path / "scores.csv"
    code, _, _ = run("score", str(roster), "--scale", "sp", "--out", str(out))
    assert code == 0
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["schedule", "duty", "interval", "start", "end", "SP"]
    assert len(rows) == 1 + 66 + 32
    names = {r[0] for r in rows[1:]}
    assert names == {"P1", "'=SUM(A1:A9)"}  # OWASP CSV injection: prefixed with '
    assert rows[1][3:5] == ["2026-03-02T06:00:00Z", "2026-03-02T06:15:00Z"]
    assert all(1.0 <= float(r[5]) <= 7.0 for r in rows[1:])


def test_given_sleep_is_used_and_shown(roster: Path, tmp_path: Path) -> None:
    sleep = tmp_path / "sleep.json"
    sleep.write_text(json.dumps(SLEEP))
    code, stdout, _ = run("score", str(roster), "--sleep", str(sleep), "--show-sleep", "--json")
    assert code == 0
    schedules = {s["schedule"]: s for s in json.loads(stdout)["scheduleScores"]}
    given = [s for s in schedules["P1"]["sleep"] if s["source"] == "given"]
    assert [s["start"] for s in given] == ["2026-03-01T22:00:00Z", "2026-03-02T22:30:00Z"]
    # the other schedule has no records: its sleep is predicted (contract §3.2)
    other = next(name for name in schedules if name != "P1")
    assert {s["source"] for s in schedules[other]["sleep"]} == {"predicted"}
    # less sleep before the first duty than the predicted night gives higher sleepiness
    code, stdout, _ = run("score", str(roster), "--json")
    predicted = json.loads(stdout)["scheduleScores"][0]["fatigueScores"]
    assert sum(schedules["P1"]["fatigueScores"][:34]) > sum(predicted[:34])


def test_data_errors_exit_1_and_the_rest_is_scored(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(ROSTER + "\r\nP9,02/03/2026,06:00,LHR,04/03/2026,14:30,LHR,LHR,0")
    code, stdout, stderr = run("score", str(path), "--json")
    assert code == 1
    assert [s["schedule"] for s in json.loads(stdout)["scheduleScores"]][0] == "P1"
    assert stderr.startswith("4|P9|") and "30 hours" in stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--scale", "XYZ"],
        ["--preset", "nope"],
        ["--out", "scores.txt"],
        ["--sleep", "missing.json"],
    ],
)
def test_unusable_invocations_exit_2(roster: Path, args: list[str]) -> None:
    code, _, _ = run("score", str(roster), *args)
    assert code == 2


def test_plot_writes_a_png(roster: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.png"
    code, _, _ = run("score", str(roster), "--risk", "--show-sleep", "--plot", str(out))
    assert code == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 10_000
