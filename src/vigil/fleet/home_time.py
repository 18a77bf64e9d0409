"""The home base's UTC offset across a schedule, for a chart's home-base time axis.

A month-long schedule can cross a daylight-saving change (Europe: last Sunday of March
and of October), so one offset per schedule puts every instant after the change an hour
off. :func:`home_offsets` lists the zone's offset from each change on, to the second,
from the IANA database (:mod:`vigil.tz`); the chart shows every instant with its own.
"""

from __future__ import annotations

from datetime import UTC, datetime

from vigil import tz

__all__ = ["home_offsets"]

#: sampling step [s]: zones change offset at most once in far longer than this
_STEP_S = 6 * 3600


def _offset_min(zone: str, epoch_s: int) -> int:
    return round(tz.utc_offset_hours(zone, datetime.fromtimestamp(epoch_s, UTC)) * 60)


def home_offsets(zone: str, start_s: int, end_s: int) -> list[list[int]]:
    """``[[from_ms, offset_min], …]``: ``zone``'s UTC offset from each instant on, over
    ``[start_s, end_s]`` (epoch seconds); the first entry starts at ``start_s``.

    An unknown or empty zone gives UTC (``[[start_ms, 0]]``).
    """
    if not zone or not tz.is_valid_zone(zone):
        return [[start_s * 1000, 0]]
    out = [[start_s * 1000, _offset_min(zone, start_s)]]
    t = start_s
    while t < end_s:
        nxt = min(t + _STEP_S, end_s)
        after = _offset_min(zone, nxt)
        if after != out[-1][1]:
            lo, hi = t, nxt  # offset(lo) is the old one, offset(hi) the new: bisect
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if _offset_min(zone, mid) == out[-1][1]:
                    lo = mid
                else:
                    hi = mid
            out.append([hi * 1000, after])
        t = nxt
    return out
