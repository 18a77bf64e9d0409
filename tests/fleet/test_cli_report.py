"""``vigil report roster``: the console's exports from the command line."""

from __future__ import annotations

import ast
import csv
import io
import json
from pathlib import Path

import pytest
import typer
from openpyxl import load_workbook
from pypdf import PdfReader
from typer.testing import CliRunner

from vigil.cli import report

DATA = Path(__file__).resolve().parents[1] / "data"
SRC = Path(__file__).resolve().parents[2] / "src" / "vigil"


@pytest.fixture(scope="module")
def cli() -> typer.Typer:
    app = typer.Typer()
    report.register(app)
    return app


def run(cli: typer.Typer, *args: str) -> str:
    result = CliRunner().invoke(cli, ["report", "roster", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_roster_report_in_every_format(cli: typer.Typer, tmp_path: Path) -> None:
    roster = str(DATA / "roster_small.csv")
    summary_path = tmp_path / "march.json"
    out = run(cli, roster, "--out", str(summary_path))
    assert "2 schedules" in out
    body = json.loads(summary_path.read_text())
    duties = body["summary"]["counts"]["duties"]
    top = body["summary"]["topDuties"][0]
    run(cli, roster, "--out", str(tmp_path / "march.csv"), "--airports", "icao")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "march.csv").read_text())))
    assert len(rows) == duties
    assert max(float(r["Risk"]) for r in rows) == top["risk"]
    assert {r["Start"] for r in rows} <= {"EGLL", "KJFK", "EGCC"}
    run(cli, roster, "--out", str(tmp_path / "march.xlsx"))
    book = load_workbook(tmp_path / "march.xlsx", read_only=True)
    assert book["Duties"].max_row == duties + 1
    run(cli, roster, "--out", str(tmp_path / "march.pdf"), "--name", "March")
    pages = [p.extract_text() for p in PdfReader(tmp_path / "march.pdf").pages]
    assert all(body["modelVersion"] in p for p in pages)


def test_roster_report_refuses_unknown_formats(cli: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["report", "roster", str(DATA / "roster_small.csv"), "--out", str(tmp_path / "x.doc")]
    )
    assert result.exit_code == 2 and ".xlsx" in result.output


def test_fleet_imports_nothing_from_the_web_or_cli() -> None:
    for path in (SRC / "fleet").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(("vigil.web", "vigil.cli", "fastapi")), (path, name)


def test_roster_report_under_an_operators_settings(cli: typer.Typer, tmp_path: Path) -> None:
    """``--operator``: the operator's warning levels, risk bands and scale, as its uploads
    are reported; an unknown operator is a clear error, not a report."""
    from vigil.settings import DEFAULT_SETTINGS, merge_settings
    from vigil.store import operator_settings, repo
    from vigil.store.db import make_engine, make_session_factory, upgrade

    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    engine = make_engine(url)
    upgrade(engine)
    own = merge_settings(DEFAULT_SETTINGS, {"warningLevels": {"SP": [4]}, "scale": "SP"})
    own = merge_settings(own, {"riskBands": [1.1, 1.2, 1.3]})
    with make_session_factory(engine).begin() as session:
        repo.get_or_create_operator(session=session, name="acme")
        operator_settings.save_settings(
            session=session, operator="acme", settings=own, changed_by="test"
        )
    engine.dispose()
    roster = str(DATA / "roster_small.csv")
    run(cli, roster, "--out", str(tmp_path / "built_in.json"))
    run(cli, roster, "--out", str(tmp_path / "acme.json"), "--operator", "acme",
        "--database-url", url)  # fmt: skip
    built_in = json.loads((tmp_path / "built_in.json").read_text())["summary"]
    acme = json.loads((tmp_path / "acme.json").read_text())["summary"]
    assert built_in["scale"] == "KSS" and acme["scale"] == "SP"
    assert acme["warningLevel"] == 4
    bounds = [b["lower"] for b in acme["bands"]]
    assert bounds[1:] == [1.1, 1.2, 1.3] and bounds != [b["lower"] for b in built_in["bands"]]
    unknown = CliRunner().invoke(
        cli,
        ["report", "roster", roster, "--out", str(tmp_path / "x.json"), "--operator", "nobody",
         "--database-url", url],
    )  # fmt: skip
    assert unknown.exit_code == 2 and "nobody" in unknown.output
    assert not (tmp_path / "x.json").exists()
