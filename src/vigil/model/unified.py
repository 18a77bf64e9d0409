"""The Unified Model of Performance (UMP): PVT lapses with a slow (allostatic) sleep debt.

The UMP extends the two-process model with a lower asymptote L of the homeostatic
process S that moves slowly (time constant τ_LA = 4.06 days): it rises toward U while
awake and falls toward -2U while asleep, so it is the running balance of recent wake and
sleep, zero near 16 h of wake per 8 h of sleep. S rises toward U while awake and falls
toward L while asleep; the prediction is PVT lapses, ``P = S + κ·C`` [1]_ [2]_. After days
of short sleep L is high, so S starts every day higher: lapses keep rising over a week of
restriction and take days to come back ([2]_, Belenky et al. 2003 data).

Equations ([1]_ eqs. for wake and sleep, in the closed forms FIPS prints [3]_), with
``t`` the time since the start of the current wake or sleep and (S₀, L₀) their values then:

- awake: ``S = U - (U - S₀)·e^{-t/τ_w}``, ``L = U - (U - L₀)·e^{-t/τ_LA}``;
- asleep: ``L = (L₀ + 2U)·e^{-t/τ_LA} - 2U``,
  ``S = S₀·e^{-t/τ_s} - 2U·(1 - e^{-t/τ_s}) + B·(e^{-t/τ_LA} - e^{-t/τ_s})``,
  ``B = (L₀ + 2U)·τ_LA/(τ_LA - τ_s)``, the solution of ``dS/dt = (L - S)/τ_s``;
- ``C(τ) = Σ_{i=1..5} a_i·sin(2πi(τ + φ)/24)`` at body-clock time τ (ref §3: local time at
  home, the body clock's time after a time-zone change), a = 0.97, 0.22, 0.07, 0.03, 0.0001;
- lapses ``P = S + κ·C`` (10-min PVT lapses, RT > 500 ms).

Parameters (Ramakrishnan et al. 2016 [2]_, as FIPS ``unified_make_pvec`` [3]_): U = 24.12,
τ_w = 40 h, τ_s = 1 h, τ_LA = 4.06 d, κ = 4.13, φ = 2.02 h. Sleep of quality q < 1 (in-flight
rest, ref §5.2) runs the sleep equations on the effective time ``q·t``, as S of the
Three-Process Model does (ref §2.1) [C]; with q = 1 (every sleep a caller gives) the
published equations are unchanged. At ``timeline.start`` (S, L) is the periodic steady
state of the habitual 16 h awake / 8 h asleep of the warm-up (ref §9.4) [C].

McCauley et al. 2013 [4]_ put the same idea into the Washington State University model
(an allostatic variable that builds over days of restriction and modulates the circadian
amplitude); this module implements the UMP's published form, whose native output is lapses.

References
----------
.. [1] Rajdev P, Thorsley D, Rajaraman S, Rupp TL, Wesensten NJ, Balkin TJ, Reifman J
   (2013). A unified mathematical model to quantify performance impairment for both chronic
   sleep restriction and total sleep deprivation. J Theor Biol 331:66-77.
   doi:10.1016/j.jtbi.2013.04.013
.. [2] Ramakrishnan S, Wesensten NJ, Balkin TJ, Reifman J (2016). A unified model of
   performance: validation of its predictions across different sleep/wake schedules. Sleep
   39(1):249-262. doi:10.5665/sleep.5358 (the caffeine extension: Ramakrishnan S et al.
   2016, Sleep 39(10):1827-1841)
.. [3] Wilson MK, Strickland L, Ballard T (2020). FIPS: an R package for biomathematical
   modelling of human fatigue related impairment. JOSS 5(51):2340; humanfactors/FIPS
   ``R/simulation_unifiedfatiguemodel.R`` (``unified_Sfun``, ``unified_Spfun``,
   ``unified_Lfun``, ``unified_Lpfun``, ``unified_Cfun``, ``lapses = s + kappa·c``).
.. [4] McCauley P, Kalachev LV, Mollicone DJ, Banks S, Dinges DF, Van Dongen HPA (2013).
   Dynamic circadian modulation in a biomathematical model for the effects of sleep and
   sleep loss on waking neurobehavioral performance. Sleep 36(12):1987-1997.
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numba as nb
import numpy as np

from ._arrays import BoolArray, FloatArray, IntArray, Numeric, as_2d, as_float
from ._kernels import Consts, phase_at, phase_plan
from .parameters import UNIFIED, Parameters
from .timeline import CrewTimeline, Inputs, Zone
from .timeline import carry_zone as _carry_zone

__all__ = [
    "UnifiedState",
    "debt_offset",
    "ump_circadian",
    "ump_sleep",
    "ump_steady_state",
    "ump_wake",
    "unified_samples",
    "simulate_unified",
]

_OMEGA = 2.0 * math.pi / 24.0

#: The UMP constants the kernel reads.
Ump = namedtuple(
    "Ump", ["u", "tau_w", "tau_s", "tau_la", "kappa", "phase", "a1", "a2", "a3", "a4", "a5"]
)


def ump_constants(params: Parameters) -> Ump:
    """The UMP constants of ``params`` for the kernels."""
    a = tuple(float(x) for x in params.ump_harmonics)
    return Ump(
        float(params.ump_upper), float(params.ump_tau_w), float(params.ump_tau_s),
        float(params.ump_tau_la), float(params.ump_kappa), float(params.ump_phase), *a,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------
# NumPy closed forms (the equations of the module docstring).


def ump_wake(
    s0: Numeric, l0: Numeric, hours: Numeric, params: Parameters = UNIFIED
) -> tuple[FloatArray, FloatArray]:
    """(S, L) after ``hours`` awake from (``s0``, ``l0``) [lapses] ([1]_; FIPS
    ``unified_Sfun``, ``unified_Lfun``)."""
    u, t = params.ump_upper, as_float(hours)
    s = u - (u - as_float(s0)) * np.exp(-t / params.ump_tau_w)
    lo = u - (u - as_float(l0)) * np.exp(-t / params.ump_tau_la)
    return s, lo


def ump_sleep(
    s0: Numeric, l0: Numeric, hours: Numeric, quality: Numeric = 1.0, params: Parameters = UNIFIED
) -> tuple[FloatArray, FloatArray]:
    """(S, L) after ``hours`` asleep with quality ``quality`` (effective time q·t) from
    (``s0``, ``l0``) [lapses] ([1]_; FIPS ``unified_Spfun``, ``unified_Lpfun``)."""
    u, ts, tl = params.ump_upper, params.ump_tau_s, params.ump_tau_la
    tau = as_float(quality) * as_float(hours)
    l0 = as_float(l0)
    e_s, e_l = np.exp(-tau / ts), np.exp(-tau / tl)
    b = (l0 + 2.0 * u) * tl / (tl - ts)
    s = as_float(s0) * e_s - 2.0 * u * (1.0 - e_s) + b * (e_l - e_s)
    return s, (l0 + 2.0 * u) * e_l - 2.0 * u


def ump_circadian(body_time: Numeric, params: Parameters = UNIFIED) -> FloatArray:
    """C at body-clock time ``body_time`` [h]: ``Σ a_i·sin(2πi(τ + φ)/24)`` ([1]_; FIPS
    ``unified_Cfun``)."""
    angle = _OMEGA * (as_float(body_time) + params.ump_phase)
    c = np.zeros_like(angle)
    for i, a in enumerate(params.ump_harmonics, start=1):
        c = c + a * np.sin(i * angle)
    return c


def ump_steady_state(params: Parameters = UNIFIED) -> tuple[float, float]:
    """(S, L) at waking in the periodic steady state of ``params.ump_habitual`` (wake, sleep
    hours a day): the fixed point of the affine day map, solved exactly."""
    wake, sleep = params.ump_habitual

    def day(s: float, lo: float) -> tuple[float, float]:
        sw, lw = ump_wake(s, lo, wake, params)
        ss, ls = ump_sleep(sw, lw, sleep, 1.0, params)
        return float(ss), float(ls)

    b = np.array(day(0.0, 0.0))
    a = np.column_stack([np.array(day(1.0, 0.0)) - b, np.array(day(0.0, 1.0)) - b])
    s, lo = np.linalg.solve(np.eye(2) - a, b)
    return float(s), float(lo)


def debt_offset(debt: Numeric, params: Parameters) -> FloatArray:
    """The slow term of X for the Three-Process presets: ``-λ·(L_w - L_ss)/U`` [TPM units].

    ``L_w`` is the UMP's L at the last waking (:attr:`UnifiedState.debt`, the debt carried
    into the day; within a day S already carries time awake) and ``L_ss`` its value in the
    habitual steady state, so habitual sleepers keep their Three-Process X exactly;
    λ = ``params.slow_weight`` (docs/model.md).
    """
    _, l_ss = ump_steady_state(params)
    offset: FloatArray = -params.slow_weight * (as_float(debt) - l_ss) / params.ump_upper
    return offset


# ---------------------------------------------------------------------------------------
# Numba kernel: the same equations, walked across each crew member's sleep/wake boundaries.


@nb.njit(cache=True, inline="always")
def _wake(u: Ump, s0: float, l0: float, t: float) -> tuple[float, float]:
    s = u.u - (u.u - s0) * math.exp(-t / u.tau_w)
    lo = u.u - (u.u - l0) * math.exp(-t / u.tau_la)
    return s, lo


@nb.njit(cache=True, inline="always")
def _sleep(u: Ump, s0: float, l0: float, tau: float) -> tuple[float, float]:
    e_s = math.exp(-tau / u.tau_s)
    e_l = math.exp(-tau / u.tau_la)
    b = (l0 + 2.0 * u.u) * u.tau_la / (u.tau_la - u.tau_s)
    s = s0 * e_s - 2.0 * u.u * (1.0 - e_s) + b * (e_l - e_s)
    return s, (l0 + 2.0 * u.u) * e_l - 2.0 * u.u


@nb.njit(cache=True, inline="always")
def _circ(u: Ump, body: float) -> float:
    """Σ a_i·sin(i·x), x = ω(τ + φ), with sin(i·x) from sin x and cos x by the recurrence
    sin(kx) = 2cos(x)·sin((k-1)x) - sin((k-2)x) (one sine and one cosine per sample)."""
    x = _OMEGA * (body + u.phase)
    s1, c1 = math.sin(x), math.cos(x)
    s2 = 2.0 * c1 * s1
    s3 = 2.0 * c1 * s2 - s1
    s4 = 2.0 * c1 * s3 - s2
    s5 = 2.0 * c1 * s4 - s3
    c: float = u.a1 * s1 + u.a2 * s2 + u.a3 * s3 + u.a4 * s4 + u.a5 * s5
    return c


#: Outputs of the kernel: S, L, C, L at the last waking and the sleep flag at each sample.
_Out = namedtuple("_Out", ["s", "lo", "c", "lw", "asleep"])


@nb.njit(cache=True)
def _crew(
    k: Consts, u: Ump, inp: Inputs, i: int, row: int, lo: int, hi: int,
    s_init: float, l_init: float, out: _Out,
) -> None:  # fmt: skip
    """Crew member ``i``'s samples ``inp.samples[row, lo:hi]`` (ascending, NaN skipped):
    carry (S, L) across each sleep boundary, then evaluate each sample in closed form."""
    t0 = inp.start[i]
    m = inp.sleep_start.shape[1]
    seg_t, seg_s, seg_l, asleep, q, j = t0, s_init, l_init, False, 1.0, 0
    l_wake = l_init  # L at the last waking: the debt carried into the day
    zi = 0
    while zi + 1 < inp.zone_time.shape[1] and inp.zone_time[i, zi + 1] <= t0:
        zi += 1
    move, rate = phase_plan(k, inp.phase_start[i], inp.zone_offset[i, zi])
    z = Zone(zi, t0, inp.phase_start[i], move, rate)
    for c in range(lo, hi):
        t = inp.samples[row, c]
        if not (t >= t0):  # NaN or before start
            out.s[row, c], out.lo[row, c], out.c[row, c] = np.nan, np.nan, np.nan
            out.lw[row, c], out.asleep[row, c] = np.nan, False
            continue
        while True:  # every sleep/wake boundary at or before t
            if not asleep:
                ts = inp.sleep_start[i, j] if j < m else np.nan
                if not ts <= t:
                    break
                seg_s, seg_l = _wake(u, seg_s, seg_l, ts - seg_t)
                seg_t, asleep, q = ts, True, inp.sleep_quality[i, j]
            else:
                te = inp.sleep_end[i, j]
                if not te <= t:
                    break
                seg_s, seg_l = _sleep(u, seg_s, seg_l, q * (te - seg_t))
                seg_t, asleep, j, l_wake = te, False, j + 1, seg_l
        if asleep:
            s, lv = _sleep(u, seg_s, seg_l, q * (t - seg_t))
        else:
            s, lv = _wake(u, seg_s, seg_l, t - seg_t)
        z = _carry_zone(k, inp, i, t, z)
        phi = phase_at(k, z.phi, z.move, z.rate, t - z.t)
        out.s[row, c], out.lo[row, c] = s, lv
        out.c[row, c] = _circ(u, (t + phi) % 24.0)
        out.lw[row, c], out.asleep[row, c] = l_wake, asleep


@nb.njit(cache=True, parallel=True)
def _kernel(k: Consts, u: Ump, inp: Inputs, s0: float, l0: float, out: _Out) -> None:
    for i in nb.prange(inp.samples.shape[0]):
        _crew(k, u, inp, i, i, 0, inp.samples.shape[1], s0, l0, out)


@nb.njit(cache=True, parallel=True)
def _kernel_rows(
    k: Consts, u: Ump, inp: Inputs, ptr: IntArray, s0: float, l0: float, out: _Out
) -> None:
    """Crew member ``i``'s samples are ``inp.samples[0, ptr[i]:ptr[i + 1]]``."""
    for i in nb.prange(ptr.size - 1):
        _crew(k, u, inp, i, 0, ptr[i], ptr[i + 1], s0, l0, out)


