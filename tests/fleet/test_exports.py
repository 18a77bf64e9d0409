"""CSV, XLSX and PDF reports of a roster: real values, formula-safe text."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from vigil.fleet.export_csv import duty_csv
from vigil.fleet.export_pdf import roster_pdf
from vigil.fleet.export_xlsx import roster_xlsx
from vigil.fleet.records import spreadsheet_safe
from vigil.fleet.summary import schedule_rows, summarise
from vigil.fleet.table import DutyTable, duty_table
from vigil.results.compact import StoredScores

from .test_summary import KSS, RISKS, TIMES, facts_for, stored_from

HOSTILE = '=HYPERLINK("http://x","y")'


@pytest.fixture
def stored() -> StoredScores:
    stored = stored_from(KSS, TIMES, RISKS)
    stored.schedules[0] = stored.schedules[0]._replace(reference=HOSTILE)
    return stored


@pytest.fixture
def table(stored: StoredScores) -> DutyTable:
    return duty_table(
        stored, facts_for([3, 1], fleet=["+A320", "B777"], rank=["@CPT", "FO"]), "KSS"
    )


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_formula_prefixes_are_neutralised(text: str) -> None:
    assert spreadsheet_safe(text) == "'" + text
    assert spreadsheet_safe("P1") == "P1"


def test_csv_has_every_duty_with_its_numbers(table: DutyTable) -> None:
    rows = list(csv.DictReader(io.StringIO(b"".join(duty_csv(table)).decode())))
    assert len(rows) == 4
    assert rows[0]["Reference"] == "'" + HOSTILE and rows[0]["Fleet"] == "'+A320"
    assert rows[0]["Rank"] == "'@CPT"
    assert [float(r["Risk"]) for r in rows] == [2.0, 0.8, 3.5, 0.5]
    assert rows[0]["Minutes at/above warning"] == "55.0" and rows[0]["Peak KSS"] == "8.0"
    assert rows[0]["Report local"] == "2026-03-02 06:00 +00:00"
    assert rows[0]["Off local"] == "2026-03-02 09:10 +01:00"  # Paris, off duty
    assert (rows[0]["Start"], rows[0]["End"], rows[0]["Kind"]) == ("LHR", "CDG", "early")
    icao = list(csv.DictReader(io.StringIO(b"".join(duty_csv(table, "icao")).decode())))
    assert (icao[0]["Start"], icao[0]["End"]) == ("EGLL", "LFPG")


def test_xlsx_numbers_formats_and_no_formulas(table: DutyTable) -> None:
    rows = schedule_rows(table)
    body = roster_xlsx(table, summarise(table, rows), rows, model_version="1.1.1+x", preset="x")
    book = load_workbook(io.BytesIO(body))
    assert book.sheetnames == ["Summary", "Duties", "Schedules", "Hot spots"]
    duties = book["Duties"]
    assert duties.freeze_panes == "A2"
    first = duties["A2"]
    assert first.value == "'" + HOSTILE and first.data_type == "s"
    header = [c.value for c in duties[1]]
    risk = duties.cell(row=2, column=header.index("Risk") + 1)
    assert risk.value == 2.0 and risk.number_format == "0.000"
    assert duties.column_dimensions["A"].width >= 10
    # times are spreadsheet date-times (sortable), UTC and local wall time
    report = duties.cell(row=2, column=header.index("Report UTC") + 1)
    assert report.is_date and report.value == datetime(2026, 3, 2, 6, 0)
    off_local = duties.cell(row=2, column=header.index("Off local") + 1)
    assert off_local.value == datetime(2026, 3, 2, 9, 10)
    assert [c.value for c in book["Schedules"]["A"]][1:] == ["'" + HOSTILE, "B"]
    summary = {r[0].value: r[1].value for r in book["Summary"].iter_rows()}
    assert summary["Duties"] == 4 and summary["Model version"] == "1.1.1+x"
    assert summary["Share of time at work at/above warning"] == pytest.approx(55 / 295, abs=1e-4)


def test_pdf_pages_carry_model_and_preset(stored: StoredScores, table: DutyTable) -> None:
    rows = schedule_rows(table)
    body = roster_pdf(table, stored, summarise(table, rows), rows, roster_name="March",
                      model_version="1.1.1+ingre2014_5c", preset="ingre2014_5c")  # fmt: skip
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(body)).pages]
    # summary, hot spots, top duties, then the 2 schedules' charts on one page
    assert len(pages) == 4
    assert all("model 1.1.1+ingre2014_5c" in p and "preset ingre2014_5c" in p for p in pages)
    assert "Duty time at or above warning: 18.6 %" in pages[0]
    assert "3.50" in pages[2] and "LHR–CDG" in pages[2]


def test_csv_is_the_csv_modules_writing_of_the_duty_records(table: DutyTable) -> None:
    """Written column by column, the CSV is byte for byte what ``csv.writer`` writes over
    the per-duty records (quoting of the hostile Reference, empty cells, numbers)."""
    from vigil.fleet.records import duty_header, duty_records

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(duty_header(table.scale))
    for row in duty_records(table):
        writer.writerow(["" if v is None else v for v in row])
    written = b"".join(duty_csv(table)).decode()
    assert '"\'=HYPERLINK(""http://x"",""y"")"' in written
    assert written == out.getvalue()
