"""Piecewise closed-form simulation of S, C, U, W and the body clock for many crew at once.

Per crew member the kernel walks the sleep/wake boundaries and the zone changes in time
order, carrying the state (S, φ, time and length of the last sleep) across each boundary
with the exact closed forms of :mod:`.homeostatic`, :mod:`.circadian` and :mod:`.inertia`;
every sample is then evaluated in closed form from the state at the start of its segment
(reference §9.2). No fixed-step integration: results do not depend on the sample spacing.
The crew loop is a Numba ``prange``; ``NUMBA_NUM_THREADS`` bounds the cores used.

Time is float64 hours since 1970-01-01T00:00Z ("epoch hours"); offsets are hours
(docs/architecture.md).
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numba as nb
import numpy as np

from ._arrays import BoolArray, FloatArray, as_2d
from ._kernels import (
    Consts,
    inertia_amp,
    phase_at,
    phase_plan,
    s_sleep,
    s_wake,
    signed,
    sleep_break,
    wrap,
)
from .parameters import DEFAULT, Parameters
from .timeline import CrewTimeline as CrewTimeline
from .timeline import Inputs as Inputs
from .timeline import Zone as Zone
from .timeline import carry_zone as _carry_zone


@dataclass(frozen=True, slots=True)
class ModelState:
    """Model processes at the sample times, each ``(n, p)``; NaN where the sample is NaN
    or before ``start``.

    Attributes
    ----------
    homeostatic : S [TPM units]
    circadian : C [TPM units]
    ultradian : U [TPM units]
    inertia : W, 0 while asleep [TPM units]
    phase : body-clock offset φ wrapped to (-12, 12] [h]
    asleep : True inside a sleep episode ``[start, end)``
    """

    homeostatic: FloatArray
    circadian: FloatArray
    ultradian: FloatArray
    inertia: FloatArray
    phase: FloatArray
    asleep: BoolArray

    @property
    def alertness(self) -> FloatArray:
        """``X = S + C + U + W`` [TPM units] (reference §2.4)."""
        return self.homeostatic + self.circadian + self.ultradian + self.inertia


# ---------------------------------------------------------------------------------------
# Numba kernels. Scalar closed forms mirror homeostatic.py / circadian.py / inertia.py;
# tests/model/test_simulate.py checks the two agree.


_RESYNC = 32  # samples between exact (transcendental) re-evaluations on a uniform grid
_STEP_TOL = 1e-9  # [h] two sample steps are "the same step" within this tolerance


#: A sleep/wake segment: its start, S then, asleep flag, q, inertia amplitude after it,
#: index of the next/current sleep, segment id, and (τ_b, A) of the recovery (ref §2.1).
Seg = namedtuple("Seg", ["t", "s", "asleep", "q", "amp", "j", "id", "tau_b", "a_exp"])
#: Recurrence state of the uniform-grid fast path (see :func:`_advance`).
Rec = namedtuple(
    "Rec",
    ["have_prev", "prev_t", "prev_tau", "since", "f_seg", "f_step", "rot_step", "e_s", "e_w",
     "f_s", "f_w", "cos_a", "sin_a", "rot_c", "rot_s"],
)  # fmt: skip
#: Output arrays: S, C, U, W, φ, asleep (``full``) or X alone.
Outputs = namedtuple("Outputs", ["s", "c", "u", "w", "phi", "asleep", "x"])

_OMEGA = 2.0 * math.pi / 24.0


@nb.njit(cache=True)
def _carry_sleep(k: Consts, inp: Inputs, i: int, t: float, g: Seg) -> Seg:
    """Carry S across every sleep/wake boundary at or before ``t`` (ref §2.1, §2.3)."""
    m = inp.sleep_start.shape[1]
    while True:
        if not g.asleep:
            ts = inp.sleep_start[i, g.j] if g.j < m else np.nan
            if not ts <= t:  # NaN compares False
                return g
            s = s_wake(k, g.s, ts - g.t)
            tau_b, a_exp = sleep_break(k, s)
            g = Seg(ts, s, True, inp.sleep_quality[i, g.j], g.amp, g.j, g.id + 1, tau_b, a_exp)
        else:
            te = inp.sleep_end[i, g.j]
            if not te <= t:
                return g
            s = s_sleep(k, g.s, te - g.t, g.q)
            amp = inertia_amp(k, te - inp.sleep_start[i, g.j])
            g = Seg(te, s, False, g.q, amp, g.j + 1, g.id + 1, g.tau_b, g.a_exp)


@nb.njit(cache=True)
def _advance(k: Consts, r: Rec, g: Seg, t: float, tau_un: float) -> Rec:
    """exp(a·dt) factors and the C angle at ``t``.

    On a uniform sample grid inside one segment the exponentials and the circadian cosine
    are advanced by exact multiplicative recurrences (exp(a(t+δ)) = exp(at)·exp(aδ), and a
    rotation by the body-clock step), re-synchronised with a direct evaluation every
    ``_RESYNC`` samples and at every boundary, so rounding drift stays below ~1e-12.
    """
    dt = t - g.t
    step = t - r.prev_t
    dtau = tau_un - r.prev_tau
    same_step = abs(step - r.f_step) <= _STEP_TOL
    if (r.have_prev and r.since < _RESYNC and r.f_seg == g.id and same_step
            and abs(dtau - r.rot_step) <= _STEP_TOL):  # fmt: skip
        cos_a = r.cos_a * r.rot_c - r.sin_a * r.rot_s
        sin_a = r.sin_a * r.rot_c + r.cos_a * r.rot_s
        e_w = r.e_w * r.f_w
        e_w = e_w if e_w >= 1e-200 else 0.0  # W is negligible; avoid denormal arithmetic
        return Rec(True, t, tau_un, r.since + 1, r.f_seg, r.f_step, r.rot_step, r.e_s * r.f_s,
                   e_w, r.f_s, r.f_w, cos_a, sin_a, r.rot_c, r.rot_s)  # fmt: skip
    e_s = math.exp(k.g * g.q * dt) if g.asleep else math.exp(k.d * dt)
    e_w = r.e_w if g.asleep else math.exp(k.wd * dt)
    angle = _OMEGA * ((tau_un % 24.0) - k.p)
    f_seg, f_step, f_s, f_w = r.f_seg, r.f_step, r.f_s, r.f_w
    if r.have_prev and step > 0.0 and (r.f_seg != g.id or not same_step):
        f_seg, f_step = g.id, step  # expect the same step next: cache this segment's factors
        f_s = math.exp((k.g * g.q if g.asleep else k.d) * step)
        f_w = math.exp(k.wd * step)
    rot_step, rot_c, rot_s = r.rot_step, r.rot_c, r.rot_s
    if r.have_prev and not abs(dtau - r.rot_step) <= _STEP_TOL:  # NaN-safe
        rot_step, rot_c, rot_s = dtau, math.cos(_OMEGA * dtau), math.sin(_OMEGA * dtau)
    return Rec(True, t, tau_un, 0, f_seg, f_step, rot_step, e_s, e_w if e_w >= 1e-200 else 0.0,
               f_s, f_w, math.cos(angle), math.sin(angle), rot_c, rot_s)  # fmt: skip


@nb.njit(cache=True, inline="always")
def components(
    k: Consts, g: Seg, r: Rec, t: float, u_rot: tuple[float, float]
) -> tuple[float, float, float, float]:
    """S, C, U and W of one sample from the segment and recurrence state.

    ``u_rot``: cos and sin of 2ω·u_shift (U angle = 2·(C angle) - 2ω·shift, ref §2.2).
    """
    if g.asleep:
        tau = g.q * (t - g.t)
        s = g.s + k.r_lin * tau if tau <= g.tau_b else k.ha - g.a_exp * r.e_s  # ref §2.1
        w = 0.0
    else:
        s = k.la + (g.s - k.la) * r.e_s  # ref §2.1
        w = g.amp * r.e_w  # ref §2.3
    cc = k.cm + k.ca * r.cos_a  # ref §2.2
    cos2 = r.cos_a * r.cos_a - r.sin_a * r.sin_a
    sin2 = 2.0 * r.sin_a * r.cos_a
    u_cos, u_sin = u_rot
    uu = k.um + k.ua * (cos2 * u_cos + sin2 * u_sin)  # ref §2.2, cos(2a - 2ω·shift)
    return s, cc, uu, w


@nb.njit(cache=True)
def _write(
    k: Consts, out: Outputs, full: bool, i: int, c: int, g: Seg, r: Rec, t: float, phi: float,
    u_rot: tuple[float, float],
) -> None:  # fmt: skip
    """S, C, U, W (and φ, asleep) of one sample, or X alone, into ``out``."""
    s, cc, uu, w = components(k, g, r, t, u_rot)
    if full:
        out.s[i, c], out.c[i, c], out.u[i, c], out.w[i, c] = s, cc, uu, w
        out.phi[i, c], out.asleep[i, c] = wrap(phi), g.asleep
    else:
        out.x[i, c] = s + cc + uu + w


@nb.njit(cache=True)
def _write_nan(out: Outputs, full: bool, i: int, c: int) -> None:
    if full:
        out.s[i, c], out.c[i, c], out.u[i, c], out.w[i, c] = np.nan, np.nan, np.nan, np.nan
        out.phi[i, c], out.asleep[i, c] = np.nan, False
    else:
        out.x[i, c] = np.nan


@nb.njit(cache=True, inline="always")
def begin_walk(k: Consts, inp: Inputs, i: int) -> tuple[Seg, Zone, Rec]:
    """Crew member ``i``'s state at ``start``: awake after a full sleep, in the zone
    segment containing ``start``, no recurrence yet."""
    t0 = inp.start[i]
    g = Seg(t0, inp.s_start[i], False, 1.0, inertia_amp(k, np.inf), 0, 0, -np.inf, 0.0)
    zi = 0
    while zi + 1 < inp.zone_time.shape[1] and inp.zone_time[i, zi + 1] <= t0:
        zi += 1
    move, rate = phase_plan(k, inp.phase_start[i], inp.zone_offset[i, zi])
    z = Zone(zi, t0, inp.phase_start[i], move, rate)
    r = Rec(False, 0.0, 0.0, 0, -1, np.nan, np.nan, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0)
    return g, z, r


@nb.njit(cache=True, inline="always")
def step_walk(
    k: Consts, inp: Inputs, i: int, t: float, g: Seg, z: Zone, r: Rec
) -> tuple[Seg, Zone, Rec, float]:
    """Carry crew member ``i``'s state to sample ``t`` (``>= start``, not before the
    previous sample); also φ at ``t``."""
    g = _carry_sleep(k, inp, i, t, g)
    z = _carry_zone(k, inp, i, t, z)
    phi = phase_at(k, z.phi, z.move, z.rate, t - z.t)
    r = _advance(k, r, g, t, t + phi)
    return g, z, r, phi


@nb.njit(cache=True)
def u_rotation(k: Consts) -> tuple[float, float]:
    """cos and sin of 2ω·u_shift, the U angle's offset from twice the C angle (ref §2.2)."""
    return math.cos(2.0 * _OMEGA * k.u_shift), math.sin(2.0 * _OMEGA * k.u_shift)


