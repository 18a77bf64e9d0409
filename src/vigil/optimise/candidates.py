"""Candidates as rows: the roster's 34 columns plus ``Candidate`` (CLI and HTTP input).

Each row is one duty of a candidate chain: ``Reference`` names the base crew member whose
chain it changes, ``Candidate`` the candidate it belongs to (any text; rows of one
candidate share it and its Reference). A candidate replaces its crew member's base duties
overlapping the span of its own rows, from the first report to the last off duty.

The rows are read by the roster reader itself (contract §3.1) with each candidate as a
schedule, so every row error has the reader's text, in the contract's
``row|schedule|message`` form (§4), the schedule being the candidate.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vigil.optimise import _scoring as sc
from vigil.optimise.chains import Pool
from vigil.optimise.engine import Candidates, Engine, end_weights

__all__ = ["CANDIDATE_COLUMN", "ParsedCandidates", "parse_candidates", "rows_to_csv"]

CANDIDATE_COLUMN = "Candidate"


@dataclass(frozen=True, slots=True)
class ParsedCandidates:
    """Candidates read from rows: the valid ones (``ids`` in first-appearance order) and
    the row errors (``row|candidate|message``)."""

    ids: tuple[str, ...]
    candidates: Candidates | None
    pool: Pool | None
    errors: tuple[str, ...]


def _lines(text: str) -> list[str]:
    return text.splitlines()


def parse_candidates(engine: Engine, text: str, date_format: str = "dmy") -> ParsedCandidates:
    """Read candidate rows (module docstring) against ``engine``'s base roster."""
    lines = _lines(text.lstrip("\ufeff"))
    columns = _columns(lines)
    if isinstance(columns, str):
        return ParsedCandidates((), None, None, (columns,))
    header, cand_col, ref_col = columns
    errors: list[str] = []
    crew_of: dict[str, str] = {}
    out_lines = [",".join(_quote(h) for j, h in enumerate(header) if j != cand_col)]
    for row_no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            out_lines.append("")
            continue
        cells = next(csv.reader([line]))
        error = _row_error(engine, cells, len(header), cand_col, ref_col, crew_of)
        if error is not None:
            errors.append(f"{row_no}|{error}")
            out_lines.append("")
            continue
        cells[ref_col] = cells[cand_col].strip()
        out_lines.append(",".join(_quote(c) for j, c in enumerate(cells) if j != cand_col))
    parsed = sc.parse_request(
        "\r\n".join(out_lines) + "\r\n",
        date_format,
        airports=engine.airports,
        blank_defaults=engine.blank_defaults,
    )
    errors.extend(sc.format_error(e) for e in parsed.errors)
    if not parsed.columns.references:
        return ParsedCandidates((), None, None, tuple(_by_row(errors)))
    return _candidates_of(engine, parsed, crew_of, errors)


def _columns(lines: list[str]) -> tuple[list[str], int, int] | str:
    """The header's cells and the Candidate and Reference columns' indices, or the
    header's row error."""
    if not lines or not lines[0].strip():
        return "1||the candidates have no header row"
    header = next(csv.reader([lines[0]]))
    lowered = [h.strip().lower() for h in header]
    if CANDIDATE_COLUMN.lower() not in lowered:
        return f"1||no {CANDIDATE_COLUMN} column in the header"
    if "reference" not in lowered:
        return "1||no Reference column in the header"
    return header, lowered.index(CANDIDATE_COLUMN.lower()), lowered.index("reference")


def _row_error(
    engine: Engine,
    cells: list[str],
    n_columns: int,
    cand_col: int,
    ref_col: int,
    crew_of: dict[str, str],
) -> str | None:
    """A row's error as ``candidate|message`` (``crew_of`` records each candidate's
    Reference at its first row), or None for a valid row."""
    if len(cells) != n_columns:
        return f"|expected {n_columns} columns, got {len(cells)}"
    cand = cells[cand_col].strip()
    ref = cells[ref_col].strip()
    if not cand or "|" in cand:
        return f"{ref}|{CANDIDATE_COLUMN} must be non-blank text without '|'"
    known = crew_of.setdefault(cand, ref)
    if known != ref:
        return f"{cand}|a candidate's rows must share one Reference ({known!r})"
    if ref not in engine.references:
        return f"{cand}|Reference {ref!r} is not a schedule of the base roster"
    return None


def _candidates_of(
    engine: Engine, parsed: sc.ParsedRoster, crew_of: dict[str, str], errors: list[str]
) -> ParsedCandidates:
    """The candidates of the read rows (each a schedule of ``parsed``): their pool, and
    each one's window from its first report to its last off duty."""
    plan = sc.plan_parsed(parsed, engine.params)
    pool = engine.pool(plan, end_weights(parsed, engine.costs))
    ids = plan.references
    offsets = plan.offsets
    crew = np.array([engine.crew_index(crew_of[c]) for c in ids], dtype=np.int64)
    starts = np.minimum.reduceat(plan.on, offsets[:-1])
    ends = np.maximum.reduceat(plan.off, offsets[:-1])
    cands = Candidates(crew, starts, ends, offsets.astype(np.int64), np.arange(plan.on.size))
    return ParsedCandidates(tuple(ids), cands, pool, tuple(_by_row(errors)))


def _by_row(errors: list[str]) -> list[str]:
    """Errors in row order (the reader's own order within a row)."""
    return sorted(errors, key=lambda e: int(e.split("|", 1)[0]))


def _quote(cell: str) -> str:
    if any(ch in cell for ch in ',"\r\n'):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def rows_to_csv(columns: Mapping[str, Sequence[object]]) -> str:
    """Columnar rows (column name -> equal-length arrays) as CSV text with a header.

    Raises
    ------
    ValueError
        Arrays of different lengths, or a cell that is not text, a number or null.
    """
    names = list(columns)
    if not names:
        raise ValueError("candidates: no columns")
    lengths = {len(columns[n]) for n in names}
    if len(lengths) != 1:
        raise ValueError("candidates: every column must have the same number of rows")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(names)
    for row in zip(*(columns[n] for n in names), strict=True):
        cells = []
        for name, value in zip(names, row, strict=True):
            if value is None:
                cells.append("")
            elif isinstance(value, bool) or not isinstance(value, str | int | float):
                raise ValueError(f"candidates.{name}: cells must be text, numbers or null")
            else:
                cells.append(str(value))
        writer.writerow(cells)
    return buf.getvalue()
