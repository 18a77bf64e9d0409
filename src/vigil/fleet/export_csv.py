"""CSV of per-duty results: one row per duty, UTF-8, header first.

Written column by column: each column of :func:`~vigil.fleet.records.duty_columns` becomes
its cells' text at once (numbers as Python writes them, text quoted only where it must be,
as the ``csv`` module's minimal quoting does), and rows are joined from those. The bytes
are the ``csv`` module's over :func:`~vigil.fleet.records.duty_records` (tested), written
without a Python call per cell: each distinct value of a column is formatted once.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from typing import Any

import numpy.typing as npt

from vigil.fleet.records import duty_columns, duty_header
from vigil.fleet.table import DutyTable

__all__ = ["duty_csv"]

#: rows written per yielded piece
_ROWS_PER_PIECE = 5000
_SPECIAL = frozenset(',"\r\n')


def _quoted(value: str) -> str:
    """A text cell as ``csv.QUOTE_MINIMAL`` writes it."""
    if _SPECIAL.isdisjoint(value):
        return value
    return '"' + value.replace('"', '""') + '"'


def _cells(column: npt.NDArray[Any] | list[Any]) -> list[str]:
    """The column's cells as CSV text (``""`` for a missing value or a non-finite float)."""
    values = column if isinstance(column, list) else column.tolist()
    kind = "" if isinstance(column, list) else column.dtype.kind
    # each distinct value is written once: rounded scores, hours and codes repeat a lot
    if kind == "f":
        text = {v: repr(v) if math.isfinite(v) else "" for v in set(values)}
    elif kind and kind in "iub":
        text = {v: str(v) for v in set(values)}
    else:
        text = {v: "" if v is None else _quoted(str(v)) for v in set(values)}
    return list(map(text.__getitem__, values))


def duty_csv(t: DutyTable, airport_style: str = "iata") -> Iterator[bytes]:
    """The per-duty CSV as UTF-8 pieces (streamable); text cells formula-safe."""
    head = io.StringIO()
    csv.writer(head, lineterminator="\r\n").writerow(duty_header(t.scale))
    yield head.getvalue().encode()
    columns = [_cells(c) for c in duty_columns(t, airport_style)]
    rows = len(t)
    for at in range(0, rows, _ROWS_PER_PIECE):
        part = zip(*(c[at : at + _ROWS_PER_PIECE] for c in columns), strict=True)
        yield ("\r\n".join(map(",".join, part)) + "\r\n").encode()