@nb.njit(cache=True)
def _crew(
    k: Consts, inp: Inputs, i: int, row: int, lo: int, hi: int, full: bool, out: Outputs
) -> None:
    """Walk crew member ``i``'s segments; evaluate its samples ``inp.samples[row, lo:hi]``
    (written to the same places of ``out``) in closed form."""
    t0 = inp.start[i]
    g, z, r = begin_walk(k, inp, i)
    u_rot = u_rotation(k)
    for c in range(lo, hi):
        t = inp.samples[row, c]
        if not (t >= t0):  # NaN or before start
            _write_nan(out, full, row, c)
            continue
        g, z, r, phi = step_walk(k, inp, i, t, g, z, r)
        _write(k, out, full, row, c, g, r, t, phi, u_rot)


@nb.njit(cache=True, parallel=True)
def _kernel(k: Consts, inp: Inputs, full: bool, out: Outputs) -> None:
    """Every crew member in a ``prange`` (``NUMBA_NUM_THREADS`` bounds the cores)."""
    for i in nb.prange(inp.samples.shape[0]):
        j = signed(i)
        _crew(k, inp, j, j, 0, inp.samples.shape[1], full, out)


def _prepare(timeline: CrewTimeline, sample_time: object) -> FloatArray:
    samples = as_2d(sample_time, "sample_time")
    if samples.shape[0] != timeline.n_crew:
        raise ValueError(f"sample_time has {samples.shape[0]} rows, timeline {timeline.n_crew}")
    return samples


