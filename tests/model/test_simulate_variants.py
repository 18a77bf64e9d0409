"""The cheaper entry point of the simulation gives the full simulation's values:
``body_clock_phase`` is ``simulate(...).phase`` without S, C, U and W."""

from __future__ import annotations

import numpy as np

from vigil.model import DEFAULT, simulate
from vigil.model.simulate import body_clock_phase

from ._timelines import two_crew


def _samples() -> np.ndarray:
    grid = np.arange(95.0, 260.0, 0.37)
    samples = np.vstack([grid, np.concatenate([grid[:300], np.full(grid.size - 300, np.nan)])])
    samples[0, 50] = 125.0  # exactly on a zone change
    return samples


def test_phase_alone_equals_the_full_simulation_across_zone_changes() -> None:
    """Two crew members flying east and west with sleeps in between; samples before the
    start, NaN pads and instants on a zone change included: bit-identical φ."""
    timeline, samples = two_crew(), _samples()
    expected = simulate(timeline, samples, DEFAULT).phase
    got = body_clock_phase(timeline, samples, DEFAULT)
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.isnan(got[0, 0]) and np.isfinite(got[1, 299]) and np.isnan(got[1, 300])
    assert np.ptp(got[0][np.isfinite(got[0])]) > 6.0  # the clock really moved
