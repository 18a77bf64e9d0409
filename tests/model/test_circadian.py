"""C, U and body-clock re-entrainment (reference §2.2, §3)."""

from __future__ import annotations

import numpy as np

from vigil.model import (
    DEFAULT,
    INGRE2014_EXP,
    advance_phase,
    circadian_process,
    ultradian_process,
    wrap_offset,
)


def test_c_peaks_at_acrophase() -> None:
    # ref §2.2: C = 2.5·cos(2π(τ - 16.8)/24)
    assert float(circadian_process(16.8)) == 2.5
    assert abs(float(circadian_process(4.8)) + 2.5) < 1e-12


def test_u_troughs_at_13_8_and_01_8_body_time() -> None:
    # ref §2.2: U in [-1, 0] with troughs at 13.8 h and 01.8 h; 0.01 h grid -> tol 0.005 h
    tau = np.arange(0.0, 24.0, 0.01)
    u = ultradian_process(tau)
    assert u.min() >= -1.0 - 1e-12 and u.max() <= 1e-12
    half = tau.size // 2
    minima = [tau[np.argmin(u[:half])], tau[half + np.argmin(u[half:])]]
    assert np.allclose(minima, [1.8, 13.8], atol=0.005)
    assert np.allclose(ultradian_process(np.array([1.8, 13.8])), -1.0, atol=1e-12)


def test_wrap_offset_range() -> None:
    assert np.array_equal(
        wrap_offset(np.array([12.0, -12.0, 13.0, 24.0])), [12.0, 12.0, -11.0, 0.0]
    )


def test_rates_east_1_h_per_day_west_1_5_h_per_day() -> None:
    # ref §3: r_E = 1.0 h/day (advance), r_W = 1.5 h/day (delay) [Waterhouse 2007]
    assert abs(float(advance_phase(0.0, 6.0, 24.0)) - 1.0) < 1e-12
    assert abs(float(advance_phase(0.0, -6.0, 24.0)) + 1.5) < 1e-12
    # stops on arrival
    assert float(advance_phase(0.0, 2.0, 24.0 * 5)) == 2.0
    assert float(advance_phase(0.0, -2.0, 24.0 * 5)) == -2.0


def test_antidromic_rule_at_9_6_hours() -> None:
    # ref §3: 24·r_E/(r_E + r_W) = 9.6 h; beyond it delaying by 24 - Δ is faster
    assert abs(DEFAULT.antidromic_threshold - 9.6) < 1e-12
    assert float(advance_phase(0.0, 9.5, 24.0)) == 1.0  # advance
    assert abs(float(advance_phase(0.0, 9.7, 24.0)) + 1.5) < 1e-12  # delay instead
    # 10 h east is reached by delaying 14 h: after 14/1.5 days the body time matches θ
    days = 14.0 / 1.5
    phi = float(advance_phase(0.0, 10.0, 24.0 * days))
    assert abs(float(wrap_offset(phi)) - 10.0) < 1e-9


def test_two_day_layover_eight_zones_west_moves_about_3_hours() -> None:
    # ref §3 consequence: 2 days after crossing 8 zones west the clock has moved ~3 h
    phi = float(advance_phase(0.0, -8.0, 48.0))
    assert abs(phi + 3.0) < 1e-12


def test_exponential_preset_closes_30_percent_per_day() -> None:
    # ref §3 ingre2014_exp: each day closes 30 % of the remaining gap
    phi = float(advance_phase(0.0, 8.0, 24.0, INGRE2014_EXP))
    assert abs(phi - 0.3 * 8.0) < 1e-12
    phi2 = float(advance_phase(0.0, -8.0, 48.0, INGRE2014_EXP))
    assert abs(phi2 + 8.0 * (1 - 0.7**2)) < 1e-12
