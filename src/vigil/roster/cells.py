"""RosterData CSV → a table of cell texts: 34 columns in the seed's order, one entry per row.

The first stage of the one RosterData reader (:mod:`vigil.roster.columnar`), contract
§3.1: blank lines are skipped but counted, a first row of column names is a header (it
says which column is which), and a row without one has the 9 required columns or all 34.
A row that cannot be split (quoting) or has another width is an error here and never
reaches the table.

Two splitters fill the same :class:`CellTable`, so what follows is written once:

- **Python lists** for small rosters: a one-crew request has about 20 rows, and
  :func:`split_fields` on each is far cheaper than starting Polars queries (a fixed cost
  of about 20 ms).
- **Polars** from :data:`POLARS_MIN_LINES` lines: a line of printable ASCII without
  spaces or quotes (nearly all) is split by ``str.split_exact``; any other line, and any
  line of an unexpected width, by :func:`split_fields` and :func:`_to_cells` as above.

A column is a ``list[str]`` or a :class:`polars.Series`; :func:`codes`, :func:`gather`
and :func:`in_order` are the only operations the later stages apply to one.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TypeVar

import numpy as np
import numpy.typing as npt
import polars as pl

from vigil.roster._text import CsvSyntaxError, lines, split_fields
from vigil.roster.arrays import IntArray
from vigil.roster.columns import BY_LOWER_NAME, FULL_WIDTH, REQUIRED, SHORT_WIDTH
from vigil.roster.errors import RowError, make_error

__all__ = [
    "POLARS_MIN_LINES",
    "CellTable",
    "Texts",
    "blanks",
    "codes",
    "gather",
    "in_order",
    "read_cells",
]

#: Rosters with at least this many lines are split by Polars: below it Polars' fixed cost
#: (about 20 ms of queries) exceeds what splitting each line in Python costs.
POLARS_MIN_LINES = 1000

#: One column of cell texts, in row order.
Texts = list[str] | pl.Series
_N = TypeVar("_N", int, float)
_SIMPLE_LINE = r"^[\x21\x23-\x7e]+$"  # printable ASCII, no space, no quote: nothing to trim
_REQUIRED_POSITIONS = [c.number - 1 for c in REQUIRED]
_IDENTITY = list(range(FULL_WIDTH))
#: First rows up to this long go through the header cache (all 34 names: about 500)
_HEADER_CACHE_CHARS = 1024


@dataclass
class CellTable:
    """The data rows of RosterData as cell texts, and the errors met splitting them.

    ``cells[p]`` is column ``p`` (0-based, seed order; blank where the row does not give
    it), ``row[i]`` the physical line of row ``i``. ``rows`` counts every data row read,
    those with a quoting or column-count error too. ``usable`` is false after a header
    error: without a header no row can be read.
    """

    row: IntArray
    cells: list[Texts]
    rows: int = 0
    errors: list[RowError] = field(default_factory=list)
    usable: bool = True

    @property
    def height(self) -> int:
        return int(self.row.shape[0])


def read_cells(text: str, *, polars: bool | None = None) -> CellTable:
    """Split RosterData into cells; see the module docstring.

    ``polars`` forces a splitter (``None``: Polars from :data:`POLARS_MIN_LINES` lines).
    Text Polars cannot hold (lone surrogates, not UTF-8) is split in Python.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if polars is None:
        polars = text.count("\n") >= POLARS_MIN_LINES
    if polars:
        try:
            series = pl.Series("line", text.split("\n"), dtype=pl.String)
        except UnicodeEncodeError:  # lone surrogates: Polars holds UTF-8 only
            pass
        else:
            return _polars_cells(series.str.strip_suffix("\r"))
    return _python_cells(text)


def _python_cells(text: str) -> CellTable:
    table = CellTable(np.zeros(0, dtype=np.int64), [])
    mapping: list[int] | None = None
    numbers: list[int] = []
    rows: list[list[str]] = []
    first = True
    for number, line in lines(text):
        fields = _split(number, line, table.errors)
        if first:
            first = False
            if fields is not None and _is_header(line, fields):
                mapping = _header(number, fields, table)
                if mapping is None:
                    return table
                continue
        table.rows += 1
        cells = None if fields is None else _to_cells(number, fields, mapping, table.errors)
        if cells is not None:
            rows.append(cells)
            numbers.append(number)
    table.row = np.array(numbers, dtype=np.int64)
    table.cells = [list(c) for c in zip(*rows, strict=True)] if rows else _blank_columns(0)
    return table


