"""S closed forms against the published invariants of reference §2.1 and §9.4."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil.model import DEFAULT, TPM_DEFAULT, sleep_recovery, steady_state_at_waking, wake_pressure


def test_r_lin_is_published_value() -> None:
    # ref §2.1: g = ln((14.3-14)/(14.3-7.96))/8 (FIPS TPM_make_pvec) and r_lin = g·(bl - ha).
    # The formula gives g = -0.381356 and r_lin = 0.800849; the reference prints -0.381345
    # and 0.80082, which follow from a g rounded in the 5th decimal. We keep the formula
    # (FIPS computes it), so the printed values hold to 3e-5 (relative 4e-5).
    assert math.isclose(DEFAULT.g, math.log(0.3 / 6.34) / 8.0, rel_tol=0, abs_tol=1e-15)
    assert math.isclose(DEFAULT.r_lin, 0.80082, abs_tol=3e-5)
    assert math.isclose(DEFAULT.g, -0.381345, abs_tol=1.5e-5)


def test_habitual_steady_state_13_82_at_waking_and_8_89_at_23h() -> None:
    # ref §2.1 invariant: 23:00-07:00 sleep gives S = 13.82 at waking, 8.89 at 23:00
    # (printed to 2 decimals -> tolerance 0.005)
    s_wake = steady_state_at_waking(16.0, 8.0, DEFAULT)
    assert abs(s_wake - 13.82) < 0.005
    assert abs(float(wake_pressure(s_wake, 16.0)) - 8.89) < 0.005


def _days_to_converge(s0: float) -> int:
    """Days (8 h sleep from 23:00 + 16 h wake) until S at 23:00 is within 0.01 of steady."""
    target = float(wake_pressure(steady_state_at_waking(), 16.0))  # 8.89 at 23:00
    s = s0
    for day in range(1, 30):
        s = float(wake_pressure(sleep_recovery(s, 8.0), 16.0))
        if abs(s - target) < 0.01:
            return day
    return 99


def test_convergence_times_3_days_from_7_96_and_5_from_2_4() -> None:
    # ref §2.1 / §9.4: within 0.01 of the steady state after 3 days from S = 7.96 and 5 days
    # from the worst case 2.4. S0 is taken at sleep onset (23:00): 7.96 is the onset value
    # the TPM's g is built on (8 h from 7.96 reaches 14). Whole days, so the count is exact.
    assert _days_to_converge(7.96) == 3
    assert _days_to_converge(2.4) == 5


def test_steady_state_start_stays_within_0_01() -> None:
    # ref §9.4: starting at 13.82, S stays within 0.01 of the steady state
    s = 13.82
    for _ in range(10):
        s = float(sleep_recovery(wake_pressure(s, 16.0), 8.0))
        assert abs(s - steady_state_at_waking()) < 0.01


def test_linear_then_exponential_is_continuous_at_break() -> None:
    s0 = 6.0
    tau_b = (DEFAULT.bl - s0) / DEFAULT.r_lin
    below = sleep_recovery(s0, tau_b - 1e-9)
    above = sleep_recovery(s0, tau_b + 1e-9)
    assert abs(float(below) - DEFAULT.bl) < 1e-8 and abs(float(above) - DEFAULT.bl) < 1e-8


def test_quality_scales_sleep_time() -> None:
    # ref §2.1: τ = q·t, so 2 h at q = 0.5 restores like 1 h at q = 1
    assert float(sleep_recovery(7.0, 2.0, 0.5)) == float(sleep_recovery(7.0, 1.0, 1.0))


def test_above_break_forms_differ_only_in_preset() -> None:
    # DEFAULT: continuous S = ha - (ha - S_s)exp(gτ) (S(0) = S_s); FIPS form starts lower.
    assert float(sleep_recovery(13.0, 0.0, 1.0, DEFAULT)) == 13.0
    fips0 = float(sleep_recovery(13.0, 0.0, 1.0, TPM_DEFAULT))
    x = (13.0 - 12.2) / (14.3 - 12.2)
    assert math.isclose(fips0, 14.3 - 2.1 * math.exp(-x), rel_tol=1e-12)


def test_scalar_and_array_inputs_broadcast() -> None:
    out = wake_pressure(np.array([[13.82], [10.0]]), np.array([0.0, 1.0, 2.0]))
    assert out.shape == (2, 3)
    assert out[0, 0] == 13.82


@settings(max_examples=150, deadline=None)
@given(
    s0=st.floats(2.4, 14.3),
    t=st.floats(0.0, 12.0),
    dt=st.floats(0.01, 5.0),
    q=st.floats(0.05, 1.0),
)
def test_sleep_restores_and_wake_depletes(s0: float, t: float, dt: float, q: float) -> None:
    # S never falls during sleep and never rises during wake (ref §2.1)
    for params in (DEFAULT, TPM_DEFAULT):
        assert sleep_recovery(s0, t + dt, q, params) >= sleep_recovery(s0, t, q, params) - 1e-12
    assert wake_pressure(s0, t + dt) <= wake_pressure(s0, t) + 1e-12
