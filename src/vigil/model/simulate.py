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
from dataclasses import dataclass

import numba as nb
import numpy as np

from ._arrays import BoolArray, FloatArray, as_1d, as_2d
from ._kernels import Consts, inertia_amp, phase_at, phase_plan, s_sleep, s_wake, sleep_break, wrap
from .parameters import DEFAULT, Parameters


@dataclass(frozen=True, slots=True)
class CrewTimeline:
    """Sleep and location history of ``n`` crew members, as padded arrays.

    Attributes
    ----------
    start : (n,) float
        Start of the simulation; the person wakes at ``start`` (warm-up start). [epoch h]
    s_start : (n,) float
        S at ``start`` (13.82 = 8-h steady state at waking, reference §9.4). [TPM units]
    phase_start : (n,) float
        Body-clock offset φ at ``start`` (home-base UTC offset). [h]
    sleep_start, sleep_end : (n, m) float
        Sleep episodes ``[start, end)``, sorted, non-overlapping, ``>= start``, ``end >
        start``; NaN pad on the right. [epoch h]
    sleep_quality : (n, m) float
        Restorative value q in (0, 1] per hour of each sleep (reference §2.1, §5.2). [-]
    zone_time : (n, z) float
        Instants from which ``zone_offset`` applies, sorted; ``zone_time[:, 0] <= start``;
        NaN pad. [epoch h]
    zone_offset : (n, z) float
        UTC offset of where the person is: the body-clock target θ (reference §3). [h]
    """

    start: FloatArray
    s_start: FloatArray
    phase_start: FloatArray
    sleep_start: FloatArray
    sleep_end: FloatArray
    sleep_quality: FloatArray
    zone_time: FloatArray
    zone_offset: FloatArray

    def __post_init__(self) -> None:
        for name in ("start", "s_start", "phase_start"):
            object.__setattr__(self, name, as_1d(getattr(self, name), name))
        for name in ("sleep_start", "sleep_end", "sleep_quality", "zone_time", "zone_offset"):
            object.__setattr__(self, name, as_2d(getattr(self, name), name))
        n = self.start.shape[0]
        for name in ("s_start", "phase_start"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},)")
        m_shape = self.sleep_start.shape
        if (
            m_shape[0] != n
            or self.sleep_end.shape != m_shape
            or self.sleep_quality.shape != m_shape
        ):
            raise ValueError(f"sleep_start/sleep_end/sleep_quality must share shape ({n}, m)")
        z_shape = self.zone_time.shape
        if z_shape[0] != n or z_shape[1] < 1 or self.zone_offset.shape != z_shape:
            raise ValueError(f"zone_time/zone_offset must share shape ({n}, z>=1)")
        if not (np.all(np.isfinite(self.start)) and np.all(np.isfinite(self.s_start))):
            raise ValueError("start and s_start must be finite")
        if not np.all(np.isfinite(self.phase_start)):
            raise ValueError("phase_start must be finite")
        self._check_sleep()
        self._check_zones()

    def _check_sleep(self) -> None:
        s, e, q = self.sleep_start, self.sleep_end, self.sleep_quality
        given = np.isfinite(s)
        if np.any(given != np.isfinite(e)):
            raise ValueError("sleep_start and sleep_end must be NaN in the same places")
        if np.any(given[:, 1:] & ~given[:, :-1]):
            raise ValueError("sleep episodes must be NaN-padded on the right only")
        if np.any(given & ~((q > 0.0) & (q <= 1.0))):
            raise ValueError("sleep_quality must be in (0, 1] for every episode")
        if np.any(given & ~(e > s)):
            raise ValueError("every sleep must end after it starts")
        if np.any(given & (s < self.start[:, None])):
            raise ValueError("sleep episodes must start at or after `start`")
        if np.any(given[:, 1:] & (s[:, 1:] < e[:, :-1])):
            raise ValueError("sleep episodes must be sorted and non-overlapping")

    def _check_zones(self) -> None:
        zt, zo = self.zone_time, self.zone_offset
        given = np.isfinite(zt)
        if np.any(given != np.isfinite(zo)):
            raise ValueError("zone_time and zone_offset must be NaN in the same places")
        if not np.all(given[:, 0]) or np.any(zt[:, 0] > self.start):
            raise ValueError("zone_time[:, 0] must be finite and <= start")
        if np.any(given[:, 1:] & ~given[:, :-1]):
            raise ValueError("zones must be NaN-padded on the right only")
        if np.any(given[:, 1:] & (zt[:, 1:] < zt[:, :-1])):
            raise ValueError("zone_time must be sorted")

    @property
    def n_crew(self) -> int:
        """Number of crew members (rows)."""
        return int(self.start.shape[0])


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


