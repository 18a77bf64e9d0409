"""The exposure mask of :func:`vigil.scoring.duty_risk.duty_risks` (reference §8)."""

from __future__ import annotations

import numpy as np

from vigil.scoring.duty_risk import _exposed


def test_exposure_leaves_out_sleep_and_own_inflight_rest_only() -> None:
    rng = np.random.default_rng(4)
    n_crew, m, n_duty, r, n_int = 6, 5, 12, 3, 400
    base = 20_000 * 24.0
    starts = base + np.cumsum(rng.uniform(2.0, 30.0, (n_crew, m)), axis=1)
    ends = starts + rng.uniform(0.5, 1.5, (n_crew, m))
    count = rng.integers(0, m + 1, n_crew)
    count[2] = 0  # a crew member with no sleep at all
    pad = np.arange(m)[None, :] >= count[:, None]
    starts[pad], ends[pad] = np.nan, np.nan
    rest_start = base + rng.uniform(0.0, 150.0, (n_duty, r))
    rest_end = rest_start + rng.uniform(0.5, 3.0, (n_duty, r))
    rest_start[:, 2] = rest_end[:, 2] = np.nan
    inflight = rng.random((n_duty, r)) < 0.6
    crew = rng.integers(0, n_crew, n_int)
    duty = rng.integers(0, n_duty, n_int)
    start = base + rng.uniform(0.0, 160.0, n_int)
    # off duty of each interval's duty: often after the interval, sometimes inside it
    off = np.empty(n_duty)
    off[duty] = start + rng.choice([0.05, 0.2, 3.0], n_int)
    mid = (start + np.minimum(start + 0.25, off[duty])) / 2  # interval midpoints
    assert np.sum(mid < start + 0.125) > 10  # short intervals among them
    position = np.arange(n_int)  # one cell of out per interval
    out = np.zeros((n_duty, n_int), dtype=bool)
    _exposed(crew, start, duty, position, off, starts, ends, rest_start, rest_end, inflight, out)
    exposed = out[duty, position]
    for t in range(n_int):
        c, d, x = crew[t], duty[t], mid[t]
        asleep = bool(np.any((starts[c] <= x) & (x < ends[c])))
        resting = bool(np.any(inflight[d] & (rest_start[d] <= x) & (x < rest_end[d])))
        assert exposed[t] == (not (asleep or resting))
    assert 10 < (~exposed).sum() < n_int - 10  # both outcomes exercised
