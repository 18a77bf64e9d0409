"""The cheaper entry points of the simulation give the full simulation's values:
``body_clock_phase`` is ``simulate(...).phase`` without S, C, U and W, and
``simulate_alertness_flat`` is ``simulate_alertness`` without the crew-row padding."""

from __future__ import annotations

import numpy as np

from vigil.model import DEFAULT, simulate, simulate_alertness
from vigil.model.simulate import body_clock_phase, simulate_alertness_flat

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


def test_flat_samples_equal_padded_rows() -> None:
    """NaN inside a row (a partial interval) and rows of different lengths: bit-identical X."""
    timeline, samples = two_crew(), _samples()
    samples[0, 200:214] = np.nan
    expected = simulate_alertness(timeline, samples, DEFAULT)
    lengths = [samples.shape[1], 300]
    flat = np.concatenate([samples[0], samples[1, :300]])
    got = simulate_alertness_flat(timeline, flat, np.array([0, lengths[0], sum(lengths)]), DEFAULT)
    assert np.array_equal(got[: lengths[0]], expected[0], equal_nan=True)
    assert np.array_equal(got[lengths[0] :], expected[1, :300], equal_nan=True)
    assert np.isfinite(got[lengths[0] :]).sum() > 200
