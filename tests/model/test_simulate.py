"""The piecewise simulation: FIPS equivalence, batching, closed-form agreement, properties."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vigil.model import (
    DEFAULT,
    TPM_DEFAULT,
    CrewTimeline,
    advance_phase,
    circadian_process,
    final_kss,
    simulate,
    simulate_alertness,
    sleep_inertia,
    sleep_recovery,
    ultradian_process,
    wake_pressure,
    wrap_offset,
)

from .conftest import DAY0, habitual, one_person

# --------------------------------------------------------------------------------------
# FIPS reference: a straight-line, scalar, per-minute transcription of FIPS's published
# TPM definitions (humanfactors/FIPS, R/simulation_threeprocessmodel.R: TPM_make_pvec,
# TPM_Sfun, TPM_Spfun/Sp1fun/Sp2fun/breaktimefun, TPM_Wfun, TPM_Cfun, TPM_Ufun,
# TPM_simulate; R/data_sequencefunctions.R: time_in_status, shifted_time_status;
# R/data_sleeptimesformat.R: sleep rows run from sleep.start to sleep.end - epoch).
# Written from those definitions, independently of vigil.model.

FIPS = dict(
    la=2.4, ha=14.3, d=-0.0353, g=math.log((14.3 - 14) / (14.3 - 7.96)) / 8, bl=12.2,
    Cm=0.0, Ca=2.5, p=16.8, Um=-0.5, Ua=0.5, Wc=-5.72, Wd=-1.51, S0=7.96,
    KSS_intercept=10.6, KSS_beta=-0.6,
)  # fmt: skip


def _fips_tpm(start_h: float, n_minutes: int, sleeps: list[tuple[float, float]]):
    pv = FIPS
    epoch = 1.0  # minutes
    times = start_h + np.arange(n_minutes) / 60.0
    wake = np.array([not any(a <= t < b for a, b in sleeps) for t in times])
    # time_in_status: (position within run) * epoch/60; shifted_time_status: previous run
    status_duration = np.zeros(n_minutes)
    total_prev = np.zeros(n_minutes)
    change = np.zeros(n_minutes, dtype=bool)
    run = 0
    for i in range(n_minutes):
        if i > 0 and wake[i] != wake[i - 1]:
            change[i] = True
            total_prev[i] = run * epoch / 60.0
            run = 0
        status_duration[i] = run * epoch / 60.0
        run += 1
    out = np.zeros((5, n_minutes))  # s, c, u, w, kss
    s_at_wake = s_at_sleep = pv["S0"]
    for i in range(n_minutes):
        if i > 0 and change[i] and wake[i]:  # switch to Wake: TPM_Spfun
            ss, tas = s_at_sleep, total_prev[i]
            bt = (pv["bl"] - ss) / (pv["g"] * (pv["bl"] - pv["ha"]))
            if tas <= bt:
                s_at_wake = ss + tas * (pv["g"] * (pv["bl"] - pv["ha"]))
            else:
                s_at_wake = pv["ha"] - (pv["ha"] - pv["bl"]) * math.exp(pv["g"] * (tas - bt))
        if i > 0 and change[i] and not wake[i]:  # switch to Sleep: TPM_Sfun
            s_at_sleep = pv["la"] + (s_at_wake - pv["la"]) * math.exp(pv["d"] * total_prev[i])
        if wake[i]:
            s = pv["la"] + (s_at_wake - pv["la"]) * math.exp(pv["d"] * status_duration[i])
            w = pv["Wc"] * math.exp(pv["Wd"] * status_duration[i])
        else:
            ss, tas = s_at_sleep, status_duration[i]
            bt = (pv["bl"] - ss) / (pv["g"] * (pv["bl"] - pv["ha"]))
            if tas <= bt:
                s = ss + tas * (pv["g"] * (pv["bl"] - pv["ha"]))
            else:
                s = pv["ha"] - (pv["ha"] - pv["bl"]) * math.exp(pv["g"] * (tas - bt))
            w = 0.0
        tod = times[i] % 24.0  # as.decimaltime in a UTC time zone
        c = pv["Cm"] + pv["Ca"] * math.cos((2 * math.pi / 24) * (tod - pv["p"]))
        u = pv["Um"] + pv["Ua"] * math.cos((2 * math.pi / 12) * (tod - pv["p"] - 3))
        out[:, i] = s, c, u, w, pv["KSS_intercept"] + pv["KSS_beta"] * (s + c + u + w)
    return times, out


def test_tpm_default_reproduces_fips_to_1e_9() -> None:
    # ref §2.5 / §9.3: preset tpm_default equals FIPS's TPM, |error| <= 1e-9 on S, C, U, W
    # and KSS, fed the same (minute-aligned) sleep. Scenario (UTC, 4.5 days from 07:00):
    # normal nights, a 5 h short night, a 45-min nap 1 h after waking with S above the
    # break level (exercises FIPS's break-time form), a 20-min nap, a day sleep.
    sleeps = [
        (23.0, 31.0), (47.0, 52.0), (71.0, 79.0), (80.0, 80.75),
        (86.5, 86.0 + 50 / 60), (95.0, 103.0), (113.0, 118.5),
    ]  # fmt: skip
    start, minutes = 7.0, int(4.7 * 24 * 60)
    times, ref = _fips_tpm(start, minutes, sleeps)
    timeline = CrewTimeline(
        start=[start], s_start=[FIPS["S0"]], phase_start=[0.0],
        sleep_start=[[a for a, _ in sleeps]], sleep_end=[[b for _, b in sleeps]],
        sleep_quality=[[1.0] * len(sleeps)], zone_time=[[0.0]], zone_offset=[[0.0]],
    )  # fmt: skip
    state = simulate(timeline, times[None, :], TPM_DEFAULT)
    x = state.alertness[0]
    kss_ours = final_kss(x, 0.0, TPM_DEFAULT)
    assert np.max(np.abs(state.homeostatic[0] - ref[0])) <= 1e-9
    assert np.max(np.abs(state.circadian[0] - ref[1])) <= 1e-9
    assert np.max(np.abs(state.ultradian[0] - ref[2])) <= 1e-9
    assert np.max(np.abs(state.inertia[0] - ref[3])) <= 1e-9
    inside = (ref[4] >= 1.0) & (ref[4] <= 9.0)  # "wherever that lies in 1-9" (ref §2.5)
    assert inside.mean() > 0.9
    assert np.max(np.abs(kss_ours[inside] - ref[4][inside])) <= 1e-9
    # the above-break nap really took FIPS's branch (S at onset >= bl)
    onset = np.searchsorted(times, 80.0)
    assert ref[0][onset - 1] >= FIPS["bl"]


def test_default_differs_from_fips_only_through_its_choices() -> None:
    # Preset A: same S/C/U; inertia scaled after the 20-min nap; continuous above-break S.
    sleeps = [(23.0, 31.0), (40.0, 40.0 + 1 / 3)]
    timeline = one_person(sleeps, start=7.0, s_start=7.96)
    t = np.array([[30.0, 35.0, 40.0 + 1 / 3]])
    a, b = simulate(timeline, t, DEFAULT), simulate(timeline, t, TPM_DEFAULT)
    assert np.allclose(a.homeostatic[0, :2], b.homeostatic[0, :2], atol=1e-12)
    assert math.isclose(a.inertia[0, 2], -5.72 * (1 / 3) / 1.5, rel_tol=1e-12)
    assert b.inertia[0, 2] == -5.72


def test_matches_building_blocks_at_irregular_times_with_zone_change() -> None:
    # simulate == composing the elementwise closed forms (ref §2.1-2.3, §3), 1e-9
    s1 = (DAY0 + 23.0, DAY0 + 30.0)
    zone_t = DAY0 + 40.0
    timeline = one_person([s1], quality=[0.8], zones=[(DAY0, 0.0), (zone_t, -8.0)])
    t = np.array([DAY0 + 7.0, DAY0 + 12.3, DAY0 + 23.0, DAY0 + 26.1, DAY0 + 30.0, DAY0 + 33.7,
                  DAY0 + 41.0, DAY0 + 90.25])  # fmt: skip
    st_ = simulate(timeline, t[None, :], DEFAULT)
    s_onset = float(wake_pressure(13.82, 16.0))
    s_wake = float(sleep_recovery(s_onset, 7.0, 0.8))
    hours_awake = np.where(t < s1[0], t - (DAY0 + 7.0), t - s1[1])
    s_exp = np.where(
        t < s1[0],
        wake_pressure(13.82, hours_awake),
        np.where(
            t < s1[1], sleep_recovery(s_onset, t - s1[0], 0.8), wake_pressure(s_wake, hours_awake)
        ),
    )
    w_exp = np.where(
        (t >= s1[0]) & (t < s1[1]), 0.0,
        np.where(t < s1[0], sleep_inertia(hours_awake), sleep_inertia(hours_awake, 7.0)),
    )  # fmt: skip
    phi = np.where(t < zone_t, 0.0, advance_phase(0.0, -8.0, t - zone_t))
    tau = np.mod(t + phi, 24.0)
    assert np.allclose(st_.homeostatic[0], s_exp, atol=1e-9, rtol=0)
    assert np.allclose(st_.inertia[0], w_exp, atol=1e-9, rtol=0)
    assert np.allclose(st_.phase[0], wrap_offset(phi), atol=1e-9, rtol=0)
    assert np.allclose(st_.circadian[0], circadian_process(tau), atol=1e-9, rtol=0)
    assert np.allclose(st_.ultradian[0], ultradian_process(tau), atol=1e-9, rtol=0)
    assert list(st_.asleep[0]) == [False, False, True, True, False, False, False, False]


def _crew(seed: int, days: int) -> CrewTimeline:
    rng = np.random.default_rng(seed)
    sleeps = [(DAY0 + 23 + 24 * k + rng.uniform(-2, 3), 0.0) for k in range(days)]
    sleeps = [(a, a + rng.uniform(3, 9)) for a, _ in sleeps]
    zones = [(DAY0, 0.0)] + [(DAY0 + 24 * k + 12, float(rng.integers(-11, 12))) for k in (2, 5)]
    return one_person(
        sleeps, quality=list(rng.uniform(0.3, 1.0, days)), zones=zones[: 1 + seed % 3]
    )


def test_batch_equals_each_alone() -> None:
    # n crews simulated together == each simulated alone (padding must not leak)
    crews = [_crew(seed, days) for seed, days in ((0, 6), (1, 9), (2, 4))]
    grid = DAY0 + 7.0 + np.arange(0, 24 * 9, 1 / 12)
    alone = [simulate(c, grid[None, : 2000 + 500 * i], DEFAULT) for i, c in enumerate(crews)]
    m = max(c.sleep_start.shape[1] for c in crews)
    z = max(c.zone_time.shape[1] for c in crews)

    def pad(a: np.ndarray, w: int) -> np.ndarray:
        return np.pad(a, ((0, 0), (0, w - a.shape[1])), constant_values=np.nan)

    batch = CrewTimeline(
        start=np.concatenate([c.start for c in crews]),
        s_start=np.concatenate([c.s_start for c in crews]),
        phase_start=np.concatenate([c.phase_start for c in crews]),
        sleep_start=np.vstack([pad(c.sleep_start, m) for c in crews]),
        sleep_end=np.vstack([pad(c.sleep_end, m) for c in crews]),
        sleep_quality=np.vstack([pad(c.sleep_quality, m) for c in crews]),
        zone_time=np.vstack([pad(c.zone_time, z) for c in crews]),
        zone_offset=np.vstack([pad(c.zone_offset, z) for c in crews]),
    )
    samples = np.vstack([pad(grid[None, : 2000 + 500 * i], 3000) for i in range(3)])
    together = simulate(batch, samples, DEFAULT)
    x_only = simulate_alertness(batch, samples, DEFAULT)
    for i, single in enumerate(alone):
        k = single.homeostatic.shape[1]
        for field in ("homeostatic", "circadian", "ultradian", "inertia", "phase", "asleep"):
            assert np.array_equal(getattr(together, field)[i, :k], getattr(single, field)[0])
        assert np.all(np.isnan(together.homeostatic[i, k:]))
        assert np.allclose(x_only[i, :k], single.alertness[0], atol=1e-12, rtol=0)


def test_uniform_grid_recurrence_equals_pointwise_closed_form() -> None:
    # the kernel's multiplicative recurrences on a uniform grid vs evaluating each sample
    # alone (direct exp/cos). At epoch hours ~4.8e5 a sample time carries ±5.8e-11 h of
    # rounding, so a measured step is off by up to ~1.2e-10 h and drifts for up to
    # _RESYNC = 32 steps: bound 32 · 1.2e-10 h · max|dX/dt| (≈ 1.5/h) ≈ 6e-9. Tolerance 1e-8.
    # (Near epoch 0, as in the FIPS test, the same code agrees to 1e-9.)
    crew = _crew(4, 8)
    grid = DAY0 + 7.0 + np.arange(0, 24 * 8, 1 / 60)[None, :]
    x_grid = simulate_alertness(crew, grid, DEFAULT)[0]
    n = 600
    pick = np.linspace(0, grid.shape[1] - 1, n).astype(int)
    rows = CrewTimeline(*(np.repeat(getattr(crew, f), n, axis=0) for f in CrewTimeline.__slots__))
    x_alone = simulate_alertness(rows, grid[0, pick][:, None], DEFAULT)[:, 0]
    assert np.max(np.abs(x_grid[pick] - x_alone)) <= 1e-8


def test_samples_before_start_and_padding_are_nan() -> None:
    st_ = simulate(one_person([]), np.array([[DAY0, DAY0 + 8.0, np.nan]]), DEFAULT)
    assert np.isnan(st_.homeostatic[0, 0]) and np.isnan(st_.phase[0, 2])
    assert st_.homeostatic[0, 1] == pytest.approx(float(wake_pressure(13.82, 1.0)), abs=1e-12)


@pytest.mark.parametrize(
    "change",
    [
        dict(sleep_end=[[DAY0 + 20.0]]),  # ends before it starts
        dict(sleep_quality=[[1.5]]),
        dict(zone_time=[[DAY0 + 100.0]]),  # first zone after start
        dict(s_start=[1.0, 2.0]),
    ],
)
def test_invalid_timelines_are_rejected(change: dict[str, object]) -> None:
    base = one_person([(DAY0 + 23.0, DAY0 + 31.0)])
    fields = {f: getattr(base, f) for f in CrewTimeline.__slots__}
    fields.update(change)
    with pytest.raises(ValueError):
        CrewTimeline(**fields)


@settings(max_examples=60, deadline=None)
@given(
    extra=st.floats(0.05, 6.0),
    later=st.floats(1.0, 30.0),
    preset=st.sampled_from(["ingre2014_5c", "tpm_default"]),
)
def test_more_time_awake_is_never_less_fatigued(extra: float, later: float, preset: str) -> None:
    # Same wake-up time; B stayed awake `extra` h longer before that sleep (went to bed
    # later). At every clock time afterwards B is at least as fatigued (higher KSS).
    from vigil.model import PRESETS

    params = PRESETS[preset]
    wake = DAY0 + 31.0
    a = one_person(habitual(1)[:0] + [(DAY0 + 22.0, wake)])
    b = one_person([(DAY0 + 22.0 + extra, wake)])
    t = np.array([[wake + later]])
    ka = final_kss(simulate_alertness(a, t, params), 0.0, params)
    kb = final_kss(simulate_alertness(b, t, params), 0.0, params)
    assert kb[0, 0] >= ka[0, 0] - 1e-12


@settings(max_examples=60, deadline=None)
@given(
    onset=st.floats(0.0, 20.0),
    length=st.floats(0.3, 12.0),
    quality=st.floats(0.05, 1.0),
)
def test_sleep_restores_in_simulation(onset: float, length: float, quality: float) -> None:
    # S rises monotonically through every sleep episode (ref §2.1)
    a = DAY0 + 12.0 + onset
    tl = one_person([(a, a + length)], quality=[quality])
    t = a + np.linspace(0.0, length, 50, endpoint=False)[None, :]
    s = simulate(tl, t, DEFAULT).homeostatic[0]
    assert np.all(np.diff(s) >= -1e-12)
    assert s[-1] > s[0]


def test_inertia_off_switch() -> None:
    no_w = replace(DEFAULT, inertia=False)
    st_ = simulate(one_person([]), np.array([[DAY0 + 7.0]]), no_w)
    assert st_.inertia[0, 0] == 0.0


def _numpy_rule(start: np.ndarray, t: CrewTimeline) -> str | None:
    """The first broken sleep or zone rule of ``t``, by whole-array NumPy tests (the
    statement the Numba checks replaced), in the order :class:`CrewTimeline` checks them."""
    s, e, q = t.sleep_start, t.sleep_end, t.sleep_quality
    zt, zo = t.zone_time, t.zone_offset
    given, zone = np.isfinite(s), np.isfinite(zt)
    rules = [
        (given != np.isfinite(e), "sleep_start and sleep_end must be NaN in the same places"),
        (given[:, 1:] & ~given[:, :-1], "sleep episodes must be NaN-padded on the right only"),
        (given & ~((q > 0.0) & (q <= 1.0)), "sleep_quality must be in (0, 1] for every episode"),
        (given & ~(e > s), "every sleep must end after it starts"),
        (given & (s < start[:, None]), "sleep episodes must start at or after `start`"),
        (
            given[:, 1:] & (s[:, 1:] < e[:, :-1]),
            "sleep episodes must be sorted and non-overlapping",
        ),
        (zone != np.isfinite(zo), "zone_time and zone_offset must be NaN in the same places"),
        (~zone[:, 0] | (zt[:, 0] > start), "zone_time[:, 0] must be finite and <= start"),
        (zone[:, 1:] & ~zone[:, :-1], "zones must be NaN-padded on the right only"),
        (zone[:, 1:] & (zt[:, 1:] < zt[:, :-1]), "zone_time must be sorted"),
    ]
    return next((message for broken, message in rules if broken.any()), None)


def test_timeline_checks_give_the_first_broken_rule() -> None:
    """Each of 3,000 timelines with random faults gets the error of the first rule it
    breaks (the same text as the array statement), or none; every rule is reached."""
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(3000):
        n, m, z = rng.integers(1, 4), rng.integers(0, 5), rng.integers(1, 4)
        start = DAY0 + rng.uniform(0.0, 2.0, n)
        s = DAY0 + 3.0 + np.cumsum(rng.uniform(4.0, 20.0, (n, m)), axis=1)
        e = s + rng.uniform(0.5, 9.0, (n, m))
        q = rng.uniform(0.5, 1.0, (n, m))
        zt = DAY0 - 1.0 + np.cumsum(rng.uniform(0.0, 30.0, (n, z)), axis=1)
        zt[:, 0] = DAY0 - 1.0
        zo = rng.uniform(-5.0, 5.0, (n, z))
        for a in (s, e, q, zt, zo):  # a fault here and there: NaN, moved or scaled
            if a.size and rng.random() < 0.35:
                i, j = rng.integers(0, a.shape[0]), rng.integers(0, a.shape[1])
                a[i, j] = rng.choice([np.nan, a[i, j] - 30.0, a[i, j] * 2.0, 0.0])
        for group in ((s, e, q), (zt, zo)):  # a hole: one whole entry NaN
            if group[0].size and rng.random() < 0.1:
                i, j = rng.integers(0, group[0].shape[0]), rng.integers(0, group[0].shape[1])
                for a in group:
                    a[i, j] = np.nan
        pad, zone_pad = rng.integers(0, m + 1), rng.integers(0, z)  # NaN padding, right
        if pad:
            s[:, -pad:], e[:, -pad:], q[:, -pad:] = np.nan, np.nan, np.nan
        if zone_pad:
            zt[:, -zone_pad:], zo[:, -zone_pad:] = np.nan, np.nan
        fields = dict(
            start=start, s_start=np.full(n, 13.8), phase_start=np.zeros(n),
            sleep_start=s, sleep_end=e, sleep_quality=q, zone_time=zt, zone_offset=zo,
        )  # fmt: skip
        probe = object.__new__(CrewTimeline)
        for name, value in fields.items():
            object.__setattr__(probe, name, value)
        expected = _numpy_rule(start, probe)
        try:
            CrewTimeline(**fields)
            got = None
        except ValueError as error:
            got = str(error)
        assert got == expected
        seen.add(expected)
    assert len(seen) == 11  # no error, and each of the ten rules
