"""The array search for the duty holding a sleep agrees with the datetime reference."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from reference import grid_rows
from vigil.scoring import grid
from vigil.scoring.sleep_given import _containing, _microseconds, _until

_T0 = datetime(2026, 3, 1, tzinfo=UTC)


def test_containing_matches_datetime_arithmetic_to_the_microsecond() -> None:
    """Odd-microsecond sleeps whose overlap is within a microsecond of half their length
    (where ``timedelta / 2`` rounds half to even) are classified as ``grid_rows.containing``."""
    rng = np.random.default_rng(5)
    on = [_T0 + timedelta(hours=10 * k) for k in range(6)]
    off = [t + timedelta(hours=4) for t in on]
    starts, ends = [], []
    for _ in range(3000):
        k = int(rng.integers(0, 6))
        length = timedelta(microseconds=int(rng.integers(1, 4 * 3600 * 10**6)))
        half = length // 2 + timedelta(microseconds=int(rng.integers(-2, 3)))
        start = off[k] - half if rng.random() < 0.5 else on[k] + half - length
        starts.append(start)
        ends.append(start + length)
    expected = [grid_rows.containing(on, off, s, e) for s, e in zip(starts, ends, strict=True)]
    got = _containing(
        _microseconds(on),
        _microseconds(off),
        np.array([0, 6], dtype=np.int64),
        np.zeros(len(starts), dtype=np.int64),
        _microseconds(starts),
        _microseconds(ends),
    )
    assert [None if k < 0 else k for k in got.tolist()] == expected
    assert {None, 0, 5} <= set(expected)


@pytest.mark.parametrize("zone", ["Europe/London", "America/New_York", "Australia/Sydney", "UTC"])
def test_nights_cut_from_a_later_limit_equal_the_nights_up_to_each_limit(zone: str) -> None:
    """:func:`_until` over the nights up to a day past the latest limit gives exactly
    :func:`grid.habitual_nights` up to each limit, across the DST changes of 2026 and
    with limits inside a night, at its edges and under 30 min after a bedtime."""
    rng = np.random.default_rng(11)
    for start in [datetime(2026, m, d, 6, 0, tzinfo=UTC) for m, d in ((3, 25), (4, 1), (10, 22))]:
        limits = [start + timedelta(minutes=int(m)) for m in rng.integers(-60, 8 * 1440, 300)]
        bedtimes = [a for a, _ in grid.habitual_nights(zone, start, max(limits))]
        limits += [b + timedelta(minutes=m) for b in bedtimes for m in (0, 1, 29, 30, 31)]
        nights = grid.habitual_nights(zone, start, max(limits) + timedelta(days=1))
        for limit in limits:
            assert _until(nights, limit) == grid.habitual_nights(zone, start, limit)


def test_microseconds_of_shared_and_distinct_instants() -> None:
    offset = timezone(timedelta(hours=5, minutes=30))
    instants = [
        _T0,
        _T0 + timedelta(microseconds=1),
        _T0,
        datetime(2026, 3, 1, 5, 30, tzinfo=offset),
    ]
    assert _microseconds(instants).tolist() == [_T0.timestamp() * 10**6 + k for k in (0, 1, 0, 0)]
    many = instants * 300  # from 1,000 instants on, each distinct one is converted once
    assert _microseconds(many).tolist() == _microseconds(instants).tolist() * 300
