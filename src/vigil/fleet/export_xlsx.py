"""XLSX workbook of a roster, written with XlsxWriter.

Sheets: ``Summary`` (the roster's figures, model version and preset), ``Duties`` (one row
per duty), ``Schedules`` and ``Hot spots``. Numbers are written as numbers with a number
format, headers are frozen and filterable, columns sized to their content. Written in
XlsxWriter's constant-memory mode (row by row), so a 10,000-crew month stays small in
memory. Text cells are formula-safe (:func:`vigil.fleet.records.spreadsheet_safe`) and
XlsxWriter is told never to read strings as formulas, numbers or URLs. The duty rows are
written in bulk (:mod:`vigil.fleet.xlsx_rows`): 136,000 duties × 19 columns in seconds.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import xlsxwriter

from vigil.fleet.records import (
    SCHEDULE_HEADER,
    duty_columns,
    duty_header,
    schedule_columns,
    spreadsheet_safe,
)
from vigil.fleet.table import DutyTable
from vigil.fleet.xlsx_rows import BULK_ROWS, bulk_target, rows_xml

__all__ = ["roster_xlsx"]

#: number format per column kind
_FORMATS = {"int": "0", "2dp": "0.00", "3dp": "0.000", "1dp": "0.0", "pct": "0.0%"}
_FORMATS["time"] = "yyyy-mm-dd hh:mm"
#: per column of :func:`vigil.fleet.records.duty_header`
_DUTY_KINDS = ["text", "int", "text", "text", "text", "text", "int", "text"]
_DUTY_KINDS += ["time"] * 4 + ["2dp", "3dp", "3dp", "3dp", "1dp", "3dp", "text", "2dp"]
_DUTY_KINDS += ["text", "text"]  # crew, what drives the risk
_SCHED_KINDS = ["text", "text", "text", "int", "3dp", "3dp", "1dp", "pct", "int", "int", "int"]
_WIDTHS = {"text": 12, "int": 8, "2dp": 9, "3dp": 9, "1dp": 10, "pct": 10, "time": 17}


def _cell_writer(sheet: Any, kinds: Sequence[str], formats: dict[str, Any]) -> Any:
    """``write(r, row)``: one row through XlsxWriter's own cell writes (no cell if empty)."""
    write_string, write_number = sheet.write_string, sheet.write_number
    column_formats = [formats.get(k) for k in kinds]

    def write(r: int, row: Sequence[Any]) -> None:
        for c, value in enumerate(row):
            if isinstance(value, str):
                write_string(r, c, value)
            elif value is not None and math.isfinite(value):
                write_number(r, c, value, column_formats[c])

    return write


def _sheet(
    book: Any,
    name: str,
    header: Sequence[str],
    kinds: Sequence[str],
    columns: Sequence[Sequence[Any] | np.ndarray[Any, Any]],
    formats: dict[str, Any],
    widths: Sequence[int] | None = None,
    *,
    bulk: bool = True,
) -> int:
    """A sheet of ``columns`` (equal lengths) under a frozen, filterable header.

    The last row goes through XlsxWriter (so it has the sheet's dimensions and flushes
    the header); the rows before it are appended in bulk (:mod:`vigil.fleet.xlsx_rows`),
    or with ``bulk=False`` cell by cell through XlsxWriter.
    """
    sheet = book.add_worksheet(name)
    bold = formats["header"]
    for c, title in enumerate(header):
        width = widths[c] if widths else max(_WIDTHS[kinds[c]], min(len(title) + 2, 28))
        sheet.set_column(c, c, width, formats.get(kinds[c]))
        sheet.write_string(0, c, title, bold)
    sheet.freeze_panes(1, 0)
    n = len(columns[0]) if columns else 0
    write = _cell_writer(sheet, kinds, formats)
    target = bulk_target(sheet) if bulk else None
    if target is None:  # not asked, or not XlsxWriter's constant-memory row file
        for r, row in enumerate(zip(*columns, strict=True), start=1):
            write(r, row)
    elif n:
        write(n, [col[n - 1] for col in columns])
        text = [k == "text" for k in kinds]
        styles = [None if formats.get(k) is None else formats[k]._get_xf_index() for k in kinds]
        for start in range(0, n - 1, BULK_ROWS):
            block = [col[start : min(start + BULK_ROWS, n - 1)] for col in columns]
            target.write(rows_xml(block, text, styles, start + 1))
    sheet.autofilter(0, 0, max(n, 1), len(header) - 1)
    return n


