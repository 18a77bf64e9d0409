"""Airports and time zones: the only module that uses :mod:`zoneinfo` (STYLE §3.4).

Two jobs:

* **Airport codes → IANA zones** (contract §3.1). Codes are looked up in the
  ``airportsdata`` package [1]_: a 4-character code is tried as ICAO, then as FAA
  LID; a 3-character code as IATA, then as FAA LID. So an IATA code wins over a
  different US airport whose LID has the same three letters (``AAA`` is Anaa,
  French Polynesia, not Logan County, Illinois). LIDs may contain digits
  (``1G4``, ``00C``). The three tables load once, on first use, and every
  resolved code is cached.
* **Local wall time → UTC** with daylight saving from the IANA database [2]_:
  a wall time in a spring-forward gap does not exist (``None``, which the roster
  layer reports as a row error); an ambiguous fall-back time takes the earlier
  instant (``fold=0``, PEP 495).

The scoring layer also needs a zone's UTC offset at an instant and the offset
changes between two instants (:func:`utc_offset_hours`, :func:`offset_transitions`)
to build the body-clock target timeline.

References
----------
.. [1] M. Borsetti, "airportsdata: extensive database of location and timezone data
   for nearly every operational airport", https://github.com/mborsetti/airportsdata
.. [2] IANA Time Zone Database, https://www.iana.org/time-zones
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime, timedelta
from functools import cache, lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from vigil.domain import Airport

__all__ = [
    "airport",
    "operator_airports",
    "public_airport",
    "fixed_offset_on",
    "is_valid_zone",
    "local_to_utc",
    "offset_transitions",
    "utc_offset_hours",
    "utc_to_local",
    "zone",
]

_AirportTable = Mapping[str, Mapping[str, Any]]


@cache
def _tables() -> tuple[_AirportTable, _AirportTable, _AirportTable]:
    """The ICAO, IATA and LID tables of ``airportsdata``, loaded once."""
    import airportsdata  # imported lazily: loading takes ~0.3 s

    icao = airportsdata.load("ICAO")  # keys unique: every airport once, in file order
    return icao, _keyed_by(icao, "iata"), _keyed_by(icao, "lid")


def _keyed_by(icao: _AirportTable, key: str) -> dict[str, Mapping[str, Any]]:
    """The table ``airportsdata.load(key.upper())`` gives, from the ICAO table: the same
    rows re-keyed in file order, last row winning, blank keys dropped (as its ``load``
    does), without reading and parsing the CSV file twice more (~0.25 s each)."""
    table = {str(row[key]): row for row in icao.values()}
    table.pop("", None)
    return table


def _make_airport(code: str, entry: Mapping[str, Any]) -> Airport:
    return Airport(
        code=code,
        tz=str(entry["tz"]),
        icao=str(entry.get("icao") or ""),
        iata=str(entry.get("iata") or ""),
        name=str(entry.get("name") or ""),
    )


#: the characters an airport code may hold (ICAO, IATA, FAA LID), ASCII only
_ASCII_CODE = re.compile(r"[A-Za-z0-9]{3,4}")


#: the operator's own airports table while one is active (docs/settings.md)
_OPERATOR_AIRPORTS: ContextVar[Mapping[str, Airport] | None] = ContextVar(
    "vigil_operator_airports", default=None
)


@contextmanager
def operator_airports(table: Mapping[str, Airport] | None) -> Iterator[None]:
    """Resolve codes in ``table`` (upper-case code → airport) first, inside the block.

    An operator's airports table overrides or extends ``airportsdata`` for that
    operator's requests only: the override is a context variable, so concurrent
    requests of other operators (threads or tasks) never see it. An empty or absent
    table leaves any table already active in place.
    """
    if not table:
        yield
        return
    token = _OPERATOR_AIRPORTS.set(table)
    try:
        yield
    finally:
        _OPERATOR_AIRPORTS.reset(token)


def airport(code: str) -> Airport | None:
    """Resolve an airport code written in a roster (contract §3.1).

    Inside :func:`operator_airports` the operator's table is consulted first; otherwise
    (and for codes it lacks) the public tables, through a cache.

    Parameters
    ----------
    code : str
        As :func:`public_airport`.
    """
    table = _OPERATOR_AIRPORTS.get()
    if table is not None:
        found = table.get(code.strip().upper())
        if found is not None:
            return found
    return public_airport(code)


@lru_cache(maxsize=1 << 16)
def public_airport(code: str) -> Airport | None:
    """Resolve an airport code from the public tables (contract §3.1).

    Parameters
    ----------
    code : str
        ICAO (4 characters), IATA (3 characters) or FAA LID (3 or 4 characters,
        digits allowed). Surrounding whitespace and ASCII letter case are ignored;
        any character outside ASCII ``[A-Za-z0-9]`` makes the code unknown
        (``str.upper`` would turn look-alikes into real codes: ``ſfo`` → ``SFO``,
        ``ıst`` → ``IST``, ``ﬂl`` → ``FLL``).

    Returns
    -------
    Airport or None
        The airport with ``code`` upper-cased as written, or ``None`` when no
        table knows the code (the caller reports it as a data error).

    Notes
    -----
    Order: 4 characters → ICAO then LID; 3 characters → IATA then LID; other
    lengths never match.
    """
    stripped = code.strip()
    if not _ASCII_CODE.fullmatch(stripped):
        return None
    key = stripped.upper()
    if key != code:
        return public_airport(key)
    icao, iata, lid = _tables()
    if len(key) == 4:
        entry = icao.get(key) or lid.get(key)
    elif len(key) == 3:
        entry = iata.get(key) or lid.get(key)
    else:
        entry = None
    if entry is None or not entry.get("tz") or not is_valid_zone(str(entry["tz"])):
        return None
    return _make_airport(key, entry)


@cache
def zone(name: str) -> ZoneInfo:
    """The :class:`zoneinfo.ZoneInfo` for an IANA name (cached)."""
    return ZoneInfo(name)


@cache
def is_valid_zone(name: str) -> bool:
    """Whether ``name`` is a zone of the installed IANA database."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def local_to_utc(wall: datetime, zone_name: str) -> datetime | None:
    """Convert a naive local wall time in ``zone_name`` to an aware UTC datetime.

    Parameters
    ----------
    wall : datetime
        Naive wall-clock time (any ``tzinfo`` is ignored).
    zone_name : str
        IANA zone name; ``"UTC"`` is a fast path.

    Returns
    -------
    datetime or None
        The UTC instant; ``None`` when the wall time falls in a spring-forward gap
        and so does not exist. An ambiguous fall-back wall time gives the earlier of
        its two instants (contract §3.1).
    """
    if zone_name == "UTC":
        return wall.replace(tzinfo=UTC)
    return _local_to_utc(wall.replace(tzinfo=None, fold=0), zone_name)