def _run(
    timeline: CrewTimeline,
    samples: FloatArray,
    params: Parameters,
    full: bool,
    out_s: FloatArray,
    out_c: FloatArray,
    out_u: FloatArray,
    out_w: FloatArray,
    out_phi: FloatArray,
    out_asleep: BoolArray,
    out_x: FloatArray,
) -> None:
    inp = Inputs(timeline.start, timeline.s_start, timeline.phase_start, timeline.sleep_start,
                 timeline.sleep_end, timeline.sleep_quality, timeline.zone_time,
                 timeline.zone_offset, samples)  # fmt: skip
    _kernel(
        params.kernel, inp, full, Outputs(out_s, out_c, out_u, out_w, out_phi, out_asleep, out_x)
    )


def simulate(
    timeline: CrewTimeline, sample_time: object, params: Parameters = DEFAULT
) -> ModelState:
    """Evaluate the model for every crew member at its sample times.

    Parameters
    ----------
    timeline : CrewTimeline
        Sleep and location history of ``n`` crew members.
    sample_time : array_like, shape (n, p)
        Sample instants, sorted ascending per row, NaN-padded on the right. [epoch h]
    params : Parameters
        A preset from :data:`vigil.model.PRESETS` or a variant.

    Returns
    -------
    ModelState
        S, C, U, W, φ and the sleep flag at each sample, each ``(n, p)``.

    Notes
    -----
    Sleep episodes are half-open: a sample at ``sleep_start`` is asleep, one at
    ``sleep_end`` is awake with full inertia (as FIPS). Samples before ``start`` are NaN.

    Under ``params.alertness_model == "unified"`` the state is the Unified Model's
    (:mod:`.unified`): S in ``homeostatic``, κ·C in ``circadian``, U = W = 0, so
    ``alertness`` is its PVT lapses. A Three-Process preset with ``slow_weight`` λ != 0 has
    the slow allostatic term ``-λ·(L_w - L_ss)/U`` added to ``homeostatic``.
    """
    samples = _prepare(timeline, sample_time)
    shape = samples.shape
    if params.alertness_model == "unified":
        return _unified_state(timeline, samples, params)
    outs = [np.empty(shape) for _ in range(5)]
    asleep = np.empty(shape, dtype=np.bool_)
    dummy = np.empty((0, 0))
    s, c, u, w, phi = outs
    _run(timeline, samples, params, True, s, c, u, w, phi, asleep, dummy)
    if params.slow_weight != 0.0:
        s += _slow_term(timeline, samples, params)
    return ModelState(s, c, u, w, phi, asleep)