def _outputs(shape: tuple[int, ...]) -> _Out:
    """Empty S, L, C, L-at-waking and sleep-flag arrays of ``shape``."""
    empty = np.empty
    return _Out(empty(shape), empty(shape), empty(shape), empty(shape), empty(shape, np.bool_))


def _inputs(timeline: CrewTimeline, samples: FloatArray) -> Inputs:
    return Inputs(timeline.start, timeline.s_start, timeline.phase_start, timeline.sleep_start,
                  timeline.sleep_end, timeline.sleep_quality, timeline.zone_time,
                  timeline.zone_offset, samples)  # fmt: skip


@dataclass(frozen=True, slots=True)
class UnifiedState:
    """UMP processes at the sample times, each ``(n, p)``; NaN where the sample is NaN or
    before ``start``.

    Attributes
    ----------
    homeostatic : S [lapses]
    allostatic : L, the slow lower asymptote of S (sleep debt) [lapses]
    circadian : C, unscaled [-]
    debt : L at the last waking (at ``start`` before the first sleep): the sleep debt
        carried into the current day [lapses]
    asleep : True inside a sleep episode ``[start, end)``
    """

    homeostatic: FloatArray
    allostatic: FloatArray
    circadian: FloatArray
    debt: FloatArray
    asleep: BoolArray
    kappa: float

    @property
    def lapses(self) -> FloatArray:
        """PVT lapses ``S + κ·C`` (10-min PVT, RT > 500 ms) [1]_ [2]_."""
        return self.homeostatic + self.kappa * self.circadian


