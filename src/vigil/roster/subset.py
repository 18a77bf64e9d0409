"""Some schedules of RosterData or ActivityData: their rows only, at their own line numbers.

A report about a few crew members (the calibration report's rated crews) need not read and
score a whole airline roster. Each schedule is read and scored from its own rows alone (its
duties, predicted sleep and scores depend on nothing else), so the text with only the rows
of the wanted References, every other line left blank, reads those schedules exactly as the
whole roster does, and their errors carry the same row numbers: blank rows are skipped but
counted (contract §3.1; :func:`vigil.roster._text.lines`).
"""

from __future__ import annotations

import csv
from collections.abc import Collection

__all__ = ["only_schedules"]


def _cells(line: str, upto: int = -1) -> list[str]:
    """The line's cells (the first ``upto + 1`` of them split off when no cell is quoted)."""
    if '"' not in line:
        return line.split(",", upto + 1) if upto >= 0 else line.split(",")
    return next(csv.reader([line]), [])


def only_schedules(text: str, references: Collection[str]) -> str:
    """``text`` (RosterData or ActivityData) with its header and the rows of ``references``,
    every other line blank. A row belongs to a Reference by its Reference cell: the
    header's ``Reference`` column, else the first (both files' layout)."""
    wanted = {r.strip() for r in references}
    lines = text.split("\n")
    head = next((i for i, line in enumerate(lines) if line.strip()), None)
    if head is None:
        return text
    names = [c.strip().lstrip("\ufeff").lower() for c in _cells(lines[head].rstrip("\r"))]
    has_header = "reference" in names
    column = names.index("reference") if has_header else 0
    out: list[str] = []
    for i, line in enumerate(lines):
        if has_header and i == head:
            out.append(line)
            continue
        cells = _cells(line.rstrip("\r"), column) if line else []
        cell = cells[column].strip().lstrip("\ufeff") if len(cells) > column else ""
        out.append(line if cell and cell in wanted else "")
    return "\n".join(out)