def _unified_state(timeline: CrewTimeline, samples: FloatArray, params: Parameters) -> ModelState:
    """The UMP as a :class:`ModelState`: S in ``homeostatic``, κ·C in ``circadian``, no U
    or W, so ``alertness`` is the UMP's lapses S + κ·C (:mod:`.unified`)."""
    from .unified import simulate_unified

    ump = simulate_unified(timeline, samples, params)
    zeros = np.where(np.isnan(ump.homeostatic), np.nan, 0.0)
    phase = body_clock_phase(timeline, samples, params)
    return ModelState(
        ump.homeostatic, params.ump_kappa * ump.circadian, zeros, zeros.copy(), phase, ump.asleep
    )


def _slow_term(timeline: CrewTimeline, samples: FloatArray, params: Parameters) -> FloatArray:
    """The slow allostatic term added to X of a Three-Process preset with
    ``slow_weight`` λ != 0: ``-λ·(L_w - L_ss)/U`` at each sample (:func:`.unified.debt_offset`)."""
    from .unified import debt_offset, simulate_unified

    return debt_offset(simulate_unified(timeline, samples, params).debt, params)


def simulate_alertness(
    timeline: CrewTimeline,
    sample_time: object,
    params: Parameters = DEFAULT,
    *,
    out: FloatArray | None = None,
) -> FloatArray:
    """Alertness ``X = S + C + U + W`` only, ``(n, p)`` [TPM units]: one output array.

    Same kernel and semantics as :func:`simulate` (a sixth of its memory); use it for large
    batches where the components are not needed. ``out`` (float64, C-contiguous, shape of
    ``sample_time``) is filled and returned, so chunked callers can reuse one buffer.
    """
    samples = _prepare(timeline, sample_time)
    if out is None:
        out_x = np.empty(samples.shape)
    else:
        if out.shape != samples.shape or out.dtype != np.float64 or not out.flags.c_contiguous:
            raise ValueError("out must be a C-contiguous float64 array shaped like sample_time")
        out_x = out
    if params.alertness_model == "unified":
        from .unified import simulate_unified

        out_x[...] = simulate_unified(timeline, samples, params).lapses
        return out_x
    dummy = np.empty((0, 0))
    dummy_b = np.empty((0, 0), dtype=np.bool_)
    _run(timeline, samples, params, False, dummy, dummy, dummy, dummy, dummy, dummy_b, out_x)
    if params.slow_weight != 0.0:
        out_x += _slow_term(timeline, samples, params)
    return out_x


