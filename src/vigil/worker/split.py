"""Split RosterData by schedule into parts that chunk tasks parse on their own.

The worker no longer parses an uploaded roster: it cuts the CSV text into parts of
``size`` schedules, and each chunk task (:func:`vigil.worker.tasks.run_task`, in a
process or on a Dask worker) parses, scores and encodes its part. So the serial work left
in the worker is this split and storing bytes.

A part is the roster's own text with every line of other schedules left blank: row
numbers (physical lines, contract §8), and so every error text, are those of the whole
roster, and the header, when there is one, is in every part. Each schedule's lines all go
to one part (grouped by the Reference, compared without case or surrounding blanks, a
grouping never finer than the parser's), parts take schedules in order of first
appearance, and lines without a readable Reference go to the first part. Scored in part
order, the schedules therefore come out in roster order, and each error is found exactly
once, except errors of the header line, which every part sees and only the first reports
(:attr:`RosterSplit.header_row`).

Anything unusual (no data line, a header without a ``Reference`` column, a first line the
parser does not read as a header or a row) gives ``None``: the roster is then parsed whole
in one task, as before.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

from vigil.domain import DateFormat
from vigil.roster import parse_request

__all__ = ["RosterSplit", "split_roster"]

#: the first field of every line (one match per line, blank lines included)
_FIRST_FIELD = re.compile(r"^([^,\n]*)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class RosterSplit:
    """Parts of a roster, each a RosterData text of its own, in schedule order."""

    parts: list[str]
    header_row: int  #: 1-based row of the header; 0 without one
    counts: list[int]  #: distinct References per part (crew)

    @property
    def schedules(self) -> int:
        """Distinct References found: the crew to score, at most."""
        return sum(self.counts)


def _blank(line: str) -> bool:
    return not line or line.isspace()


def _field(line: str, position: int) -> str | None:
    """Field ``position`` of a CSV line, trimmed and case-folded; ``None`` if unreadable."""
    if line.endswith("\r"):
        line = line[:-1]
    if '"' not in line:
        fields = line.split(",", position + 1)
    else:
        try:
            fields = next(csv.reader([line], strict=True))
        except (csv.Error, StopIteration):
            return None
    if len(fields) <= position:
        return None
    key = fields[position].strip().casefold()
    return key or None


def split_roster(text: str, date_format: DateFormat | str, size: int) -> RosterSplit | None:
    """Cut ``text`` into parts of ``size`` schedules (see the module docstring).

    Returns ``None`` when the roster should be parsed whole.
    """
    if size < 1:
        raise ValueError("size must be at least 1")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if not _blank(line)), None)
    if first is None:
        return None
    found = _reference_column(lines[first], date_format)
    if found is None:
        return None
    position, header = found[0], first if found[1] else -1
    owner, rows = _rows_by_part(_reference_keys(text, lines, position), lines, header, size)
    if not owner:
        return None
    parts = [_text(lines, sorted(r) if p == 0 else r, header) for p, r in enumerate(rows)]
    counts = [min(size, len(owner) - p * size) for p in range(len(parts))]
    return RosterSplit(parts, header + 1, counts)


def _reference_column(line: str, date_format: DateFormat | str) -> tuple[int, bool] | None:
    """The Reference's column and whether ``line`` (the first non-blank one) is a header;
    ``None`` when the roster must be parsed whole (a header with errors or without
    Reference, or a first line that is neither a header nor one row)."""
    probe = parse_request(line, date_format)
    if probe.rows == 1:
        return 0, False  # no header: the columns in contract order
    if probe.rows != 0 or probe.errors:
        return None  # header errors: nothing else can be read; parse whole
    names = [f.strip().casefold() for f in _header_fields(line)]
    if "reference" not in names:
        return None
    return names.index("reference"), True


def _reference_keys(text: str, lines: list[str], position: int) -> list[str]:
    """Each line's Reference, folded (``""`` for a blank line or an unreadable field)."""
    if position == 0:  # the common case: first fields found in C, quoted ones by csv
        return [
            _field(line, 0) or "" if field.lstrip().startswith('"') else field.strip().casefold()
            for field, line in zip(_FIRST_FIELD.findall(text), lines, strict=True)
        ]
    return [_field(line, position) or "" if not _blank(line) else "" for line in lines]


def _rows_by_part(
    keys: list[str], lines: list[str], header: int, size: int
) -> tuple[dict[str, int], list[list[int]]]:
    """Each Reference's part (``size`` References a part, in order of first appearance)
    and each part's line numbers; rows without a readable Reference go to part 0."""
    owner: dict[str, int] = {}
    rows: list[list[int]] = [[]]
    for i, key in enumerate(keys):
        if i == header:
            continue
        if not key:
            if not _blank(lines[i]):
                rows[0].append(i)
            continue
        part = owner.get(key)
        if part is None:
            part = owner[key] = len(owner) // size
            if part == len(rows):
                rows.append([])
        rows[part].append(i)
    return owner, rows


def _header_fields(line: str) -> list[str]:
    if line.endswith("\r"):
        line = line[:-1]
    try:
        return next(csv.reader([line], strict=True))
    except (csv.Error, StopIteration):
        return []


def _text(lines: list[str], rows: list[int], header: int) -> str:
    """The roster with only ``rows`` (and the header) kept, other lines left blank."""
    pieces: list[str] = []
    at = 0  # the line the text has reached
    for i in ([header] if header >= 0 else []) + rows:
        pieces.append("\n" * (i - at))
        pieces.append(lines[i])
        at = i
    return "".join(pieces)
