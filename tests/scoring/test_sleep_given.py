"""The array search for the duty holding a sleep agrees with the datetime reference."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from vigil.scoring import grid
from vigil.scoring.sleep_given import _containing, _microseconds

_T0 = datetime(2026, 3, 1, tzinfo=UTC)


def test_containing_matches_datetime_arithmetic_to_the_microsecond() -> None:
    """Odd-microsecond sleeps whose overlap is within a microsecond of half their length
    (where ``timedelta / 2`` rounds half to even) are classified as ``grid.containing``."""
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
    expected = [grid.containing(on, off, s, e) for s, e in zip(starts, ends, strict=True)]
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
