"""Per-duty risk (reference §8)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vigil.model import (
    DEFAULT,
    EARLY,
    NIGHT,
    OTHER,
    Parameters,
    classify_duty,
    cumulative_multiplier,
    duty_risk,
    duty_risk_exposure,
    reference_hazard,
)
from vigil.model._sums import pairwise_sum
from vigil.model.risk import (
    break_factor,
    duties_hazard,
    hazard_terms,
    interval_geometry,
    nearest_point_counts,
    run_fatigue_floor,
    run_positions,
    sleepiness_factor,
    terms_fatigue_factor,
    time_of_day_factor,
    typical_kss,
    typical_kss_at,
)
from vigil.model.workload import sector_times

from .conftest import DAY0, habitual, one_person


def _r(report: float, off: float, sectors: int, sleeps: list[tuple[float, float]]) -> float:
    h = duty_risk_exposure(one_person(sleeps), DAY0 + 72 + report, DAY0 + 72 + off, sectors=sectors)
    return float(duty_risk(h))


def test_reference_duty_is_one() -> None:
    # ref §8: R = 1 by construction for 10:00-20:00, 2 sectors, habitual sleep before
    assert abs(_r(10.0, 20.0, 2, habitual(3)) - 1.0) < 1e-12
    assert reference_hazard(DEFAULT) > 0


def test_time_of_day_peaks_about_midnight() -> None:
    # Folkard, Lombardi & Spencer 2006: the acrophase of the risk rhythm is about midnight
    hours = np.arange(0.0, 24.0, 0.25)
    t = time_of_day_factor(hours)
    assert hours[np.argmax(t)] == 0.0 and hours[np.argmin(t)] == 12.0
    assert t.max() == 1.0 + DEFAULT.risk_tod_amplitude


def test_break_factor_doubles_over_two_hours_of_work() -> None:
    # Tucker, Folkard & Macdonald 2003 (Lancet 361:680): risk in the last half hour of a
    # 2-h work spell twice the first half hour's, rising in between; then constant
    # (Tucker et al. 2006)
    b = break_factor(np.array([0.25, 0.75, 1.25, 1.75, 3.0, 9.0]))
    assert b[0] == 1.0 and b[3] == 2.0 and b[4] == 2.0 and b[5] == 2.0
    assert np.all(np.diff(b[:4]) > 0)


def test_sleepiness_factor_is_akerstedt_odds_beyond_the_typical_worker() -> None:
    # Åkerstedt et al. 2008: each step of model-predicted sleepiness multiplies crash odds
    # by 1.72; S counts the steps beyond the typical three-shift worker's at that hour
    hours = np.array([3.5, 10.5, 18.5])
    typical = typical_kss_at(hours)
    np.testing.assert_allclose(typical, typical_kss()[[3, 10, 18]])
    np.testing.assert_allclose(sleepiness_factor(typical, hours), 1.0)
    np.testing.assert_allclose(sleepiness_factor(typical + 1.0, hours), 1.72)
    # the night worker at 03:30 is sleepier than the afternoon worker at 18:30
    assert typical[0] > typical[2] + 2.0


def test_phase_of_flight_weights_follow_the_accident_shares() -> None:
    # Boeing Statistical Summary: take-off + initial climb ≈ 14 % of fatal accidents,
    # final approach + landing ≈ 48 %, the other 38 % in 94 % of a 1.5-h flight
    per_hour = 0.38 / (0.94 * 1.5)
    assert abs(DEFAULT.exposure_takeoff - 0.14 / per_hour) < 0.01
    assert abs(DEFAULT.exposure_landing - 0.48 / per_hour) < 0.01


def test_sectors_enter_once() -> None:
    # the sector workload term (ref §6) is not in the risk's KSS: two more sectors add
    # their take-offs and landings and nothing else (same report, off and sleep)
    two = _r(10.0, 20.0, 2, habitual(3))
    four = _r(10.0, 20.0, 4, habitual(3))
    assert 1.1 < four / two < 1.0 + 2 * (0.52 + 1.78) * 2.0 * 1.3 / 10.0


def test_classification_and_cumulative_multiplier() -> None:
    # night touches 02:00-04:59 body time; early = report 05:00-06:59 (ref §8)
    kinds = classify_duty(
        np.array([22.0, 5.5, 10.0, 1.0, 5.0]), np.array([31.0, 13.0, 20.0, 2.0, 12.0])
    )
    assert list(kinds) == [NIGHT, EARLY, OTHER, OTHER, EARLY]
    rep = np.array([[22.0, 46.0, 70.0, 94.0, 200.0]])
    m = cumulative_multiplier(rep, rep + 9.0, np.full((1, 5), NIGHT))
    assert np.allclose(m[0], [1.00, 1.06, 1.17, 1.36, 1.00])  # Folkard table; gap >= 36 h resets


def test_run_positions_follow_the_36_hour_rule() -> None:
    # ref §8 [C]: consecutive = previous duty of the same kind off < 36 h before report;
    # runs of nights and of earlies are counted separately
    rep = np.array([[22.0, 46.0, 70.0, 86.0, 200.0, np.nan]])
    kind = np.array([[NIGHT, NIGHT, EARLY, NIGHT, NIGHT, OTHER]])
    pos = run_positions(rep, rep + 8.0, kind)
    assert pos.tolist() == [[1, 2, 1, 3, 1, 0]]


def test_fatigue_does_not_recover_within_a_run() -> None:
    # Folkard & Åkerstedt 2004: risk rises over four successive nights although models
    # predict recovery in the day sleeps; a later night keeps the run's worst fatigue,
    # a rise is kept as is, and a new run starts afresh
    factor = np.array([[2.0, 1.5, 1.6, 2.5, 1.0]])
    kind = np.full((1, 5), NIGHT)
    pos = np.array([[1, 2, 3, 4, 1]])
    floor = run_fatigue_floor(factor, kind, pos)
    assert np.allclose(floor, [[1.0, 2.0 / 1.5, 2.0 / 1.6, 1.0, 1.0]])
    others = run_fatigue_floor(factor, np.full((1, 5), OTHER), np.zeros((1, 5), dtype=int))
    assert np.all(others == 1.0)


def test_identical_nights_follow_folkard_and_tucker() -> None:
    # Folkard & Tucker 2003 (Occup Med 53:95): relative risk by night number 1.00, 1.06,
    # 1.17, 1.36. With a TPM fatigue term that falls after night 1 (as it does after day
    # sleeps), the floor makes the run's risk follow the published trend exactly.
    factor = np.array([[3.0, 2.2, 2.1, 2.0]])  # model fatigue falling over the run
    rep = np.array([[22.0, 46.0, 70.0, 94.0]])
    kind = np.full((1, 4), NIGHT)
    pos = run_positions(rep, rep + 8.0, kind)
    m = cumulative_multiplier(rep, rep + 8.0, kind) * run_fatigue_floor(factor, kind, pos)
    h = factor * m
    assert np.allclose(h[0] / h[0, 0], [1.00, 1.06, 1.17, 1.36])


def _floor_by_definition(f: list[float], kind: list[int], pos: list[int]) -> list[float]:
    """``max(1, max(f_1 .. f_{k-1}) / f_k)`` per duty, spelled out run by run."""
    out = [1.0] * len(f)
    for j in range(len(f)):
        if pos[j] < 2:
            continue
        start = max(i for i in range(j) if kind[i] == kind[j] and pos[i] == 1)
        same = [i for i in range(start, j) if kind[i] == kind[j] and pos[i] > 0]
        earlier = [f[i] for i in same if not np.isnan(f[i])]
        if earlier and not np.isnan(f[j]) and f[j] > 0:
            out[j] = max(1.0, max(earlier) / f[j])
    return out


def test_run_kernels_match_the_definitions_on_random_rosters() -> None:
    rng = np.random.default_rng(5)
    n, d = 40, 12
    rep = np.cumsum(rng.uniform(8.0, 60.0, (n, d)), axis=1)
    rep[rng.random((n, d)) < 0.1] = np.nan
    kind = rng.integers(0, 3, (n, d))
    pos = run_positions(rep, rep + 8.0, kind)
    factor = rng.uniform(0.5, 3.0, (n, d))
    factor[rng.random((n, d)) < 0.1] = np.nan
    floor = run_fatigue_floor(factor, kind, pos)
    for i in range(n):
        for code in (NIGHT, EARLY):
            run, last_off = 0, -np.inf
            for j in range(d):
                if kind[i, j] == code and not np.isnan(rep[i, j]):
                    run = run + 1 if rep[i, j] - last_off < 36.0 else 1
                    last_off = rep[i, j] + 8.0
                    assert pos[i, j] == run
                elif kind[i, j] == OTHER or np.isnan(rep[i, j]):
                    assert pos[i, j] == 0
        expected = _floor_by_definition(list(factor[i]), list(kind[i]), list(pos[i]))
        np.testing.assert_allclose(floor[i], expected)
    assert (pos >= 2).sum() > 20 and (floor > 1.0).sum() > 5  # the cases were exercised


def _hazard_by_parts(
    kss: np.ndarray, report: np.ndarray, off: np.ndarray, sectors: np.ndarray,
    included: np.ndarray, multiplier: np.ndarray, cabin: np.ndarray, params: Parameters,
) -> np.ndarray:  # fmt: skip
    """H_d composed from the public factor functions (module docstring of model.risk)."""
    counts = np.sum(~np.isnan(kss), axis=1)
    width = kss.shape[1]
    hours, length = interval_geometry(report, off, counts, width)
    takeoff, landing = sector_times(report, off, sectors, params)
    e_to = np.where(cabin, params.exposure_cabin[0], params.exposure_takeoff)[:, None]
    e_ld = np.where(cabin, params.exposure_cabin[1], params.exposure_landing)[:, None]
    events = e_to * nearest_point_counts(takeoff, report, counts, width) + e_ld * (
        nearest_point_counts(landing, report, counts, width)
    )
    mid = report[:, None] + 0.25 * np.arange(width) + length / 2.0
    h = (
        sleepiness_factor(kss, mid, params)
        * time_of_day_factor(mid, params)
        * break_factor(mid - report[:, None], params)
        * np.exp(params.tot_coefficient * np.maximum(0.0, hours - params.tot_onset))
        * multiplier[:, None]
    )
    weight = np.where(included, length, 0.0)
    return np.sum(np.where(np.isnan(kss), 0.0, h * (weight + events)), axis=1)


def test_hazard_kernel_equals_the_product_of_its_components() -> None:
    rng = np.random.default_rng(11)
    params = replace(DEFAULT, exposure_takeoff=0.3, exposure_landing=0.7)
    for width in (5, 8, 13, 60, 130):
        d = 50
        count = rng.integers(1, width + 1, d)
        kss = rng.uniform(1.0, 9.0, (d, width))
        kss[np.arange(width)[None, :] >= count[:, None]] = np.nan
        report = 20_000 * 24.0 + rng.uniform(0.0, 500.0, d)
        off = report + count * 0.25 - rng.uniform(0.0, 0.2, d)
        sectors = rng.integers(0, 7, d)
        included = rng.random((d, width)) < 0.8
        multiplier = rng.uniform(1.0, 2.0, d)
        cabin = rng.random(d) < 0.3
        for p in (DEFAULT, params):
            fused = duties_hazard(kss, report, off, sectors, included, multiplier, p,
                                  cabin_crew=cabin)  # fmt: skip
            parts = _hazard_by_parts(kss, report, off, sectors, included, multiplier, cabin, p)
            np.testing.assert_allclose(fused, parts, rtol=1e-12)


def test_fatigue_factor_is_the_mean_sleepiness_factor() -> None:
    """The run floor's fatigue factor: the hour-weighted mean of S over the exposure."""
    rng = np.random.default_rng(12)
    for width in (5, 13, 130):
        d = 60
        count = rng.integers(1, width + 1, d)
        kss = rng.uniform(1.0, 9.0, (d, width))
        kss[np.arange(width)[None, :] >= count[:, None]] = np.nan
        report = 20_000 * 24.0 + rng.uniform(0.0, 500.0, d)
        off = report + count * 0.25 - rng.uniform(0.0, 0.2, d)
        included = rng.random((d, width)) < 0.8
        included[0] = False  # no exposure: NaN
        terms = hazard_terms(kss, report, off, rng.integers(0, 5, d))
        _hours, length = interval_geometry(report, off, count, width)
        weight = np.where(included & ~np.isnan(kss), length, 0.0)
        total = weight.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = np.where(total > 0, np.nansum(terms.term * weight, axis=1) / total, np.nan)
        np.testing.assert_allclose(terms_fatigue_factor(terms, included), expected, rtol=1e-12)
        assert np.isnan(expected[0]) and np.isfinite(expected).sum() > d // 2


