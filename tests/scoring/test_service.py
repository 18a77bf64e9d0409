"""Tests of the scoring service's chunk helpers (``vigil.scoring.service``)."""

from __future__ import annotations

import numpy as np

from vigil import model
from vigil.scoring import grid
from vigil.scoring.service import _interval_means


def test_interval_means_match_the_model_means_of_padded_samples() -> None:
    # a day of intervals, every fourth one cut short by off duty: NaN-padded samples
    start = 480_000.0 + 0.25 * np.arange(96, dtype=np.float64)
    off = start + np.where(np.arange(96) % 4 == 3, 0.1, 0.25).astype(np.float64)
    samples = grid.interval_samples(start, off)
    values = np.sin(np.nan_to_num(samples)) + 5.0
    values[np.isnan(samples)] = np.nan
    short = np.flatnonzero(np.isnan(samples[:, -1]))
    assert short.size == 24
    padding = np.isnan(samples[short])
    count = np.full(96, grid.SAMPLES_PER_INTERVAL, dtype=np.int64)
    count[short] -= padding.sum(axis=1)
    want = model.interval_means(values)[:, 0]  # NaN-aware NumPy form, same summation
    np.testing.assert_array_equal(_interval_means(values, short, padding, count), want)
