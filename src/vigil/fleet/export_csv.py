"""CSV of per-duty results: one row per duty, UTF-8, header first."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from vigil.fleet.records import duty_header, duty_records
from vigil.fleet.table import DutyTable

__all__ = ["duty_csv"]

#: rows written per yielded piece
_ROWS_PER_PIECE = 2000


def duty_csv(t: DutyTable, airport_style: str = "iata") -> Iterator[bytes]:
    """The per-duty CSV as UTF-8 pieces (streamable); text cells formula-safe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(duty_header(t.scale))
    for i, row in enumerate(duty_records(t, airport_style), start=1):
        writer.writerow(["" if v is None else v for v in row])
        if i % _ROWS_PER_PIECE == 0:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode()
