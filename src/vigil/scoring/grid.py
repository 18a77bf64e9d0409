"""Domain objects -> model arrays: time base, body-clock target, sleep episodes, sample grid.

This is the only place where :mod:`vigil.domain` objects (aware UTC datetimes, airports)
become the float arrays of :mod:`vigil.model` (epoch hours, UTC offsets in hours,
``(n_crew, k)`` NaN-padded), see ``docs/architecture.md``.

References
----------
Reference = ``../shared/reference/fatigue-model.md``; contract = ``../shared/spec/interface.md``.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil import tz
from vigil.contract import INTERVAL_HOURS, INTERVAL_MINUTES
from vigil.model import homeostatic

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Warm-up length before the earliest roster event, reference §9.4 [h].
WARMUP_HOURS = 72.0
#: Local clock hour at which the warm-up starts, reference §9.4.
WARMUP_START_HOUR = 7
#: S at the warm-up start: the 8-h steady state at waking, reference §2.1 / §9.4.
S_AT_WAKING = homeostatic.S_AT_WAKING
#: Samples per interval: minute midpoints, reference §9.2 step 4.
SAMPLES_PER_INTERVAL = INTERVAL_MINUTES
_HOUR = 3600.0


def epoch_hours(instant: datetime) -> float:
    """Aware datetime -> hours since 1970-01-01T00:00Z."""
    return instant.timestamp() / _HOUR


def from_epoch_hours(hours: float) -> datetime:
    """Hours since the epoch -> aware UTC datetime, rounded to the second."""
    return datetime.fromtimestamp(round(hours * _HOUR), tz=UTC)


@dataclass(frozen=True, slots=True)
class SleepEpisode:
    """One sleep the scores rest on (contract §4 ``includeSleep``)."""

    start: float  #: [epoch h]
    end: float  #: [epoch h]
    quality: float  #: restorative value per hour, 0-1
    source: str  #: "given" | "predicted"
    kind: str  #: "main" | "nap" | "inflight"


@functools.lru_cache(maxsize=4096)
def warmup_from(zone: str, first: datetime) -> datetime:
    """07:00 local time in ``zone``, at least 72 h before ``first`` (reference §9.4).

    Kept per process (a pure function of its arguments): a roster's crew members share
    few home zones and first-duty instants, and a server sees the same ones again.
    """
    latest = first - timedelta(hours=WARMUP_HOURS)
    local = tz.utc_to_local(latest, zone)
    wall = local.replace(hour=WARMUP_START_HOUR, minute=0, second=0, microsecond=0)
    if wall > local:
        wall -= timedelta(days=1)
    for shift in (0, 1, 2):  # 07:00 inside a DST gap: take the next existing hour
        instant = tz.local_to_utc(wall + timedelta(hours=shift), zone)
        if instant is not None:
            return min(instant, latest)
    raise ValueError(f"no valid warm-up start in zone {zone}")  # pragma: no cover


def habitual_nights(zone: str, start: datetime, limit: datetime) -> list[tuple[datetime, datetime]]:
    """Habitual 23:00-07:00 local sleeps from ``start`` until ``limit`` (reference §2.1, §4.3.5).

    A night reaching past ``limit`` is cut at it; pieces shorter than 30 min are
    dropped (reference §4.2 minimum episode).
    """
    nights: list[tuple[datetime, datetime]] = []
    day = tz.utc_to_local(start, zone).date()
    while True:
        bed = _local_hour(zone, day, 23)
        wake_day = day + timedelta(days=1)
        wake = _local_hour(zone, wake_day, 7)
        day = wake_day
        if bed is None or wake is None:  # pragma: no cover - no zone has a gap at 23:00/07:00
            continue
        if bed >= limit:
            return nights
        if bed < start:
            continue
        end = min(wake, limit)
        if end - bed >= timedelta(minutes=30):
            nights.append((bed, end))


@functools.lru_cache(maxsize=65536)
def _local_hour(zone: str, day: date, hour: int) -> datetime | None:
    """``hour``:00 local time on ``day`` in ``zone`` as UTC (None in a DST gap)."""
    return tz.local_to_utc(datetime(day.year, day.month, day.day, hour), zone)


@functools.lru_cache(maxsize=4096)
def _zone_year_transitions(zone: str, year: int) -> tuple[tuple[float, float], ...]:
    """Offset changes of ``zone`` during ``year``: (instant [epoch h], new offset [h]).

    The offset is probed at each UTC midnight and :func:`vigil.tz.offset_transitions`
    (an hourly scan) searches only the days whose offset differs from the day before:
    the same transitions, found in 1/24 of the probes (two changes within one day, which
    tzdata has nowhere since 1970, would be missed).
    """
    day = timedelta(days=1)
    start = datetime(year, 1, 1, tzinfo=UTC)
    days = [start + k * day for k in range((datetime(year + 1, 1, 1, tzinfo=UTC) - start).days + 1)]
    offsets = [tz.utc_offset_hours(zone, d) for d in days]
    out: list[tuple[float, float]] = []
    for k in range(len(days) - 1):
        if offsets[k + 1] != offsets[k]:
            found = tz.offset_transitions(zone, days[k], days[k + 1])
            out.extend((epoch_hours(t), off) for t, off in found)
    return tuple(out)


_YEAR_STARTS = [epoch_hours(datetime(y, 1, 1, tzinfo=UTC)) for y in range(1900, 2102)]


def year_of(t: float) -> int:
    """The UTC calendar year of epoch hour ``t`` (1900-2101)."""
    return 1899 + bisect_right(_YEAR_STARTS, t)


_year = year_of


@functools.lru_cache(maxsize=4096)
def year_table(zone: str, year: int) -> tuple[list[float], list[float], float]:
    """Offset changes of ``zone`` during ``year`` and its offset at the year's start."""
    changes = _zone_year_transitions(zone, year)
    start_offset = tz.utc_offset_hours(zone, datetime(year, 1, 1, tzinfo=UTC))
    return [w for w, _ in changes], [o for _, o in changes], start_offset