def _split(number: int, line: str, errors: list[RowError]) -> list[str] | None:
    """The fields of one line, or ``None`` after a quoting error."""
    try:
        return split_fields(line)
    except CsvSyntaxError as exc:
        errors.append(make_error("bad-quoting", number, detail=str(exc)))
        return None


def _blank_columns(height: int) -> list[Texts]:
    return [[""] * height for _ in range(FULL_WIDTH)]


def _is_header(line: str, fields: list[str]) -> bool:
    if len(line) <= _HEADER_CACHE_CHARS and _clean_header(tuple(fields)) is not None:
        return True
    return looks_like_header(fields)


def _header(number: int, fields: list[str], table: CellTable) -> list[int] | None:
    """A header row → cell position per field, or ``None`` after header errors."""
    known = _clean_header(tuple(fields)) if len(fields) <= FULL_WIDTH else None
    if known is not None:
        return list(known)
    mapping, errors = header_mapping(number, fields)
    table.errors.extend(errors)
    if errors:
        table.usable = False
        return None
    return mapping


def _to_cells(
    number: int, fields: list[str], mapping: list[int] | None, errors: list[RowError]
) -> list[str] | None:
    """Fields → 34 cells in the seed's order, or ``None`` after a column-count error."""
    width = len(fields)
    if mapping is not None:
        if width != len(mapping):
            ref_pos = mapping.index(0)
            reference = fields[ref_pos] if ref_pos < width else ""
            errors.append(
                make_error(
                    "header-column-count", number, reference, count=width, expected=len(mapping)
                )
            )
            return None
        positions = mapping
    elif width == FULL_WIDTH:
        return fields
    elif width == SHORT_WIDTH:
        positions = _REQUIRED_POSITIONS
    else:
        errors.append(
            make_error(
                "column-count", number, fields[0], count=width, short=SHORT_WIDTH, full=FULL_WIDTH
            )
        )
        return None
    if positions == _IDENTITY:
        return fields
    cells = [""] * FULL_WIDTH
    for value, position in zip(fields, positions, strict=True):
        cells[position] = value
    return cells


def _polars_cells(lines_: pl.Series) -> CellTable:
    table = CellTable(np.zeros(0, dtype=np.int64), _blank_columns(0))
    first = next((i for i, line in enumerate(lines_) if line and not line.isspace()), None)
    mapping: list[int] | None = None
    skip = -1
    if first is not None:
        try:
            fields: list[str] | None = split_fields(lines_[first])
        except CsvSyntaxError:
            fields = None
        if fields is not None and _is_header(lines_[first], fields):
            skip = first
            mapping = _header(first + 1, fields, table)
            if mapping is None:
                return table
    frame = pl.DataFrame({"line": lines_}).with_row_index("row", offset=1)
    if skip >= 0:
        frame = frame.filter(pl.col("row") != skip + 1)
    widths = {len(mapping): mapping} if mapping else {FULL_WIDTH: None, SHORT_WIDTH: None}
    simple = pl.col("line").str.contains(_SIMPLE_LINE)
    width = pl.col("line").str.count_matches(",", literal=True) + 1
    # the width of a simple line of an expected width, else 0 (split in Python)
    frame = frame.with_columns(
        width=pl.when(simple & width.is_in(list(widths))).then(width).otherwise(0)
    )
    parts = [_split_exact(frame, n, positions) for n, positions in widths.items()]
    others = frame.filter(pl.col("width") == 0)
    table.rows = frame.height - others.height
    odd = _odd_rows(others, mapping, table)
    if odd is not None:
        parts.append(odd)
    names = ["row", *(f"c{p}" for p in range(FULL_WIDTH))]
    full = [
        p.with_columns(*(pl.lit("").alias(n) for n in names if n not in p.columns)).select(names)
        for p in parts
    ]
    cells = pl.concat(full).sort("row")
    table.row = np.asarray(cells["row"].to_numpy(), dtype=np.int64)
    table.cells = [cells[f"c{p}"] for p in range(FULL_WIDTH)]
    return table


def _split_exact(frame: pl.DataFrame, n: int, positions: list[int] | None) -> pl.DataFrame:
    """The simple lines of width ``n``, split by Polars into the columns they give."""
    if positions is None:
        positions = _IDENTITY if n == FULL_WIDTH else _REQUIRED_POSITIONS
    chunk = frame.filter(pl.col("width") == n)
    split = chunk["line"].str.split_exact(",", n - 1).struct.unnest()
    split.columns = [f"c{p}" for p in positions]
    return pl.concat([chunk.select("row"), split], how="horizontal")


