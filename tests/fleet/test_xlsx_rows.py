"""Bulk-written XLSX rows read back exactly like XlsxWriter's own cell writes."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pytest
import xlsxwriter
from openpyxl import load_workbook

from vigil.fleet.export_xlsx import _FORMATS, _sheet
from vigil.fleet.xlsx_rows import BULK_ROWS, column_letters, text_xml

TEXTS = ["P1", "", "a & b <c>", " lead", "trail ", "bell\x07", "_x0041_", "'=1+1", "Zürich"]


def _book(bulk: bool, columns: list[Any], kinds: list[str]) -> bytes:
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"constant_memory": True, "strings_to_formulas": False})
    formats = {k: book.add_format({"num_format": v}) for k, v in _FORMATS.items()}
    formats["header"] = book.add_format({"bold": True})
    header = [f"h{i}" for i in range(len(kinds))]
    assert _sheet(book, "S", header, kinds, columns, formats, bulk=bulk) == len(columns[0])
    book.close()
    return out.getvalue()


def _cells(body: bytes) -> list[list[tuple[Any, str]]]:
    sheet = load_workbook(io.BytesIO(body))["S"]
    return [[(c.value, c.number_format) for c in row] for row in sheet.iter_rows()]


@pytest.mark.parametrize("n", [1, 2, 9, BULK_ROWS + 3])
def test_bulk_rows_equal_xlsxwriter_cells(n: int) -> None:
    rng = np.random.default_rng(n)
    texts = np.asarray([TEXTS[i % len(TEXTS)] for i in range(n)], dtype=object)
    numbers = np.round(rng.uniform(0.0, 9.0, n), 3)
    numbers[::4] = np.nan
    numbers[1::7] = np.inf
    serials = np.round(46082.0 + np.arange(n) / 96.0, 8)
    ints = [i if i % 5 else None for i in range(n)]
    columns: list[Any] = [texts, numbers, serials, ints, list(texts[::-1])]
    kinds = ["text", "3dp", "time", "int", "text"]
    bulk, cells = _book(True, columns, kinds), _book(False, columns, kinds)
    read = _cells(bulk)
    assert read == _cells(cells)
    assert len(read) == n + 1 and read[0][0] == ("h0", "General")
    first = read[1]
    assert first[0] == ("P1", "General") and first[2][1] == "yyyy-mm-dd hh:mm"
    assert first[1][0] is None  # NaN: no cell
    if n > 5:
        # Excel's escapes, which openpyxl leaves as they are
        assert read[6][0][0] == "bell_x0007_" and read[7][0][0] == "_x005F_x0041_"
        assert read[2][0][0] == "" and read[3][0][0] == "a & b <c>"
        assert read[4][0][0] == " lead" and math.isclose(read[3][1][0], numbers[2])
    sheet = load_workbook(io.BytesIO(bulk))["S"]
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref == f"A1:E{n + 1}"


def test_text_is_escaped_as_xlsxwriter_does() -> None:
    assert text_xml("") == "<t></t>"
    assert text_xml("a&<>") == "<t>a&amp;&lt;&gt;</t>"
    assert text_xml(" x") == '<t xml:space="preserve"> x</t>'
    assert text_xml("\x01_x0001_") == "<t>_x0001__x005F_x0001_</t>"
    assert [column_letters(i) for i in (0, 25, 26, 701, 702)] == ["A", "Z", "AA", "ZZ", "AAA"]
