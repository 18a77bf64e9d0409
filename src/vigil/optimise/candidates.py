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
    if not lines or not lines[0].strip():
        return ParsedCandidates((), None, None, ("1||the candidates have no header row",))
    header = next(csv.reader([lines[0]]))
    names = [h.strip() for h in header]
    lowered = [h.lower() for h in names]
    if CANDIDATE_COLUMN.lower() not in lowered:
        return ParsedCandidates((), None, None, (f"1||no {CANDIDATE_COLUMN} column in the header",))
    if "reference" not in lowered:
        return ParsedCandidates((), None, None, ("1||no Reference column in the header",))
    cand_col = lowered.index(CANDIDATE_COLUMN.lower())
    ref_col = lowered.index("reference")
    errors: list[str] = []
    crew_of: dict[str, str] = {}
    out_lines = [",".join(_quote(h) for j, h in enumerate(header) if j != cand_col)]
    for row_no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            out_lines.append("")
            continue
        cells = next(csv.reader([line]))
        if len(cells) != len(header):
            errors.append(f"{row_no}||expected {len(header)} columns, got {len(cells)}")
            out_lines.append("")
            continue
        cand = cells[cand_col].strip()
        ref = cells[ref_col].strip()
        if not cand or "|" in cand:
            errors.append(f"{row_no}|{ref}|{CANDIDATE_COLUMN} must be non-blank text without '|'")
            out_lines.append("")
            continue
        known = crew_of.setdefault(cand, ref)
        if known != ref:
            errors.append(
                f"{row_no}|{cand}|a candidate's rows must share one Reference ({known!r})"
            )
            out_lines.append("")
            continue
        if ref not in engine.references:
            errors.append(f"{row_no}|{cand}|Reference {ref!r} is not a schedule of the base roster")
            out_lines.append("")
            continue
        cells[ref_col] = cand
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