def _odd_rows(
    others: pl.DataFrame, mapping: list[int] | None, table: CellTable
) -> pl.DataFrame | None:
    """The lines Polars does not split (quotes, spaces, other widths), split in Python."""
    rows: list[list[str]] = []
    numbers: list[int] = []
    for number, line in others.select("row", "line").iter_rows():
        if not line or line.isspace():
            continue
        table.rows += 1
        fields = _split(number, line, table.errors)
        cells = None if fields is None else _to_cells(number, fields, mapping, table.errors)
        if cells is not None:
            rows.append(cells)
            numbers.append(number)
    if not rows:
        return None
    return pl.DataFrame(
        {f"c{p}": [r[p] for r in rows] for p in range(FULL_WIDTH)}
        | {"row": pl.Series(numbers, dtype=pl.UInt32)}
    )


# ------------------------------------------------------------------------------- header


def header_mapping(row: int, fields: Sequence[str]) -> tuple[list[int], list[RowError]]:
    """A header row → cell position per field, and the header's errors."""
    errors: list[RowError] = []
    seen: set[int] = set()
    mapping: list[int] = []
    for name in fields:
        column = BY_LOWER_NAME.get(name.lower())
        if column is None:
            errors.append(make_error("unknown-column", row, name=name))
            continue
        if column.number in seen:
            errors.append(make_error("duplicate-column", row, name=column.name))
        seen.add(column.number)
        mapping.append(column.number - 1)
    for column in REQUIRED:
        if column.number not in seen:
            errors.append(make_error("missing-column", row, name=column.name))
    return mapping, errors


@lru_cache(maxsize=256)
def _clean_header(fields: tuple[str, ...]) -> tuple[int, ...] | None:
    """Cell position per field of a first row that is a header without errors, else
    ``None``. Cached (a pure function of the names): clients send the same header."""
    if not looks_like_header(list(fields)):
        return None
    mapping, errors = header_mapping(0, fields)
    return None if errors else tuple(mapping)


def looks_like_header(fields: list[str]) -> bool:
    """Whether a first row is a header (contract §3.1, and ours).

    Contract: every field a column name (any case), or ``Reference`` among them.
    Ours: also two or more column names, so a header with a mistyped ``Reference``
    is reported as a header with an unknown column rather than as a bad data row.
    """
    lowered = [f.lower() for f in fields]
    known = sum(name in BY_LOWER_NAME for name in lowered)
    return known == len(lowered) or "reference" in lowered or known >= 2


# ------------------------------------------------------------------- column operations


def codes(column: Texts, decode: Callable[[str], _N], dtype: type[_N] = int) -> np.ndarray:
    """``decode`` of every text of the column. A Polars column is decoded through its
    unique texts, mapped back (a month has ~30 dates, ≤ 1,440 times, a few hundred
    airports), and so is a list."""
    if isinstance(column, pl.Series):
        uniques = column.unique()
        values = pl.Series([decode(t) for t in uniques.to_list()])
        polars_type = pl.Int64 if dtype is int else pl.Float64
        out = column.replace_strict(uniques, values, return_dtype=polars_type).to_numpy()
        return np.asarray(out, dtype=np.int64 if dtype is int else np.float64)
    numbers = np.int64 if dtype is int else np.float64
    if column and column.count(column[0]) == len(column):  # one text (often blank)
        return np.full(len(column), decode(column[0]), dtype=numbers)
    table = {text: decode(text) for text in set(column)}
    return np.fromiter(map(table.__getitem__, column), dtype=numbers, count=len(column))


def blanks(column: Texts) -> npt.NDArray[np.bool_]:
    """Whether each cell is blank."""
    if isinstance(column, pl.Series):
        return np.asarray((column == "").to_numpy(), dtype=np.bool_)
    return np.fromiter(map(operator.not_, column), dtype=np.bool_, count=len(column))


def gather(column: Texts, index: IntArray) -> list[str]:
    """The texts at ``index``, in that order."""
    if isinstance(column, pl.Series):
        return list(column.gather(index).to_list())
    return [column[i] for i in index.tolist()]


def in_order(column: Texts) -> list[str]:
    """The column's distinct texts in order of first appearance."""
    if isinstance(column, pl.Series):
        return list(column.unique(maintain_order=True).to_list())
    return list(dict.fromkeys(column))