@nb.njit(cache=True, parallel=True)
def _kernel(
    start: FloatArray,
    s_start: FloatArray,
    phase_start: FloatArray,
    sleep_start: FloatArray,
    sleep_end: FloatArray,
    sleep_quality: FloatArray,
    zone_time: FloatArray,
    zone_offset: FloatArray,
    samples: FloatArray,
    k: Consts,
    full: bool,
    out_s: FloatArray,
    out_c: FloatArray,
    out_u: FloatArray,
    out_w: FloatArray,
    out_phi: FloatArray,
    out_asleep: BoolArray,
    out_x: FloatArray,
) -> None:
    """Walk segments per crew member; evaluate samples in closed form.

    On a uniform sample grid inside one segment the exponentials and the circadian cosine
    are advanced by exact multiplicative recurrences (exp(a(t+δ)) = exp(at)·exp(aδ), and a
    rotation by the body-clock step), re-synchronised with a direct evaluation every
    ``_RESYNC`` samples and at every boundary, so rounding drift stays below ~1e-12.
    """
    n, p = samples.shape
    m = sleep_start.shape[1]
    nz = zone_time.shape[1]
    omega = 2.0 * math.pi / 24.0
    cm, ca, acro, um, ua = k.cm, k.ca, k.p, k.um, k.ua
    u_cos = math.cos(2.0 * omega * k.u_shift)  # U angle = 2·(C angle) - 2ω·shift
    u_sin = math.sin(2.0 * omega * k.u_shift)
    la, g, d, wd = k.la, k.g, k.d, k.wd
    r_lin = k.r_lin
    for i in nb.prange(n):
        t0 = start[i]
        # --- sleep/wake segment state
        t_seg = t0
        s_seg = s_start[i]
        asleep = False
        q = 1.0
        amp = inertia_amp(k, np.inf)  # wakes at `start` after a full sleep
        j = 0
        seg_id = 0
        tau_b = -np.inf  # sleep: linear recovery until effective time tau_b
        a_exp = 0.0  # sleep: S = ha - a_exp·exp(g·τ) after tau_b
        # --- body-clock segment state
        zi = 0
        while zi + 1 < nz and zone_time[i, zi + 1] <= t0:
            zi += 1
        theta = zone_offset[i, zi]
        t_ph = t0
        phi_seg = phase_start[i]
        move, rate = phase_plan(k, phi_seg, theta)
        # --- recurrence state
        have_prev = False
        prev_t = 0.0
        prev_tau = 0.0
        since = 0
        f_seg = -1
        f_step = np.nan
        rot_step = np.nan
        e_s = 0.0  # exp(d·dt) awake, exp(g·q·dt) asleep
        e_w = 0.0  # exp(wd·dt)
        f_s = 0.0
        f_w = 0.0
        cos_a = 1.0
        sin_a = 0.0
        rot_c = 1.0
        rot_s = 0.0
        for c in range(p):
            t = samples[i, c]
            if not (t >= t0):  # NaN or before start
                if full:
                    out_s[i, c] = np.nan
                    out_c[i, c] = np.nan
                    out_u[i, c] = np.nan
                    out_w[i, c] = np.nan
                    out_phi[i, c] = np.nan
                    out_asleep[i, c] = False
                else:
                    out_x[i, c] = np.nan
                continue
            # carry S across every sleep/wake boundary at or before t (ref §2.1)
            while True:
                if not asleep:
                    if j < m and sleep_start[i, j] <= t:  # NaN compares False
                        ts = sleep_start[i, j]
                        s_seg = s_wake(k, s_seg, ts - t_seg)
                        t_seg = ts
                        q = sleep_quality[i, j]
                        asleep = True
                        seg_id += 1
                        tau_b, a_exp = sleep_break(k, s_seg)  # ref §2.1
                    else:
                        break
                else:
                    te = sleep_end[i, j]
                    if te <= t:
                        s_seg = s_sleep(k, s_seg, te - t_seg, q)
                        amp = inertia_amp(k, te - sleep_start[i, j])
                        t_seg = te
                        asleep = False
                        seg_id += 1
                        j += 1
                    else:
                        break
            # carry phi across every zone change at or before t (ref §3)
            while zi + 1 < nz and zone_time[i, zi + 1] <= t:
                tz = zone_time[i, zi + 1]
                phi_seg = wrap(phase_at(k, phi_seg, move, rate, tz - t_ph))
                t_ph = tz
                zi += 1
                theta = zone_offset[i, zi]
                move, rate = phase_plan(k, phi_seg, theta)
            phi = phase_at(k, phi_seg, move, rate, t - t_ph)
            tau_un = t + phi  # body-clock time, unwrapped [h]
            dt = t - t_seg
            step = t - prev_t
            dtau = tau_un - prev_tau
            fast = (
                have_prev
                and since < _RESYNC
                and f_seg == seg_id
                and abs(step - f_step) <= _STEP_TOL
                and abs(dtau - rot_step) <= _STEP_TOL
            )
            if fast:
                e_s *= f_s
                e_w *= f_w
                ca_new = cos_a * rot_c - sin_a * rot_s
                sin_a = sin_a * rot_c + cos_a * rot_s
                cos_a = ca_new
                since += 1
            else:
                if asleep:
                    e_s = math.exp(g * q * dt)
                else:
                    e_s = math.exp(d * dt)
                    e_w = math.exp(wd * dt)
                angle = omega * ((tau_un % 24.0) - acro)
                cos_a = math.cos(angle)
                sin_a = math.sin(angle)
                since = 0
                if (
                    have_prev
                    and step > 0.0
                    and (f_seg != seg_id or not abs(step - f_step) <= _STEP_TOL)
                ):
                    f_seg = seg_id  # expect the same step next: cache this segment's factors
                    f_step = step
                    f_s = math.exp((g * q if asleep else d) * step)
                    f_w = math.exp(wd * step)
                if have_prev and not abs(dtau - rot_step) <= _STEP_TOL:  # NaN-safe
                    rot_step = dtau
                    rot_c = math.cos(omega * dtau)
                    rot_s = math.sin(omega * dtau)
            if e_w < 1e-200:
                e_w = 0.0  # W is negligible; avoid denormal arithmetic
            have_prev = True
            prev_t = t
            prev_tau = tau_un
            if asleep:
                tau = q * dt
                s = s_seg + r_lin * tau if tau <= tau_b else k.ha - a_exp * e_s  # ref §2.1
                w = 0.0
            else:
                s = la + (s_seg - la) * e_s  # ref §2.1
                w = amp * e_w  # ref §2.3
            cc = cm + ca * cos_a  # ref §2.2
            cos2 = cos_a * cos_a - sin_a * sin_a
            sin2 = 2.0 * sin_a * cos_a
            uu = um + ua * (cos2 * u_cos + sin2 * u_sin)  # ref §2.2, cos(2a - 2ω·shift)
            if full:
                out_s[i, c] = s
                out_c[i, c] = cc
                out_u[i, c] = uu
                out_w[i, c] = w
                out_phi[i, c] = wrap(phi)
                out_asleep[i, c] = asleep
            else:
                out_x[i, c] = s + cc + uu + w


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
    _kernel(
        timeline.start,
        timeline.s_start,
        timeline.phase_start,
        timeline.sleep_start,
        timeline.sleep_end,
        timeline.sleep_quality,
        timeline.zone_time,
        timeline.zone_offset,
        samples,
        params.kernel,
        full,
        out_s,
        out_c,
        out_u,
        out_w,
        out_phi,
        out_asleep,
        out_x,
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
    """
    samples = _prepare(timeline, sample_time)
    shape = samples.shape
    outs = [np.empty(shape) for _ in range(5)]
    asleep = np.empty(shape, dtype=np.bool_)
    dummy = np.empty((0, 0))
    s, c, u, w, phi = outs
    _run(timeline, samples, params, True, s, c, u, w, phi, asleep, dummy)
    return ModelState(s, c, u, w, phi, asleep)


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
    dummy = np.empty((0, 0))
    dummy_b = np.empty((0, 0), dtype=np.bool_)
    _run(timeline, samples, params, False, dummy, dummy, dummy, dummy, dummy, dummy_b, out_x)
    return out_x