@nb.njit(cache=True, parallel=True)
def _phase_kernel(k: Consts, inp: Inputs, out: FloatArray) -> None:
    """φ alone: the zone walk of :func:`_crew` without the sleep/wake one."""
    for i in nb.prange(inp.samples.shape[0]):
        t0 = inp.start[i]
        zi = 0
        while zi + 1 < inp.zone_time.shape[1] and inp.zone_time[i, zi + 1] <= t0:
            zi += 1
        move, rate = phase_plan(k, inp.phase_start[i], inp.zone_offset[i, zi])
        z = Zone(zi, t0, inp.phase_start[i], move, rate)
        for c in range(inp.samples.shape[1]):
            t = inp.samples[i, c]
            if not (t >= t0):  # NaN or before start
                out[i, c] = np.nan
                continue
            z = _carry_zone(k, inp, signed(i), t, z)
            out[i, c] = wrap(phase_at(k, z.phi, z.move, z.rate, t - z.t))


def body_clock_phase(
    timeline: CrewTimeline, sample_time: object, params: Parameters = DEFAULT
) -> FloatArray:
    """The body-clock offset φ of :func:`simulate` alone, ``(n, p)`` [h] (reference §3).

    φ follows the zone timeline only, not sleep, so this skips S, C, U and W: the same
    values as ``simulate(...).phase`` for a fraction of the work.
    """
    samples = _prepare(timeline, sample_time)
    out = np.empty(samples.shape)
    inp = Inputs(timeline.start, timeline.s_start, timeline.phase_start, timeline.sleep_start,
                 timeline.sleep_end, timeline.sleep_quality, timeline.zone_time,
                 timeline.zone_offset, samples)  # fmt: skip
    _phase_kernel(params.kernel, inp, out)
    return out