def _summary_rows(summary: dict[str, Any], model_version: str, preset: str) -> list[list[Any]]:
    counts, above, risk = summary["counts"], summary["aboveWarning"], summary["risk"]
    rows: list[list[Any]] = [
        ["Model version", model_version],
        ["Preset", preset],
        ["Scale", f"{summary['scale']} ({summary['scaleName']})"],
        ["Warning level", summary["warningLevel"]],
        ["Schedules", counts["schedules"]],
        ["Duties", counts["duties"]],
        ["Duty hours", counts["dutyHours"]],
        ["Share of time at work at/above warning", above["share"]],
        ["Duties with time at/above warning", above["duties"]],
        ["Median risk", risk["p50"]],
        ["90th percentile risk", risk["p90"]],
        ["Highest risk", risk["max"]],
    ]
    for band in summary["bands"]:
        span = (
            f"R ≥ {band['lower']}"
            if band["upper"] is None
            else f"R {band['lower']}–{band['upper']}"
        )
        rows.append([f"Duties {band['words']} ({span})", band["count"]])
    return rows


def _hot_rows(summary: dict[str, Any]) -> list[list[Any]]:
    hot = summary["hotSpots"]
    rows: list[list[Any]] = []
    for group, title in (
        ("dutyKind", "Duty kind"),
        ("fleet", "Fleet"),
        ("rank", "Rank"),
        ("cityPair", "City pair"),
    ):
        for row in hot[group]:
            rows.append([title, spreadsheet_safe(row["key"]), row["n"], row["mean"], row["p90"]])
    grid = hot["reportHour"]
    for h in grid["hours"]:
        for w, day in enumerate(grid["weekdays"]):
            if grid["n"][h][w]:
                key = f"{day} {h:02d}:00"
                rows.append(
                    [
                        "Report hour (local)",
                        key,
                        grid["n"][h][w],
                        grid["mean"][h][w],
                        grid["p90"][h][w],
                    ]
                )
    return rows


def _summary_sheet(
    book: Any,
    summary: dict[str, Any],
    formats: dict[str, Any],
    *,
    model_version: str,
    preset: str,
) -> None:
    """The "Summary" sheet: one label and value a row (shares as percentages)."""
    sheet = book.add_worksheet("Summary")
    sheet.set_column(0, 0, 44)
    sheet.set_column(1, 1, 28)
    for r, (label, value) in enumerate(_summary_rows(summary, model_version, preset)):
        sheet.write_string(r, 0, label, formats["header"] if r < 2 else None)
        if isinstance(value, str):
            sheet.write_string(r, 1, value)
        else:
            fmt = "pct" if "Share" in label else ("int" if isinstance(value, int) else "3dp")
            sheet.write_number(r, 1, value, formats[fmt])


def roster_xlsx(
    t: DutyTable,
    summary: dict[str, Any],
    schedules: dict[str, list[Any]],
    *,
    model_version: str,
    preset: str,
    airport_style: str = "iata",
) -> bytes:
    """The workbook as bytes."""
    out = io.BytesIO()
    book = xlsxwriter.Workbook(
        out,
        {
            "constant_memory": True,
            "strings_to_formulas": False,
            "strings_to_numbers": False,
            "strings_to_urls": False,
        },
    )
    formats: dict[str, Any] = {k: book.add_format({"num_format": v}) for k, v in _FORMATS.items()}
    formats["header"] = book.add_format({"bold": True, "bottom": 1, "text_wrap": True})
    _summary_sheet(book, summary, formats, model_version=model_version, preset=preset)
    _sheet(
        book,
        "Duties",
        duty_header(t.scale),
        _DUTY_KINDS,
        duty_columns(t, airport_style, serial_times=True),
        formats,
    )
    _sheet(book, "Schedules", SCHEDULE_HEADER, _SCHED_KINDS, schedule_columns(schedules), formats)
    _sheet(
        book,
        "Hot spots",
        ["Group", "Key", "Duties", "Mean risk", "90th percentile risk"],
        ["text", "text", "int", "3dp", "3dp"],
        [list(col) for col in zip(*_hot_rows(summary), strict=True)] or [[]] * 5,
        formats,
        widths=[20, 18, 8, 10, 12],
    )
    book.close()
    return out.getvalue()
