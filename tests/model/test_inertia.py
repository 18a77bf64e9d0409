"""Sleep inertia W (reference §2.3)."""

from __future__ import annotations

import math

import numpy as np

from vigil.model import DEFAULT, TPM_DEFAULT, sleep_inertia


def test_time_constant_0_66_h() -> None:
    # ref §2.3: time constant -1/Wd = 0.66 h (printed to 2 decimals)
    assert abs(-1.0 / DEFAULT.wd - 0.66) < 0.005
    w0 = float(sleep_inertia(0.0))
    assert w0 == -5.72
    assert math.isclose(float(sleep_inertia(-1.0 / DEFAULT.wd)), w0 / math.e, rel_tol=1e-12)


def test_negligible_after_about_2_7_h() -> None:
    # ref §2.3: below 0.1 TPM unit after about 2.7 h (|W| = 0.1 at 2.68 h)
    assert abs(float(sleep_inertia(2.7))) < 0.1
    assert abs(float(sleep_inertia(2.6))) > 0.1


def test_short_sleep_scaling_is_a_default_choice_off_in_tpm() -> None:
    # ref §2.3 [C]: Wc·min(1, T/1.5 h); tpm_default has no [C] modification
    assert float(sleep_inertia(0.0, 0.5, DEFAULT)) == -5.72 / 3.0
    assert float(sleep_inertia(0.0, 0.5, TPM_DEFAULT)) == -5.72
    assert np.all(sleep_inertia(0.0, np.array([1.5, 8.0, np.inf])) == -5.72)
