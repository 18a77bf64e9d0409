"""``interval_kss`` is the array statement it fuses, bit for bit: X from
``simulate_alertness`` (each crew member's samples as a NaN-padded row), the workload
term from ``workload_kss_fast``, ``final_kss``, and each interval's mean over its samples
inside the duty (NumPy's row sums)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vigil.model import DEFAULT, PRESETS, TPM_DEFAULT, CrewTimeline, final_kss, workload_kss_fast
from vigil.model.interval_kss import DutyRows, interval_kss
from vigil.model.simulate import simulate_alertness

from ._timelines import two_crew

SPI = 15  #: samples per interval: minute midpoints


def _duties() -> tuple[DutyRows, list[int]]:
    """Five duties: crew 0 owns the first three (one across a sleep, one with in-flight
    rest, one with no sectors and Workload 30), crew 1 the last two; off-duty instants
    cut the last interval short."""
    report = np.array([115.0, 121.1, 150.3, 131.0, 168.2])
    off = np.array([120.9, 133.45, 158.0, 134.62, 180.0])
    rest_start = np.array([[np.nan], [126.0], [np.nan], [np.nan], [172.0]])
    rest_end = np.array([[np.nan], [128.5], [np.nan], [np.nan], [174.0]])
    duties = DutyRows(
        report=report,
        off=off,
        sectors=np.array([2.0, 1.0, 0.0, 4.0, 1.0]),
        workload=np.array([np.nan, 10.0, 30.0, -20.0, 0.0]),
        rest_start=rest_start,
        rest_end=rest_end,
    )
    return duties, [3, 2]


def _grid(duties: DutyRows) -> tuple[np.ndarray, np.ndarray]:
    """Each duty's intervals' minute-midpoint samples (NaN past off duty), and their duty."""
    rows, owner = [], []
    for d, (rep, end) in enumerate(zip(duties.report, duties.off, strict=True)):
        n = int(np.ceil((end - rep) / 0.25 - 1e-9))
        start = rep + 0.25 * np.arange(n)
        samples = start[:, None] + (np.arange(SPI) + 0.5) * (0.25 / SPI)
        samples[samples - 0.25 / SPI / 2 >= end - 1e-9] = np.nan
        rows.append(samples)
        owner += [d] * n
    return np.vstack(rows), np.array(owner)


def _alertness_flat(
    timeline: CrewTimeline, flat: np.ndarray, ptr: np.ndarray, params: object
) -> np.ndarray:
    """X at samples stored flat (crew ``i`` owns ``flat[ptr[i]:ptr[i + 1]]``), through the
    row kernel: one NaN-padded row per crew member, then the rows' own samples again."""
    counts = np.diff(ptr)
    rows = np.full((counts.size, int(counts.max())), np.nan)
    for i, (a, b) in enumerate(zip(ptr[:-1], ptr[1:], strict=True)):
        rows[i, : b - a] = flat[a:b]
    x = simulate_alertness(timeline, rows, params)  # type: ignore[arg-type]
    return np.concatenate([x[i, :n] for i, n in enumerate(counts)])


def _by_arrays(
    timeline: CrewTimeline,
    samples: np.ndarray,
    ptr: np.ndarray,
    duty: np.ndarray,
    duties: DutyRows,
    params: object,
) -> tuple[np.ndarray, np.ndarray]:
    x = _alertness_flat(timeline, samples.reshape(-1), SPI * ptr, params).reshape(-1, SPI)
    wl = workload_kss_fast(
        samples,
        duties.report[duty],
        duties.off[duty],
        duties.sectors[duty],
        duties.workload[duty],
        duties.rest_start[duty],
        duties.rest_end[duty],
        params,  # type: ignore[arg-type]
    )
    kss = final_kss(x, np.nan_to_num(wl), params)  # type: ignore[arg-type]
    inside = ~np.isnan(samples)
    means = np.where(inside, kss, 0.0).sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    return means, kss


@pytest.mark.parametrize(
    "params",
    [DEFAULT, TPM_DEFAULT, PRESETS["unified"], replace(DEFAULT, slow_weight=9.0)],
    ids=["ingre2014_5c", "tpm_default", "unified", "slow_weight"],
)
def test_interval_kss_equals_the_array_statement(params: object) -> None:
    timeline = two_crew()
    duties, per_crew = _duties()
    samples, duty = _grid(duties)
    counts = np.bincount(duty, minlength=5)
    crew_rows = [counts[:3].sum(), counts[3:].sum()]
    assert per_crew == [3, 2]
    ptr = np.concatenate([[0], np.cumsum(crew_rows)])
    assert np.isnan(samples).any()  # short last intervals
    want_means, want_kss = _by_arrays(timeline, samples, ptr, duty, duties, params)
    sample_kss = np.empty(samples.shape)
    got = interval_kss(timeline, samples, ptr, duty, duties, params, sample_kss=sample_kss)  # type: ignore[arg-type]
    np.testing.assert_array_equal(got, want_means)
    np.testing.assert_array_equal(sample_kss, want_kss)
    assert np.ptp(got) > 1.0  # the scores really vary
    without = interval_kss(timeline, samples, ptr, duty, duties, params)  # type: ignore[arg-type]
    np.testing.assert_array_equal(without, got)


def test_interval_kss_rejects_a_pointer_that_does_not_cover_the_samples() -> None:
    timeline = two_crew()
    duties, _ = _duties()
    samples, duty = _grid(duties)
    with pytest.raises(ValueError, match="interval_ptr"):
        interval_kss(timeline, samples, np.array([0, 3, 4]), duty, duties)
