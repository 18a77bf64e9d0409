"""The home base's UTC offset across a daylight-saving change (chart axis)."""

from __future__ import annotations

from datetime import UTC, datetime

from vigil.fleet.home_time import home_offsets


def _s(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def test_london_springs_forward_at_one_utc_on_the_last_sunday_of_march() -> None:
    offsets = home_offsets("Europe/London", _s("2026-03-20T00:00"), _s("2026-04-05T00:00"))
    assert offsets == [[_s("2026-03-20T00:00") * 1000, 0], [_s("2026-03-29T01:00") * 1000, 60]]


def test_new_york_both_changes_and_no_change_in_tokyo() -> None:
    offsets = home_offsets("America/New_York", _s("2026-03-01T00:00"), _s("2026-11-30T00:00"))
    # second Sunday of March 02:00 EST = 07:00 UTC; first Sunday of November 02:00 EDT
    assert offsets[1:] == [
        [_s("2026-03-08T07:00") * 1000, -240],
        [_s("2026-11-01T06:00") * 1000, -300],
    ]
    assert offsets[0][1] == -300
    assert home_offsets("Asia/Tokyo", 0, 40 * 86400) == [[0, 540]]
    assert home_offsets("", 5, 10) == [[5000, 0]]