def test_pairwise_sum_adds_in_numpys_order() -> None:
    rng = np.random.default_rng(2)
    for n in (0, 1, 7, 8, 9, 127, 128, 129, 255, 256, 257, 1000, 2049):
        a = rng.uniform(-1.0, 1.0, n) * 10.0 ** rng.integers(-8, 8, n)
        assert pairwise_sum(a) == a.sum()


def test_cumulative_multiplier_reads_the_tables_by_run_position() -> None:
    rep = DAY0 + 24.0 * np.arange(7.0)[None, :]
    rep = np.vstack([rep, rep])
    rep[1, 6] = np.nan
    kind = np.array([[NIGHT] * 5 + [OTHER, EARLY], [EARLY] * 6 + [NIGHT]])
    m = cumulative_multiplier(rep, rep + 8.0, kind)
    night, early = DEFAULT.night_multiplier, DEFAULT.early_multiplier
    np.testing.assert_array_equal(m[0], [*night, night[-1], 1.0, early[0]])
    np.testing.assert_array_equal(m[1, :6], [*early, early[-1], early[-1]])
    assert np.isnan(m[1, 6])


def test_interval_geometry_is_bit_equal_to_its_array_statement() -> None:
    """The kernel equals the formula of contract §4 written with NumPy (NaN off included)."""
    rng = np.random.default_rng(5)
    d, width = 400, 70
    report = 20_000 * 24.0 + rng.uniform(0.0, 500.0, d)
    count = rng.integers(0, width + 3, d)
    off = report + count * 0.25 - rng.uniform(0.0, 0.25, d)
    off[::37] = np.nan
    hours, length = interval_geometry(report, off, count, width)
    k = np.arange(width)
    start = report[:, None] + 0.25 * k
    valid = k < count[:, None]
    np.testing.assert_array_equal(hours, np.where(valid, start - report[:, None], 0.0))
    expected = np.where(valid, np.minimum(start + 0.25, off[:, None]) - start, 0.0)
    np.testing.assert_array_equal(length, expected)
    assert np.isnan(length).any() and (length[valid] < 0.25).any()
