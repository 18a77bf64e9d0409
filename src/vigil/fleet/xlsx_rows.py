"""A worksheet's data rows as SpreadsheetML built in bulk (XLSX ≤ 10 s).

XlsxWriter spends ~5 µs of Python per cell (argument checks, a cell tuple, attribute
escaping, one ``write`` per cell), so the 2.6 million cells of a 10,000-crew month took
13 s of CPU. Here each column becomes its ``<c>`` elements at once with Polars string
expressions (Rust), text escaped once per distinct value, and whole blocks of ``<row>``
elements are appended to the sheet's row file in XlsxWriter's constant-memory mode. The
XML is the one XlsxWriter writes itself (ECMA-376 Part 1 §18.3.1.73 ``row``, §18.3.1.4
``c``): inline strings, numbers with the column's cell format (``s``), no cell for an
missing value (``None``, NaN).

XlsxWriter keeps the header, formats, column widths, panes, autofilter and the package;
:func:`bulk_target` checks that its row file is the one this writes to, and the caller
falls back to XlsxWriter's own cell writes when it is not (another XlsxWriter release).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

__all__ = ["BULK_ROWS", "bulk_target", "column_letters", "rows_xml", "text_xml"]

#: rows turned into XML per block (a few MiB of text at a time)
BULK_ROWS = 20_000
#: longest cell text Excel keeps [UTF-16 units]
_MAX_TEXT = 32_767
_ESCAPED_ESCAPE = re.compile("(_x[0-9a-fA-F]{4}_)")
_CONTROL = re.compile(r"([\x00-\x08\x0b-\x1f])")
_EDGE_SPACE = re.compile(r"^\s|\s$")


def bulk_target(sheet: Any) -> Any | None:
    """The constant-memory row file rows can be appended to, or ``None``."""
    fh = getattr(sheet, "row_data_fh", None)
    if getattr(sheet, "constant_memory", False) and fh is not None and sheet.fh is fh:
        return fh
    return None


def column_letters(index: int) -> str:
    """``A``, ``B``, …, ``Z``, ``AA``, … of a zero-based column index."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def text_xml(value: str) -> str:
    """The ``<t>`` element of an inline string as XlsxWriter writes it.

    ``&<>`` escaped, control characters as ``_xHHHH_`` (a literal ``_xHHHH_`` gets its
    underscore escaped), ``xml:space="preserve"`` when it starts or ends with space.
    """
    if len(value) > _MAX_TEXT // 2 and len(value.encode("utf-16-le")) // 2 > _MAX_TEXT:
        value = value.encode("utf-16-le")[: 2 * _MAX_TEXT].decode("utf-16-le", "ignore")
    preserve = ' xml:space="preserve"' if _EDGE_SPACE.search(value) else ""
    data = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    data = _ESCAPED_ESCAPE.sub(r"_x005F\1", data)
    data = _CONTROL.sub(lambda m: f"_x{ord(m.group(1)):04X}_", data)
    data = data.replace("\ufffe", "_xFFFE_").replace("\uffff", "_xFFFF_")
    return f"<t{preserve}>{data}</t>"


def _series(name: str, values: Sequence[Any] | np.ndarray[Any, Any], text: bool) -> pl.Series:
    """A column as a Polars series: escaped ``<t>`` elements, or finite numbers (else null)."""
    if text:
        raw = pl.Series(name, values, dtype=pl.String)
        distinct = [v for v in raw.unique().to_list() if v is not None]
        return raw.replace_strict(
            distinct, [text_xml(v) for v in distinct], default=None, return_dtype=pl.String
        )
    numbers = pl.Series(name, values, strict=False, nan_to_null=True)
    if numbers.dtype.is_float():
        numbers = numbers.to_frame().select(pl.when(pl.col(name).is_finite()).then(pl.col(name)))[
            name
        ]
    return numbers


def rows_xml(
    columns: Sequence[Sequence[Any] | np.ndarray[Any, Any]],
    text: Sequence[bool],
    styles: Sequence[int | None],
    first_row: int,
) -> str:
    """``<row>`` elements of ``columns`` (equal lengths), the first at zero-based ``first_row``.

    ``text[c]`` says column ``c`` holds strings (inline strings), else numbers written
    with cell format index ``styles[c]`` (XlsxWriter's ``Format._get_xf_index()``).
    """
    frame = pl.DataFrame([_series(f"c{i}", col, text[i]) for i, col in enumerate(columns)])
    n = frame.height
    row = pl.int_range(first_row + 1, first_row + 1 + n, eager=False).cast(pl.String)
    parts: list[pl.Expr] = [pl.lit('<row r="'), row, pl.lit('">')]
    for i, is_text in enumerate(text):
        value = pl.col(f"c{i}")
        ref = pl.lit(f'<c r="{column_letters(i)}')
        if is_text:
            cell = pl.concat_str([ref, row, pl.lit('" t="inlineStr"><is>'), value])
            cell = pl.concat_str([cell, pl.lit("</is></c>")])
        else:
            style = "" if styles[i] is None else f' s="{styles[i]}"'
            head = pl.lit(f'"{style}><v>')
            cell = pl.concat_str([ref, row, head, value.cast(pl.String), pl.lit("</v></c>")])
        parts.append(cell.fill_null(""))
    parts.append(pl.lit("</row>"))
    out = frame.select(pl.concat_str(parts).str.join("").alias("xml"))
    xml: str = out["xml"].item() or ""
    return xml
