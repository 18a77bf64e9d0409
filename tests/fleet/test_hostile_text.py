"""Tenant text is drawn as text in every PDF and plot (no mathtext, no TeX).

Found by an attack: a ``$\\frac{$`` in a roster name, a Reference, Fleet or Rank, or an
observation-set name made the PDF exports answer 500, because matplotlib read the text
as mathtext. Every export is drawn here with such names and must contain them verbatim.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pypdf import PdfReader

from vigil.fleet.export_csv import duty_csv
from vigil.fleet.export_pdf import roster_pdf
from vigil.fleet.export_xlsx import roster_xlsx
from vigil.fleet.summary import schedule_rows, summarise
from vigil.fleet.table import duty_table

from .test_summary import KSS, RISKS, TIMES, facts_for, stored_from

NAMES = ["$\\frac{$", "$x^{2$", "$$", "a $\\sqrt{}$ b", "\\$5"]


@pytest.mark.parametrize("name", NAMES)
def test_roster_exports_carry_hostile_names(name: str) -> None:
    stored = stored_from(KSS, TIMES, RISKS)
    stored.schedules[0] = stored.schedules[0]._replace(reference=name)
    table = duty_table(stored, facts_for([3, 1], fleet=[name, "B777"], rank=["FO", name]), "KSS")
    rows = schedule_rows(table)
    pdf = roster_pdf(table, stored, summarise(table, rows), rows, roster_name=name,
                     model_version="1", preset="p")  # fmt: skip
    text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert text.count(name) >= 3  # footer of every page, the chart, the tables
    assert name.encode() in b"".join(duty_csv(table))
    workbook = roster_xlsx(table, summarise(table, rows), rows, model_version="1", preset="p")
    assert workbook[:2] == b"PK"


@pytest.mark.parametrize("name", NAMES[:2])
def test_calibration_report_and_plot_carry_hostile_names(name: str) -> None:
    from vigil.calibration.observations import parse_observations
    from vigil.calibration.plots import plot_svg, report_pdf
    from vigil.calibration.report import build_report
    from vigil.calibration.simulate import simulate_observations
    from vigil.domain import DateFormat

    start = datetime(2026, 3, 2, 6, tzinfo=UTC)
    rows = [
        f"{name},{(start + timedelta(days=d)):%d/%m/%Y},06:00,LHR,"
        f"{(start + timedelta(days=d)):%d/%m/%Y},14:00,LHR,LHR,0"
        for d in range(5)
    ]
    roster = "\r\n".join(rows)
    text = simulate_observations(roster, seed=1, bias=0.5, per_duty=4)
    ratings, errors = parse_observations(text)
    assert errors == []
    report = build_report(roster, DateFormat.DMY, ratings)
    pdf = report_pdf(report, name)
    pages = "".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert name in pages
    assert plot_svg(report, "KSS").startswith(b"<?xml")


def test_cli_plot_carries_hostile_names(tmp_path: Path) -> None:
    from vigil.cli._plot import plot_report
    from vigil.domain import DateFormat
    from vigil.scoring.service import ScoreRequest, score

    roster = "$\\frac{$,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0"
    report = score(ScoreRequest(roster, DateFormat.DMY))
    out = tmp_path / "p.png"
    plot_report(report, out)
    assert out.stat().st_size > 1000