def zone_offset(zone: str, t: float) -> float:
    """UTC offset [h] of ``zone`` at epoch hour ``t`` (table look-up, cached per zone-year)."""
    times, offsets, start_offset = year_table(zone, _year(t))
    i = bisect_right(times, t)
    return offsets[i - 1] if i else start_offset


def interval_samples(
    interval_start: FloatArray, duty_off: FloatArray, per_interval: int = SAMPLES_PER_INTERVAL
) -> FloatArray:
    """Sample instants of score intervals, shape ``(n_intervals, per_interval)`` [epoch h].

    Interval k of a duty covers ``[on + 15k min, min(on + 15(k+1) min, off))`` (contract
    §4); it is sampled at the midpoints of ``per_interval`` equal sub-steps of 15 min
    (minute midpoints for 15, reference §9.2 step 4). Sub-steps starting at or after
    off-duty are NaN, so a short last interval is the mean over the part inside the duty.

    Parameters
    ----------
    interval_start : (n_intervals,) float
        Start of each interval. [epoch h]
    duty_off : (n_intervals,) float
        Off-duty instant of each interval's duty. [epoch h]
    per_interval : int
        Samples per interval.
    """
    start = np.ascontiguousarray(interval_start, dtype=np.float64)
    samples = np.empty((start.size, per_interval))
    _fill_samples(start, np.ascontiguousarray(duty_off, dtype=np.float64), samples)
    return samples


@nb.njit(cache=True)
def _fill_samples(start: FloatArray, off: FloatArray, out: FloatArray) -> None:
    """Kernel of :func:`interval_samples`, one interval (row of ``out``) at a time."""
    step = INTERVAL_HOURS / out.shape[1]
    for t in range(start.size):
        # only an interval ending within a microsecond-scale margin of off duty can lose
        # sub-steps (the others end a whole sub-step before it)
        short = start[t] + INTERVAL_HOURS > off[t] - 1e-6
        for j in range(out.shape[1]):
            x = start[t] + (j + 0.5) * step
            out[t, j] = math.nan if short and x - step / 2 >= off[t] - 1e-9 else x
