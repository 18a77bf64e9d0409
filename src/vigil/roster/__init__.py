"""Roster ingestion: RosterData, SleepData and ActivityData in, validated UTC duties out.

Contract §3.1, §3.2, §5.1 and §8. The entry point is :func:`parse_request`; bad data
never raises, it ends as :class:`RowError` values formatted by :func:`format_error`.

Layer 3 of docs/architecture.md. May import: ``domain``, ``gc_pause``, ``tz``; never a
package of its own layer or above.
"""

from vigil.roster.errors import TEMPLATES, RowError, Source, format_error
from vigil.roster.parse import (
    ParsedRoster,
    as_date_format,
    parse_request,
    parse_roster,
    read_roster,
)
from vigil.roster.sleep_records import (
    SLEEP_FIELDS,
    SleepDataShapeError,
    check_sleep_data_shape,
)

__all__ = [
    "SLEEP_FIELDS",
    "TEMPLATES",
    "ParsedRoster",
    "RowError",
    "SleepDataShapeError",
    "Source",
    "as_date_format",
    "check_sleep_data_shape",
    "format_error",
    "parse_request",
    "parse_roster",
    "read_roster",
]
