"""Output scales (reference §2.6) and interval means (contract §4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil.model import DEFAULT, PRESETS, SCALE_INFO, SCALES, interval_means
from vigil.model.parameters import replace_kp_threshold

# ref §2.6 "Reference values (preset A)": KSS, SP, KP>=8, KP>=7, VD, CRD, PMR
TABLE = [
    (3, 2.50, 0.4, 1.2, 0.0, 0.0, 1.0),
    (4, 3.25, 1.3, 4.3, 1.3, 0.8, 2.0),
    (5, 4.00, 4.5, 14.3, 9.9, 6.4, 6.2),
    (6, 4.75, 14.9, 37.9, 18.5, 12.0, 10.5),
    (7, 5.50, 39.2, 69.2, 27.1, 17.6, 14.7),
    (8, 6.25, 70.3, 89.2, 35.7, 23.2, 18.9),
    (9, 7.00, 89.7, 96.8, 44.3, 28.8, 23.1),
]


@pytest.mark.parametrize("row", TABLE)
def test_reference_table_to_printed_decimals(row: tuple[float, ...]) -> None:
    # ref §2.6 table, printed to 2 (SP) or 1 decimal: tolerance half a unit of the last digit
    # (+1e-9: PMR at KSS 9 is exactly 23.05, printed 23.1 by round-half-up)
    k, sp, kp8, kp7, vd, crd, pmr = row
    kss = np.array([float(k)])
    assert abs(SCALES["SP"](kss, DEFAULT)[0] - sp) <= 0.005 + 1e-9
    assert abs(SCALES["KP"](kss, DEFAULT)[0] - kp8) <= 0.05 + 1e-9
    kp7_params = replace_kp_threshold(DEFAULT, 7)
    assert abs(SCALES["KP"](kss, kp7_params)[0] - kp7) <= 0.05 + 1e-9
    assert abs(SCALES["VD"](kss, DEFAULT)[0] - vd) <= 0.05 + 1e-9
    assert abs(SCALES["CRD"](kss, DEFAULT)[0] - crd) <= 0.05 + 1e-9
    assert abs(SCALES["PMR"](kss, DEFAULT)[0] - pmr) <= 0.05 + 1e-9
    assert SCALES["KSS"](kss, DEFAULT)[0] == k


def test_scale_keys_are_the_seed_values() -> None:
    assert set(SCALES) == {"SP", "KSS", "KP", "VD", "CRD", "PMR"} == set(SCALE_INFO)


@settings(max_examples=200, deadline=None)
@given(
    a=st.floats(-5.0, 15.0, allow_nan=False),
    b=st.floats(-5.0, 15.0, allow_nan=False),
    preset=st.sampled_from(sorted(PRESETS)),
)
def test_scales_in_range_and_monotone_in_kss(a: float, b: float, preset: str) -> None:
    # contract §4 ranges; higher always more fatigued (all scales agree in direction)
    params = PRESETS[preset]
    lo, hi = min(a, b), max(a, b)
    for name, fn in SCALES.items():
        info = SCALE_INFO[name]
        v_lo, v_hi = fn(np.array([lo]), params)[0], fn(np.array([hi]), params)[0]
        assert info.low <= v_lo <= info.high and info.low <= v_hi <= info.high
        assert v_hi >= v_lo


def test_interval_means_ignore_padding() -> None:
    v = np.array([[1.0] * 15 + [2.0, 4.0] + [np.nan] * 13, [np.nan] * 30])
    out = interval_means(v)
    assert out.shape == (2, 2)
    assert out[0, 0] == 1.0 and out[0, 1] == 3.0
    assert np.all(np.isnan(out[1]))
    assert np.array_equal(interval_means(v.reshape(2, 2, 15)), out, equal_nan=True)
    with pytest.raises(ValueError):
        interval_means(np.zeros((1, 7)))


def test_every_scale_passes_nan_padding_through_silently() -> None:
    # the scoring layer pads a short last interval with NaN (contract §4 interval means)
    import warnings

    kss = np.array([[3.0, np.nan, 8.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, scale in SCALES.items():
            values = scale(kss, DEFAULT)
            assert np.isnan(values[0, 1]), name
            assert np.isfinite(values[0, [0, 2]]).all(), name


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_errors_react_more_than_response_time(preset: str) -> None:
    # Belyavin & Spencer 2004 (Aviat Space Environ Med 75:A93): fatigue has "a larger
    # impact on the incidence of errors than on response time". Compared as the change
    # from the rested state (PMR over its 1 % floor; response time 1/(1 - VD/100), since
    # VD is the loss of response speed), errors rise more at every KSS above rest, and
    # by an order of magnitude at the KSS 7 warning level (kept).
    params = PRESETS[preset]
    kss = np.linspace(3.0, 9.0, 61)[None, :]
    errors = SCALES["PMR"](kss, params)[0] / params.pmr_floor
    response_time = 1.0 / (1.0 - SCALES["VD"](kss, params)[0] / 100.0)
    assert np.all(errors >= response_time)
    at7 = int(np.argmin(np.abs(kss[0] - 7.0)))
    assert errors[at7] > 10.0 * (response_time[at7] - 1.0) + 1.0
