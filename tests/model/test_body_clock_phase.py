"""``body_clock_phase`` is ``simulate(...).phase`` without S, C, U and W."""

from __future__ import annotations

import numpy as np

from vigil.model import DEFAULT, CrewTimeline, simulate
from vigil.model.simulate import body_clock_phase


def test_phase_alone_equals_the_full_simulation_across_zone_changes() -> None:
    """Two crew members flying east and west with sleeps in between; samples before the
    start, NaN pads and instants on a zone change included: bit-identical φ."""
    start = np.array([100.0, 130.0])
    timeline = CrewTimeline(
        start=start,
        s_start=[13.82, 13.82],
        phase_start=[1.0, -5.0],
        sleep_start=[[110.0, 140.0, np.nan], [135.0, 160.0, 190.0]],
        sleep_end=[[118.0, 147.0, np.nan], [142.0, 166.0, 197.0]],
        sleep_quality=[[1.0, 0.8, np.nan], [1.0, 1.0, 0.6]],
        zone_time=[[90.0, 125.0, 170.0], [0.0, 150.0, np.nan]],
        zone_offset=[[1.0, -5.0, 8.0], [-5.0, 9.5, np.nan]],
    )
    grid = np.arange(95.0, 260.0, 0.37)
    samples = np.vstack([grid, np.concatenate([grid[:300], np.full(grid.size - 300, np.nan)])])
    samples[0, 50] = 125.0  # exactly on a zone change
    expected = simulate(timeline, samples, DEFAULT).phase
    got = body_clock_phase(timeline, samples, DEFAULT)
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.isnan(got[0, 0]) and np.isfinite(got[1, 299]) and np.isnan(got[1, 300])
    assert np.ptp(got[0][np.isfinite(got[0])]) > 6.0  # the clock really moved