def simulate_unified(
    timeline: CrewTimeline, sample_time: object, params: Parameters = UNIFIED
) -> UnifiedState:
    """Evaluate the UMP for every crew member at its sample times.

    Parameters
    ----------
    timeline : CrewTimeline
        Sleep and location history of ``n`` crew members (``s_start`` is the
        Three-Process S and is not read: the UMP starts from :func:`ump_steady_state`).
    sample_time : array_like, shape (n, p)
        Sample instants, ascending per row, NaN anywhere (those give NaN). [epoch h]
    params : Parameters
        The ``ump_*`` fields and the body-clock fields (ref §3) are read.

    Returns
    -------
    UnifiedState
    """
    samples = as_2d(sample_time, "sample_time")
    if samples.shape[0] != timeline.n_crew:
        raise ValueError(f"sample_time has {samples.shape[0]} rows, timeline {timeline.n_crew}")
    out = _outputs(samples.shape)
    s0, l0 = ump_steady_state(params)
    _kernel(params.kernel, ump_constants(params), _inputs(timeline, samples), s0, l0, out)
    return UnifiedState(out.s, out.lo, out.c, out.lw, out.asleep, float(params.ump_kappa))


def unified_samples(
    timeline: CrewTimeline, samples: FloatArray, row_ptr: IntArray, params: Parameters
) -> UnifiedState:
    """The UMP at samples stored as rows of one array: crew member ``i``'s samples are
    rows ``row_ptr[i]:row_ptr[i + 1]`` of ``samples`` (``(T, spi)``, ascending in row
    order, NaN anywhere), as the score intervals of :mod:`.interval_kss` are laid out.

    Returns a :class:`UnifiedState` of arrays shaped like ``samples``.
    """
    t = np.ascontiguousarray(samples, dtype=np.float64)
    spi = t.shape[1] if t.ndim == 2 else 1
    flat = t.reshape(1, -1)
    ptr = np.ascontiguousarray(row_ptr, dtype=np.int64) * spi
    if ptr.shape != (timeline.n_crew + 1,) or ptr[0] != 0 or ptr[-1] != flat.size:
        raise ValueError(f"row_ptr must run from 0 to {t.shape[0]} in n_crew + 1 steps")
    out = _outputs(flat.shape)
    s0, l0 = ump_steady_state(params)
    _kernel_rows(params.kernel, ump_constants(params), _inputs(timeline, flat), ptr, s0, l0, out)
    shape = t.shape
    return UnifiedState(
        out.s.reshape(shape), out.lo.reshape(shape), out.c.reshape(shape),
        out.lw.reshape(shape), out.asleep.reshape(shape), float(params.ump_kappa),
    )  # fmt: skip