def fixed_offset_on(zone_name: str, day: date) -> timedelta | None:
    """The UTC offset of ``zone_name`` throughout the local calendar ``day``.

    Returns
    -------
    timedelta or None
        The offset, or ``None`` when the offset changes on or next to that day (the
        caller then converts each wall time with :func:`local_to_utc`).
    """
    return _day_offset(zone_name, datetime(day.year, day.month, day.day))


@lru_cache(maxsize=1 << 16)
def _day_offset(zone_name: str, day: datetime) -> timedelta | None:
    """The zone's UTC offset throughout a local day, or ``None`` if it changes that day.

    Sampled every 4 h from 14 h before local midnight to 38 h after it (UTC offsets
    lie within ±14 h and tzdata transitions are months apart), so a constant result
    means no transition touches any wall time of the day.
    """
    zi = zone(zone_name)
    start = day.replace(tzinfo=UTC) - timedelta(hours=14)
    first = start.astimezone(zi).utcoffset()
    for hours in range(4, 53, 4):
        if (start + timedelta(hours=hours)).astimezone(zi).utcoffset() != first:
            return None
    return first


def _local_to_utc(wall: datetime, zone_name: str) -> datetime | None:
    offset = _day_offset(zone_name, wall.replace(hour=0, minute=0, second=0, microsecond=0))
    if offset is not None:
        return (wall - offset).replace(tzinfo=UTC)
    zi = zone(zone_name)
    instant = wall.replace(tzinfo=zi).astimezone(UTC)
    if instant.astimezone(zi).replace(tzinfo=None) != wall:
        return None  # in a spring-forward gap: the round trip lands elsewhere
    return instant


def utc_to_local(instant: datetime, zone_name: str) -> datetime:
    """The naive local wall time in ``zone_name`` of an aware instant."""
    return instant.astimezone(zone(zone_name)).replace(tzinfo=None)


def utc_offset_hours(zone_name: str, instant: datetime) -> float:
    """UTC offset of ``zone_name`` at an aware ``instant``. [h]

    Examples
    --------
    >>> utc_offset_hours("Europe/London", datetime(2026, 7, 1, tzinfo=UTC))
    1.0
    """
    offset = instant.astimezone(zone(zone_name)).utcoffset()
    assert offset is not None  # a ZoneInfo always gives an offset
    return offset.total_seconds() / 3600.0


def offset_transitions(
    zone_name: str, start: datetime, end: datetime
) -> list[tuple[datetime, float]]:
    """Instants in ``(start, end]`` at which ``zone_name``'s UTC offset changes.

    Parameters
    ----------
    zone_name : str
        IANA zone name.
    start, end : datetime
        Aware instants bounding the search.

    Returns
    -------
    list of (datetime, float)
        Each transition as (UTC instant from which the new offset applies, new
        offset [h]), in time order. Found by an hourly scan then bisection to the
        second, so transitions less than an hour apart may be missed (tzdata has
        none since 1970).
    """
    out: list[tuple[datetime, float]] = []
    step = timedelta(hours=1)
    zi = zone(zone_name)
    t = start.astimezone(UTC).replace(microsecond=0)
    stop = end.astimezone(UTC)
    current = t.astimezone(zi).utcoffset()
    while t < stop:
        nxt = min(t + step, stop)
        offset = nxt.astimezone(zi).utcoffset()
        if offset != current:
            lo, hi = t, nxt  # offset(lo) == current, offset(hi) != current
            while hi - lo > timedelta(seconds=1):
                mid = lo + timedelta(seconds=(hi - lo) // timedelta(seconds=2))
                if mid.astimezone(zi).utcoffset() == current:
                    lo = mid
                else:
                    hi = mid
            assert offset is not None
            out.append((hi, offset.total_seconds() / 3600.0))
            current = offset
        t = nxt
    return out
