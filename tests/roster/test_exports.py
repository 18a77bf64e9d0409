"""The public surface of vigil.roster is pinned (STYLE §3.11, httpx pattern)."""

from __future__ import annotations

import vigil.roster


def test_roster_all_is_pinned() -> None:
    assert vigil.roster.__all__ == [
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
    for name in vigil.roster.__all__:
        assert hasattr(vigil.roster, name)
