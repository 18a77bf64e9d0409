"""Workload term ΔKSS_wl (reference §6)."""

from __future__ import annotations

import numpy as np

from vigil.model import DEFAULT, sector_times, sectors_started, workload_kss, workload_multiplier


def test_sector_timing_evenly_spaced_in_flight_period() -> None:
    # ref §6: flight period [report + 60 min, off - 30 min]; 4 sectors over 10:00-19:30
    to, ld = sector_times([9.0], [20.0], [4])
    assert np.allclose(to[0], [10.0, 12.375, 14.75, 17.125])
    assert np.allclose(ld[0], [12.375, 14.75, 17.125, 19.5])


def test_term_values_multiplier_cap_reset_and_rest() -> None:
    t = np.array([[9.5, 10.0, 12.5, 15.0, 17.5, 19.9, 20.0]])
    wl = workload_kss(t, [9.0], [20.0], [4], [0.0])
    # n_started = 0, 1, 2, 3, 4, 4 -> 0.4·max(0, n-1); after off: 0 (reset)
    assert np.allclose(wl[0], [0.0, 0.0, 0.4, 0.8, 1.2, 1.2, 0.0])
    # ref §6 formula min(2.0, b_s·max(0, n - 1))·m caps before m: 1.2·2 = 2.4
    assert np.allclose(workload_kss(t, [9.0], [20.0], [4], [100.0])[0, 4], 2.4)
    assert workload_multiplier(-50.0) == 0.5 and workload_multiplier(np.nan) == 1.0
    # own rest 15:00-16:00: half the value at rest start (0.8), frozen
    rest = workload_kss(np.array([[15.5, 16.5]]), [9.0], [20.0], [4], [0.0], [[15.0]], [[16.0]])
    assert np.allclose(rest[0], [0.4, 0.8])


def test_zero_sector_form_ramps_with_duty_time() -> None:
    # ref §6: Sectors = 0, w = 20 -> n_eq = 4 -> 1.2 KSS reached at the end of the duty
    t = np.array([[0.0, 5.0, 9.999]])
    wl = workload_kss(t, [0.0], [10.0], [0], [20.0])
    assert np.allclose(wl[0], [0.0, 0.6, 1.2], atol=1e-3)
    assert np.all(workload_kss(t, [0.0], [10.0], [0], [0.0]) == 0.0)  # "no activity"


def test_one_sector_standard_workload_is_zero() -> None:
    # ref §2.5: the term is zero for one sector at standard workload (FIPS equivalence)
    t = np.linspace(8.0, 18.0, 50)[None, :]
    assert np.all(workload_kss(t, [8.0], [18.0], [1], [0.0], params=DEFAULT) == 0.0)
    assert sectors_started(t, [8.0], [18.0], [1]).max() == 1.0


def test_compiled_pass_equals_the_numpy_statement() -> None:
    # workload_kss_fast is the scoring layer's hot path; reference §6 is workload_kss
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from vigil.model import workload_kss_fast

    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(0, 6),
        st.floats(-50.0, 100.0),
        st.floats(0.5, 20.0),
        st.booleans(),
        st.integers(0, 2**32 - 1),
    )
    def check(sectors: int, workload: float, length: float, rest: bool, seed: int) -> None:
        rng = np.random.default_rng(seed)
        t = np.sort(rng.uniform(-1.0, length + 1.0, size=(1, 40)), axis=1)
        t[0, -3:] = np.nan
        args: tuple[object, ...] = (t, [0.0], [length], [sectors], [workload])
        if rest:
            a = rng.uniform(0.0, length)
            args = (*args, [[a]], [[min(length, a + 1.5)]])
        expected = workload_kss(*args)  # type: ignore[arg-type]
        got = workload_kss_fast(*args)  # type: ignore[arg-type]
        assert np.allclose(got, expected, equal_nan=True, atol=1e-12)

    check()
