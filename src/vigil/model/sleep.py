"""Sleep prediction from sleep opportunities: the S + C gates of the Three-Process Model.

Pure array code (NumPy + Numba; time is float64 epoch hours, offsets in hours). The
scoring layer (:mod:`vigil.scoring.predict`) turns a roster into the packed arrays this
module consumes: per crew member the "busy" intervals (duties, awake-at-work activities)
with the lead and lag times that bound the sleep windows around them, the in-duty rest
windows (in-flight rest, split-duty breaks), home-standby intervals and the body-clock
target timeline. One Numba kernel then walks each person's windows forward in time,
carrying the homeostat S, and places sleep:

* ground windows (reference §4.1): onset when ``S + C <= G_on``, spontaneous waking when
  ``S + C >= G_wake`` (§4.2), repeated while the window lasts, forced wake at its end,
  early-start advanced bedtime, pre-duty nap and layover local-night pull (§4.3);
* split-duty breaks (§7): the same gates inside the break's sleep window;
* in-flight rest (§5.2): one block after the latency, of efficiency ``e = e_max·g(S + C)``.

Gate crossings are found by a safe forward scan (steps of at least 5 minutes, longer when
``S + C`` is far from the gate, bounded by the Lipschitz constant of ``S + C`` so no crossing
is skipped) and then by bisection to 1 minute (reference §9.2 step 3); times are rounded to
the minute (§9.3).

References
----------
.. [1] Åkerstedt T, Folkard S (1996). Predicting duration of sleep from the three process
   model of regulation of alertness. Occup Environ Med 53:136-141. doi:10.1136/oem.53.2.136
.. [2] Åkerstedt T, Gillberg M (1981). The circadian variation of experimentally displaced
   sleep. Sleep 4:159-169. doi:10.1093/sleep/4.2.159
.. [3] Roach GD, Sargent C, Darwent D, Dawson D (2012). Duty periods with early start times
   restrict the amount of sleep obtained by short-haul airline pilots. Accid Anal Prev
   45S:22-26. doi:10.1016/j.aap.2011.09.020
.. [4] Signal TL, Gander PH, van den Berg MJ, Graeber RC (2013). In-flight sleep of flight
   crew during a 7-hour rest break. Sleep 36:109-115. doi:10.5665/sleep.2312
.. [5] Roach GD, Darwent D, Sletten TL, Dawson D (2011). Long-haul pilots use in-flight
   napping as a countermeasure to fatigue. Appl Ergon 42:214-218.
.. [6] Gander PH, Graeber RC, Connell LJ, Gregory KB (1991). Crew factors in flight
   operations VIII. NASA TM-103852.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ._arrays import FloatArray, IntArray, Numeric, as_float
from .parameters import (
    _K_BL,
    _K_CA,
    _K_CM,
    _K_D,
    _K_FIPS_BREAK,
    _K_G,
    _K_HA,
    _K_LA,
    _K_P,
    _K_PHASE_EXP,
    _K_PHASE_K,
    _K_RATE_E,
    _K_RATE_W,
    _K_SIZE,
    DEFAULT,
    Parameters,
    _kernel_vector,
)
from .simulate import _phase_plan, _s_sleep, _s_wake, _wrap

__all__ = [
    "DEFAULT_SLEEP",
    "KIND_INFLIGHT",
    "KIND_MAIN",
    "KIND_NAP",
    "WINDOW_INFLIGHT",
    "WINDOW_SPLIT",
    "PackedSleepInput",
    "SleepParameters",
    "body_clock_offset",
    "gate_onset",
    "inflight_efficiency",
    "inflight_sleep",
    "predict_packed",
    "spontaneous_wake",
]

KIND_MAIN, KIND_NAP, KIND_INFLIGHT = 0, 1, 2  #: episode kinds in the kernel output
WINDOW_INFLIGHT, WINDOW_SPLIT = 0, 1  #: in-duty window kinds in the kernel input


@dataclass(frozen=True, slots=True)
class SleepParameters:
    """Sleep-prediction constants not in :class:`~vigil.model.parameters.Parameters`.

    The gates, limits, nap length, early-start advance, window margins and in-flight
    efficiency live in ``Parameters`` (reference §10); these are the remaining rule
    constants of reference §4.3, §5.2 and §7, plus the numerical settings of §9.2.
    """

    # --- ground sleep rules (ref §4.2-4.3)
    min_wake_between: float = 1.0  # [h] no new onset within 1 h of waking [C, ours]
    early_wake_before_body: float = 7.0  # [h body] latest wake before 07:00 = early start §4.3.2
    nap_report_from: float = 18.0  # [h body] nap before reports 18:00-03:59, ref §4.3.3 [C]
    nap_report_to: float = 4.0  # [h body] (exclusive), ref §4.3.3 [C]
    nap_latest_end_body: float = 18.0  # [h body] nap ends by 18:00 body time, §4.3.3 [C]
    nap_earliest_start_body: float = 12.0  # [h body] nap starts at/after 12:00, §4.3.3 [C]
    nap_after_wake: float = 6.0  # [h] nap starts >= last wake + 6 h, ref §4.3.3 [C]
    nap_min: float = 0.75  # [h] at least 45 min of nap must fit, ref §4.3.3 [C]
    pull_extra: float = 1.0  # [TPM] layover onset gate G_on + 1.0, ref §4.3.4 [C]
    pull_from_local: float = 21.0  # [h local] layover pull from 21:00 local, §4.3.4 [C]
    pull_to_local: float = 2.0  # [h local] until 02:00 local, ref §4.3.4 [C]
    standby_quality: float = 0.9  # [-] q of sleep overlapping home standby, §4.3.6 / §7 [C]
    activity_commute: float = 1.0  # [h] commute around an ActivityData work item [C, ours]
    activity_prep: float = 1.0  # [h] prep before an ActivityData work item [C, ours]
    horizon_after_last: float = 24.0  # [h] predict until last off-duty + 24 h [C, lead's brief]

    # --- in-flight rest (ref §5.2) [C]
    latency_max: float = 0.33  # [h] L = min(0.33, 0.15·D), ref §5.2 [C]
    latency_fraction: float = 0.15  # [-] ref §5.2 [C]
    buffer_max: float = 0.25  # [h] wake-up buffer B = min(0.25, 0.10·D), ref §5.2 [C]
    buffer_fraction: float = 0.10  # [-] ref §5.2 [C]
    inflight_min_sleep: float = 0.25  # [h] shorter in-flight blocks are dropped [C, ours]

    # --- split duty (ref §7) [C]
    split_free_hours: float = 8.0  # [h] derived break = max(0, duty - 8 h), ref §7 [C]
    split_settle_hours: float = 0.5  # [h] sleep from break start + 30 min, ref §7 [C]
    split_rise_hours: float = 0.75  # [h] until break end - 45 min, ref §7 [C]
    split_accommodation_hours: float = 6.0  # [h] breaks >= 6 h: accommodation, EASA CS FTL.1.220
    split_rest_room_hours: float = 3.0  # [h] breaks 3-6 h: rest room; < 3 h no sleep, ref §7
    split_accommodation_quality: float = 0.9  # [-] ref §7 [C]
    split_rest_room_quality: float = 0.75  # [-] ref §7 [C]
    split_wocl: tuple[float, float] = (2.0, 5.0)  # [h] breaks touching 02:00-04:59, ref §7

    # --- numerics (ref §9.2 step 3, §9.3)
    scan_step: float = 5.0 / 60.0  # [h] shortest coarse-scan step, ref §9.2
    tolerance: float = 1.0 / 60.0  # [h] bisection tolerance, ref §9.2

    def kernel(self, params: Parameters) -> FloatArray:
        """Pack ``params`` and these constants into the vector the Numba kernel reads."""
        return _pack(params, self)


#: The default sleep-prediction constants.
DEFAULT_SLEEP = SleepParameters()

# Layout of the packed constant vector: the simulator's (``parameters._K_*``, so the
# closed forms of simulate.py read it unchanged), then this module's own constants.
_LA, _HA, _D, _G, _BL, _FIPS = _K_LA, _K_HA, _K_D, _K_G, _K_BL, _K_FIPS_BREAK
_CM, _CA, _P = _K_CM, _K_CA, _K_P
_PEXP, _RE, _RW, _PK = _K_PHASE_EXP, _K_RATE_E, _K_RATE_W, _K_PHASE_K
(
    _GON, _GWAKE, _MAXS, _MINS, _EADV, _E21, _NAPLEN, _MINWIN,
    _EMAX, _GLO, _GHI,
    _MINWAKE, _EARLY7, _NAPR0, _NAPR1, _NAPEND, _NAPSTART, _NAPWAKE, _NAPMIN,
    _PULLX, _PULL0, _PULL1, _SBQ,
    _LATMAX, _LATFR, _BUFMAX, _BUFFR, _IFMIN,
    _SCAN, _TOL, _LIP, _SIZE,
) = range(_K_SIZE, _K_SIZE + 32)  # fmt: skip


def _pack(p: Parameters, sp: SleepParameters) -> FloatArray:
    k = np.zeros(_SIZE)
    k[:_K_SIZE] = _kernel_vector(p)  # S, C, body-clock constants as the simulator reads them
    k[_GON], k[_GWAKE], k[_MAXS], k[_MINS] = p.gate_onset, p.gate_wake, p.max_sleep, p.min_sleep
    k[_EADV], k[_E21], k[_NAPLEN], k[_MINWIN] = (
        p.early_advance,
        p.early_earliest_body,
        p.nap_length,
        p.min_window,
    )
    k[_EMAX] = p.inflight_efficiency_max
    k[_GLO], k[_GHI] = p.inflight_efficiency_range
    k[_MINWAKE], k[_EARLY7] = sp.min_wake_between, sp.early_wake_before_body
    k[_NAPR0], k[_NAPR1] = sp.nap_report_from, sp.nap_report_to
    k[_NAPEND], k[_NAPSTART] = sp.nap_latest_end_body, sp.nap_earliest_start_body
    k[_NAPWAKE], k[_NAPMIN] = sp.nap_after_wake, sp.nap_min
    k[_PULLX], k[_PULL0], k[_PULL1] = sp.pull_extra, sp.pull_from_local, sp.pull_to_local
    k[_SBQ] = sp.standby_quality
    k[_LATMAX], k[_LATFR] = sp.latency_max, sp.latency_fraction
    k[_BUFMAX], k[_BUFFR] = sp.buffer_max, sp.buffer_fraction
    k[_IFMIN] = sp.inflight_min_sleep
    k[_SCAN], k[_TOL] = sp.scan_step, sp.tolerance
    # Lipschitz bound of S + C [TPM/h]: |dS/dt| <= max(|d|(ha - la), |g|(ha - bl)) (§2.1),
    # |dC/dt| <= Ca·2π/24·(1 + |dφ/dt|) (§2.2, §3); 5 % margin.
    r_lin = abs(p.g * (p.bl - p.ha))
    ds = max(abs(p.d) * (p.ha - p.la), r_lin)
    dphi = max(k[_RE], k[_RW], 12.0 * k[_PK])
    k[_LIP] = 1.05 * (ds + abs(p.ca) * 2.0 * math.pi / 24.0 * (1.0 + dphi))
    k.setflags(write=False)
    return k


# ---------------------------------------------------------------------------------------
# Scalar closed forms: S and the phase plan come from simulate.py (one definition each).


@nb.njit(cache=True)
def _phase_move(k: FloatArray, phi0: float, theta: float, dt: float) -> float:
    """φ after ``dt`` hours under constant target θ (ref §3 closed form)."""
    move, rate = _phase_plan(k, phi0, theta)
    if k[_PEXP] != 0.0:
        return phi0 + move * (1.0 - math.exp(-rate * dt))
    if move > 0.0:
        return phi0 + min(move, rate * dt)
    return phi0 - min(-move, rate * dt)


@nb.njit(cache=True)
def _zone_phases(
    k: FloatArray, t0: float, phi0: float, zt: FloatArray, zo: FloatArray
) -> FloatArray:
    """Per zone segment j: φ at its start, signed move and rate toward θ_j, start time.

    ``zt[0] <= t0`` and φ(t0) = phi0; φ is wrapped at each change (as the simulator does).
    """
    nz = zt.shape[0]
    zs = np.empty((nz, 4))
    phi = phi0
    t_prev = t0
    for j in range(nz):
        tj = t0 if j == 0 else max(zt[j], t0)
        if j > 0:
            phi = _wrap(_phase_move(k, zs[j - 1, 0], zo[j - 1], tj - t_prev))
        move, rate = _phase_plan(k, phi, zo[j])
        zs[j, 0], zs[j, 1], zs[j, 2], zs[j, 3] = phi, move, rate, tj
        t_prev = tj
    return zs


@nb.njit(cache=True)
def _zone_index(zt: FloatArray, t: float) -> int:
    lo, hi = 0, zt.shape[0] - 1
    if t < zt[0] or hi == 0:
        return 0
    while lo < hi:  # last j with zt[j] <= t
        mid = (lo + hi + 1) // 2
        if zt[mid] <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


@nb.njit(cache=True)
def _phi(
    k: FloatArray, t: float, t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray
) -> float:
    """φ(t) from the per-segment plan of :func:`_zone_phases` (closed form of ref §3)."""
    j = _zone_index(zt, t)
    dt: float = max(0.0, t - zphi[j, 3])
    phi0: float = zphi[j, 0]
    move: float = zphi[j, 1]
    rate: float = zphi[j, 2]
    if k[_PEXP] != 0.0:
        return phi0 + move * (1.0 - math.exp(-rate * dt))
    if move > 0.0:
        return phi0 + min(move, rate * dt)
    return phi0 - min(-move, rate * dt)


@nb.njit(cache=True)
def _body(
    k: FloatArray, t: float, t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray
) -> float:
    return (t + _phi(k, t, t0, zt, zo, zphi)) % 24.0


@nb.njit(cache=True)
def _circ(
    k: FloatArray, t: float, t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray
) -> float:
    tau = t + _phi(k, t, t0, zt, zo, zphi)
    c: float = k[_CM] + k[_CA] * math.cos(2.0 * math.pi * (tau - k[_P]) / 24.0)  # ref §2.2
    return c


@nb.njit(cache=True)
def _body_instant_before(
    k: FloatArray,
    t: float,
    hour: float,
    t0: float,
    zt: FloatArray,
    zo: FloatArray,
    zphi: FloatArray,
) -> float:
    """The last instant at or before ``t`` whose body-clock time is ``hour``."""
    tau = t - ((_body(k, t, t0, zt, zo, zphi) - hour) % 24.0)
    for _ in range(2):  # φ drifts slowly: two fixed-point corrections suffice
        tau -= _wrap(_body(k, tau, t0, zt, zo, zphi) - hour)
    return tau


@nb.njit(cache=True, inline="always")
def _ceil_min(t: float) -> float:
    return math.ceil(t * 60.0 - 1e-6) / 60.0


@nb.njit(cache=True, inline="always")
def _floor_min(t: float) -> float:
    return math.floor(t * 60.0 + 1e-6) / 60.0


@nb.njit(cache=True)
def _gate_value(
    k: FloatArray, asleep: bool, s0: float, t_ref: float, q: float, t: float,
    t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray,
) -> float:  # fmt: skip
    """S + C at ``t``; S from ``s0`` at ``t_ref`` awake, or asleep with quality ``q``."""
    if asleep:
        s = _s_sleep(k, s0, t - t_ref, q)
    else:
        s = _s_wake(k, s0, t - t_ref)
    return s + _circ(k, t, t0, zt, zo, zphi)


@nb.njit(cache=True)
def _crossing(
    k: FloatArray, asleep: bool, s0: float, t_ref: float, q: float, threshold: float,
    a: float, b: float, t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray,
) -> float:  # fmt: skip
    """First t in [a, b] with S + C <= threshold (awake) or >= threshold (asleep), else inf.

    Safe forward scan: from a point where the gate is ``h > 0`` away, no crossing can happen
    within ``h / Lipschitz`` hours; steps are at least ``scan_step`` (5 min, ref §9.2).
    Then bisection to ``tolerance`` (1 min); returns the upper end of the bracket.
    """
    sign = -1.0 if asleep else 1.0
    lip, step_min, tol = k[_LIP], k[_SCAN], k[_TOL]
    hi: float  # a typed local for mypy (array items are Any to it); no run-time effect
    x = a
    hx = sign * (_gate_value(k, asleep, s0, t_ref, q, x, t0, zt, zo, zphi) - threshold)
    if hx <= 0.0:
        return a
    while x < b:
        nx = min(x + max(hx / lip, step_min), b)
        hn = sign * (_gate_value(k, asleep, s0, t_ref, q, nx, t0, zt, zo, zphi) - threshold)
        if hn <= 0.0:
            lo, hi = x, nx
            while hi - lo > tol:
                mid = 0.5 * (lo + hi)
                hm = sign * (
                    _gate_value(k, asleep, s0, t_ref, q, mid, t0, zt, zo, zphi) - threshold
                )
                if hm <= 0.0:
                    hi = mid
                else:
                    lo = mid
            return hi
        x, hx = nx, hn
    return np.inf


@nb.njit(cache=True)
def _theta(zt: FloatArray, zo: FloatArray, t: float) -> float:
    theta: float = zo[_zone_index(zt, t)]
    return theta


@nb.njit(cache=True)
def _first_onset(
    k: FloatArray, s_w: float, t_wake: float, a: float, b: float, away: bool,
    t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray,
) -> float:  # fmt: skip
    """First allowed sleep onset in [a, b] (ref §4.2; layover local-night pull §4.3.4)."""
    on = _crossing(k, False, s_w, t_wake, 1.0, k[_GON], a, b, t0, zt, zo, zphi)
    if not away:
        return on
    limit = min(on, b)
    length = (k[_PULL1] - k[_PULL0]) % 24.0
    local = a + _theta(zt, zo, a)
    night = a - ((local - k[_PULL0]) % 24.0)  # latest local 21:00 at or before a
    while night < limit:
        lo, hi = max(night, a), min(night + length, limit)
        if lo < hi:
            p = _crossing(k, False, s_w, t_wake, 1.0, k[_GON] + k[_PULLX], lo, hi, t0, zt, zo, zphi)
            if p < np.inf:
                return min(p, on)
        night += 24.0
    return on


# ---------------------------------------------------------------------------------------
# Per-person walk over the sleep windows.


@nb.njit(cache=True)
def _emit(
    o_s: FloatArray, o_e: FloatArray, o_q: FloatArray, o_k: IntArray, base: int, cap: int,
    n: int, a: float, b: float, q: float, kind: int,
) -> int:  # fmt: skip
    if n < cap:
        o_s[base + n], o_e[base + n], o_q[base + n], o_k[base + n] = a, b, q, kind
    return n + 1


@nb.njit(cache=True)
def _person(
    k: FloatArray, t0: float, t_end: float, s0: float, phi0: float,
    zt: FloatArray, zo: FloatArray,
    b_s: FloatArray, b_e: FloatArray, b_lead: FloatArray, b_lag: FloatArray,
    b_away: FloatArray, b_nap: FloatArray,
    w_s: FloatArray, w_e: FloatArray, w_kind: IntArray, w_q: FloatArray,
    sb_s: FloatArray, sb_e: FloatArray,
    o_s: FloatArray, o_e: FloatArray, o_q: FloatArray, o_k: IntArray, base: int, cap: int,
) -> int:  # fmt: skip
    """Predict one person's sleep; returns the number of episodes (may exceed ``cap``)."""
    zphi = _zone_phases(k, t0, phi0, zt, zo)
    nb_ = b_s.shape[0]
    nw = w_s.shape[0]
    # --- windows: ground windows between merged busy blocks (ref §4.1) plus in-duty ones
    m = nb_ + 1 + nw
    win_s = np.empty(m)
    win_e = np.empty(m)
    win_type = np.empty(m, np.int64)  # 0 ground, 1 in-flight, 2 split break
    win_q = np.empty(m)
    win_away = np.zeros(m, np.bool_)
    win_report = np.full(m, np.nan)
    win_nap = np.zeros(m, np.bool_)
    nwin = 0
    order = np.argsort(b_s)
    free = t0
    away = False
    j = 0
    while j <= nb_:
        if j < nb_:
            i = order[j]
            blk_s, blk_e = b_s[i], b_e[i]
            lead, lag, away_after, nap_ok = b_lead[i], b_lag[i], b_away[i] != 0, b_nap[i] != 0
            j += 1
            while j < nb_ and b_s[order[j]] < blk_e:  # merge overlapping busy items
                i2 = order[j]
                if b_e[i2] > blk_e:
                    blk_e, lag, away_after = b_e[i2], b_lag[i2], b_away[i2] != 0
                j += 1
            ws, we, report = free, min(blk_s - lead, t_end), blk_s
        else:
            j += 1
            ws, we, report, nap_ok = free, t_end, np.nan, False
            blk_e, lag, away_after = t_end, 0.0, False
        ws = max(ws, t0)
        if we - ws >= k[_MINWIN]:  # windows shorter than 1 h are ignored, ref §4.1
            win_s[nwin], win_e[nwin], win_type[nwin] = ws, we, 0
            win_q[nwin], win_away[nwin] = 1.0, away
            win_report[nwin], win_nap[nwin] = report, nap_ok
            nwin += 1
        free = max(free, blk_e + lag)
        away = away_after
    for u in range(nw):
        if w_e[u] > w_s[u] and w_s[u] >= t0 and w_e[u] <= t_end:
            win_s[nwin], win_e[nwin] = w_s[u], w_e[u]
            win_type[nwin] = 1 if w_kind[u] == WINDOW_INFLIGHT else 2
            win_q[nwin] = w_q[u]
            nwin += 1
    worder = np.argsort(win_s[:nwin])

    # --- walk forward: S known at the last wake (s_w at t_wake), ref §9.2 step 1
    s_w, t_wake = s0, t0
    n = 0
    for wi in range(nwin):
        u = worder[wi]
        ws, we, q = win_s[u], win_e[u], win_q[u]
        if win_type[u] == 1:
            n, s_w, t_wake = _inflight(k, ws, we, q, s_w, t_wake, t0, zt, zo, zphi,
                                       o_s, o_e, o_q, o_k, base, cap, n)  # fmt: skip
            continue
        split = win_type[u] == 2
        res = _ground(
            k,
            ws,
            we,
            q,
            win_away[u] and not split,
            win_report[u],
            win_nap[u] and not split,
            not split,
            KIND_NAP if split else KIND_MAIN,
            s_w,
            t_wake,
            sb_s,
            sb_e,
            t0,
            zt,
            zo,
            zphi,
            o_s,
            o_e,
            o_q,
            o_k,
            base,
            cap,
            n,
        )
        n, s_w, t_wake = res
    return n


@nb.njit(cache=True)
def _inflight(
    k: FloatArray, ws: float, we: float, q: float, s_w: float, t_wake: float,
    t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray,
    o_s: FloatArray, o_e: FloatArray, o_q: FloatArray, o_k: IntArray, base: int, cap: int,
    n: int,
) -> tuple[int, float, float]:  # fmt: skip
    """One block of in-flight sleep in a rest window of length D (ref §5.2)."""
    big_d = we - ws
    lat = min(k[_LATMAX], k[_LATFR] * big_d)
    buf = min(k[_BUFMAX], k[_BUFFR] * big_d)
    x = _s_wake(k, s_w, ws - t_wake) + _circ(k, ws, t0, zt, zo, zphi)
    e = k[_EMAX] * _efficiency_g(k, x)
    length = min(e * (big_d - buf), big_d - buf - lat)
    a = _ceil_min(ws + lat)
    b = _floor_min(ws + lat + length)
    if b - a >= k[_IFMIN] - 1e-9:
        n = _emit(o_s, o_e, o_q, o_k, base, cap, n, a, b, q, KIND_INFLIGHT)
        s_w = _s_sleep(k, _s_wake(k, s_w, a - t_wake), b - a, q)
        t_wake = b
    return n, s_w, t_wake


@nb.njit(cache=True, inline="always")
def _efficiency_g(k: FloatArray, x: float) -> float:
    """g(S + C): 1 at or below G_on, g_lo at or above G_wake, linear between (ref §5.2)."""
    g_hi: float = k[_GHI]
    g_lo: float = k[_GLO]
    if x <= k[_GON]:
        return g_hi
    if x >= k[_GWAKE]:
        return g_lo
    g: float = g_hi + (g_lo - g_hi) * (x - k[_GON]) / (k[_GWAKE] - k[_GON])
    return g


@nb.njit(cache=True)
def _wake(
    k: FloatArray, s_on: float, on: float, q: float, cap_end: float,
    t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray,
) -> float:  # fmt: skip
    """Spontaneous wake (S + C >= G_wake, ref §4.2) or ``cap_end``, whole minutes."""
    wake = _crossing(k, True, s_on, on, q, k[_GWAKE], on, cap_end, t0, zt, zo, zphi)
    return min(_ceil_min(wake), cap_end) if wake < np.inf else cap_end


@nb.njit(cache=True)
def _standby_q(
    k: FloatArray, q: float, a: float, b: float, sb_s: FloatArray, sb_e: FloatArray
) -> float:
    """q of a sleep [a, b): 0.9 (at most) when it overlaps a home standby (ref §4.3.6)."""
    for u in range(sb_s.shape[0]):
        if sb_s[u] < b and a < sb_e[u]:
            capped: float = min(q, k[_SBQ])
            return capped
    return q


@nb.njit(cache=True)
def _ground(
    k: FloatArray, ws: float, we: float, q: float, away: bool, report: float, nap_ok: bool,
    early_ok: bool, kind: int, s_w: float, t_wake: float, sb_s: FloatArray, sb_e: FloatArray,
    t0: float, zt: FloatArray, zo: FloatArray, zphi: FloatArray,
    o_s: FloatArray, o_e: FloatArray, o_q: FloatArray, o_k: IntArray, base: int, cap: int,
    n: int,
) -> tuple[int, float, float]:  # fmt: skip
    """Gate-driven sleep inside one window (ref §4.2 and the overrides of §4.3)."""
    t = max(ws, t_wake + k[_MINWAKE])
    # §4.3.3 pre-duty nap before evening/night reports
    nap_pending = False
    nap_s = np.inf
    nap_e = np.inf
    if nap_ok and not math.isnan(report):
        bt = _body(k, report, t0, zt, zo, zphi)
        if bt >= k[_NAPR0] or bt < k[_NAPR1]:
            t18 = _body_instant_before(k, report, k[_NAPEND], t0, zt, zo, zphi)
            nap_e = min(we, t18)
            nap_s = nap_e - k[_NAPLEN]
            span = k[_NAPEND] - k[_NAPSTART]
            if (_body(k, nap_s, t0, zt, zo, zphi) - k[_NAPSTART]) % 24.0 <= span + 1e-9:
                nap_pending = True
    # §4.3.2 early start: the window's end (latest wake) falls before 07:00 body time
    early = False
    if early_ok and not math.isnan(report):
        early = _body(k, we, t0, zt, zo, zphi) < k[_EARLY7]
    while True:
        lim = we - k[_MINS]
        if t > lim:
            break
        search_end = min(lim, nap_s) if nap_pending else lim
        on = np.inf
        if t <= search_end:
            on = _first_onset(k, s_w, t_wake, t, search_end, away, t0, zt, zo, zphi)
        if on == np.inf:
            if nap_pending:
                nap_pending = False
                a = _ceil_min(max(nap_s, t))
                b = _floor_min(nap_e)
                if b - a >= k[_NAPMIN] - 1e-9 and a >= t_wake + k[_NAPWAKE] - 1e-9:
                    qn = _standby_q(k, q, a, b, sb_s, sb_e)
                    n = _emit(o_s, o_e, o_q, o_k, base, cap, n, a, b, qn, KIND_NAP)
                    s_w = _s_sleep(k, _s_wake(k, s_w, a - t_wake), b - a, qn)
                    t_wake = b
                    t = b + k[_MINWAKE]
                continue
            break
        if early and we - on <= k[_MAXS]:
            early = False
            since = (_body(k, on, t0, zt, zo, zphi) - k[_E21]) % 24.0
            if since <= 12.0:  # gate between 21:00 and 09:00 body time
                on = max(on - min(k[_EADV], since), t)
        on = min(_ceil_min(on), we)
        s_on = _s_wake(k, s_w, on - t_wake)
        cap_end = min(on + k[_MAXS], we)
        qe = q
        wake = _wake(k, s_on, on, qe, cap_end, t0, zt, zo, zphi)
        if _standby_q(k, qe, on, wake, sb_s, sb_e) != qe:  # sleep overlapping home standby
            qe = _standby_q(k, qe, on, wake, sb_s, sb_e)
            wake = _wake(k, s_on, on, qe, cap_end, t0, zt, zo, zphi)
        if wake - on >= k[_MINS] - 1e-9:
            n = _emit(o_s, o_e, o_q, o_k, base, cap, n, on, wake, qe, kind)
            s_w = _s_sleep(k, s_on, wake - on, qe)
            t_wake = wake
            t = wake + k[_MINWAKE]
        else:  # too short to count (ref §4.2): stay awake and look further
            t = max(wake, on + k[_SCAN])
    return n, s_w, t_wake


@nb.njit(cache=True, parallel=True)
def _kernel(
    k: FloatArray, t0: FloatArray, t_end: FloatArray, s0: FloatArray, phi0: FloatArray,
    z_ptr: IntArray, zt: FloatArray, zo: FloatArray,
    b_ptr: IntArray, b_s: FloatArray, b_e: FloatArray, b_lead: FloatArray, b_lag: FloatArray,
    b_away: FloatArray, b_nap: FloatArray,
    w_ptr: IntArray, w_s: FloatArray, w_e: FloatArray, w_kind: IntArray, w_q: FloatArray,
    sb_ptr: IntArray, sb_s: FloatArray, sb_e: FloatArray,
    o_ptr: IntArray, o_s: FloatArray, o_e: FloatArray, o_q: FloatArray, o_k: IntArray,
    count: IntArray,
) -> None:  # fmt: skip
    for i in nb.prange(t0.shape[0]):
        z0, z1 = z_ptr[i], z_ptr[i + 1]
        c0, c1 = b_ptr[i], b_ptr[i + 1]
        v0, v1 = w_ptr[i], w_ptr[i + 1]
        s_0, s_1 = sb_ptr[i], sb_ptr[i + 1]
        count[i] = _person(
            k, t0[i], t_end[i], s0[i], phi0[i], zt[z0:z1], zo[z0:z1],
            b_s[c0:c1], b_e[c0:c1], b_lead[c0:c1], b_lag[c0:c1], b_away[c0:c1], b_nap[c0:c1],
            w_s[v0:v1], w_e[v0:v1], w_kind[v0:v1], w_q[v0:v1],
            sb_s[s_0:s_1], sb_e[s_0:s_1],
            o_s, o_e, o_q, o_k, o_ptr[i], o_ptr[i + 1] - o_ptr[i],
        )  # fmt: skip


@dataclass(frozen=True)
class PackedSleepInput:
    """Sleep opportunities of ``n`` people, packed as CSR arrays (``*_ptr`` has n + 1 rows).

    All instants are epoch hours, offsets and durations hours.

    Attributes
    ----------
    start, end, s_start, phase_start : (n,) float
        Warm-up start (the person wakes then), prediction horizon, S at ``start`` [TPM],
        body-clock offset φ at ``start`` [h].
    zone_ptr, zone_time, zone_offset : CSR
        Body-clock target θ(t): UTC offset [h] of where the person is, from each instant
        on (``zone_time`` of each person sorted, first entry ``<= start``), ref §3.
    busy_ptr, busy_start, busy_end, busy_lead, busy_lag, busy_away, busy_nap : CSR
        Intervals awake at work (duties, GROUND/SIMULATOR/TRAINING/POSITIONING). ``lead``:
        hours between the latest wake and ``busy_start`` (commute or hotel transfer plus
        preparation); ``lag``: hours from ``busy_end`` to the earliest sleep (commute or
        transfer plus wind-down), ref §4.1; ``away``: 1 when the person is away from base
        after it (layover pull, §4.3.4); ``nap``: 1 when a pre-duty nap may precede it (§4.3.3).
    window_ptr, window_start, window_end, window_kind, window_quality : CSR
        Sleep windows inside duties: ``WINDOW_INFLIGHT`` (rest window, ref §5.2) or
        ``WINDOW_SPLIT`` (the sleepable part of a split-duty break, §7); quality q per hour.
    standby_ptr, standby_start, standby_end : CSR
        Home standby (sleep overlapping one has q = 0.9, ref §4.3.6).
    """

    start: FloatArray
    end: FloatArray
    s_start: FloatArray
    phase_start: FloatArray
    zone_ptr: IntArray
    zone_time: FloatArray
    zone_offset: FloatArray
    busy_ptr: IntArray
    busy_start: FloatArray
    busy_end: FloatArray
    busy_lead: FloatArray
    busy_lag: FloatArray
    busy_away: FloatArray
    busy_nap: FloatArray
    window_ptr: IntArray
    window_start: FloatArray
    window_end: FloatArray
    window_kind: IntArray
    window_quality: FloatArray
    standby_ptr: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))
    standby_start: FloatArray = field(default_factory=lambda: np.empty(0))
    standby_end: FloatArray = field(default_factory=lambda: np.empty(0))


def predict_packed(
    packed: PackedSleepInput,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray, IntArray]:
    """Predict sleep for every person of ``packed`` in one kernel call.

    Returns
    -------
    ptr : (n + 1,) int
        Person i's episodes are rows ``ptr[i]:ptr[i + 1]`` of the other outputs.
    start, end : float
        Episode bounds [epoch h], sorted and non-overlapping per person, whole minutes.
    quality : float
        Restorative value q per hour of sleep [-].
    kind : int
        ``KIND_MAIN``, ``KIND_NAP`` or ``KIND_INFLIGHT``.
    """
    k = sleep_params.kernel(params)
    n = packed.start.shape[0]
    span = np.maximum(packed.end - packed.start, 0.0)
    n_windows = np.diff(packed.busy_ptr) + np.diff(packed.window_ptr)
    cap = (np.ceil(span / 10.0) + 2 * n_windows + 4).astype(np.int64)
    args = (
        k,
        _f(packed.start), _f(packed.end), _f(packed.s_start), _f(packed.phase_start),
        _i(packed.zone_ptr), _f(packed.zone_time), _f(packed.zone_offset),
        _i(packed.busy_ptr), _f(packed.busy_start), _f(packed.busy_end),
        _f(packed.busy_lead), _f(packed.busy_lag), _f(packed.busy_away), _f(packed.busy_nap),
        _i(packed.window_ptr), _f(packed.window_start), _f(packed.window_end),
        _i(packed.window_kind), _f(packed.window_quality),
        _i(packed.standby_ptr), _f(packed.standby_start), _f(packed.standby_end),
    )  # fmt: skip
    for _ in range(2):  # second pass only if some person overflowed its capacity
        o_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(cap, out=o_ptr[1:])
        total = int(o_ptr[-1])
        o_s, o_e, o_q = np.empty(total), np.empty(total), np.empty(total)
        o_k = np.empty(total, np.int64)
        count = np.zeros(n, np.int64)
        _kernel(*args, o_ptr, o_s, o_e, o_q, o_k, count)
        if np.all(count <= cap):
            break
        cap = np.maximum(cap, count)
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=ptr[1:])
    keep = np.repeat(o_ptr[:-1] - ptr[:-1], count) + np.arange(int(ptr[-1]))
    return ptr, o_s[keep], o_e[keep], o_q[keep], o_k[keep]


def _f(x: object) -> FloatArray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _i(x: object) -> IntArray:
    return np.ascontiguousarray(x, dtype=np.int64)


# ---------------------------------------------------------------------------------------
# Small public building blocks (vectorised; constant body-clock offset).


@nb.njit(cache=True)
def _onset_many(
    k: FloatArray, t_from: FloatArray, s_from: FloatArray, phase: FloatArray, limit: FloatArray,
    out: FloatArray,
) -> None:  # fmt: skip
    zt = np.zeros(1)
    for i in range(t_from.shape[0]):
        zt[0] = t_from[i]
        zo = np.full(1, phase[i])
        zphi = _zone_phases(k, t_from[i], phase[i], zt, zo)
        out[i] = _crossing(k, False, s_from[i], t_from[i], 1.0, k[_GON], t_from[i], limit[i],
                           t_from[i], zt, zo, zphi)  # fmt: skip


@nb.njit(cache=True)
def _wake_many(
    k: FloatArray, onset: FloatArray, s_onset: FloatArray, phase: FloatArray, q: FloatArray,
    limit: FloatArray, out: FloatArray,
) -> None:  # fmt: skip
    zt = np.zeros(1)
    for i in range(onset.shape[0]):
        zt[0] = onset[i]
        zo = np.full(1, phase[i])
        zphi = _zone_phases(k, onset[i], phase[i], zt, zo)
        cap = min(onset[i] + k[_MAXS], limit[i])
        w = _crossing(k, True, s_onset[i], onset[i], q[i], k[_GWAKE], onset[i], cap,
                      onset[i], zt, zo, zphi)  # fmt: skip
        out[i] = min(w, cap)


def gate_onset(
    time_from: Numeric,
    s_from: Numeric,
    phase: Numeric = 0.0,
    limit: Numeric = np.inf,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> FloatArray:
    """First instant at or after ``time_from`` when ``S + C <= G_on`` (reference §4.2).

    Parameters
    ----------
    time_from : numeric
        Start of the search; the person is awake with S = ``s_from`` then. [epoch h]
    s_from : numeric
        S at ``time_from``. [TPM units]
    phase : numeric
        Constant body-clock offset φ. [h]
    limit : numeric
        End of the search. [epoch h]

    Returns
    -------
    numpy.ndarray
        Onset [epoch h] within 1 minute (bisection tolerance), ``inf`` if none before ``limit``.
    """
    t, s, ph, lim = np.broadcast_arrays(*(as_float(v) for v in (time_from, s_from, phase, limit)))
    out = np.empty(t.size)
    lim_f = np.where(np.isfinite(lim), lim, t + 240.0).ravel()
    _onset_many(sleep_params.kernel(params), _f(t.ravel()), _f(s.ravel()), _f(ph.ravel()),
                _f(lim_f), out)  # fmt: skip
    return out.reshape(t.shape)


def spontaneous_wake(
    onset: Numeric,
    s_onset: Numeric,
    phase: Numeric = 0.0,
    quality: Numeric = 1.0,
    limit: Numeric = np.inf,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> FloatArray:
    """Wake time of a sleep starting at ``onset``: first ``S + C >= G_wake`` (reference §4.2).

    Capped at ``onset + max_sleep`` (10 h) and at ``limit`` (forced wake, §4.3.1).

    Parameters
    ----------
    onset : numeric
        Sleep onset. [epoch h]
    s_onset : numeric
        S at onset. [TPM units]
    phase : numeric
        Constant body-clock offset φ. [h]
    quality : numeric
        Restorative value per hour of sleep q. [-]
    limit : numeric
        Forced wake. [epoch h]

    Returns
    -------
    numpy.ndarray
        Wake time [epoch h] (1-minute tolerance).
    """
    arrays = np.broadcast_arrays(*(as_float(v) for v in (onset, s_onset, phase, quality, limit)))
    t, s, ph, q, lim = (_f(a.ravel()) for a in arrays)
    out = np.empty(t.size)
    _wake_many(sleep_params.kernel(params), t, s, ph, q, lim, out)
    return out.reshape(arrays[0].shape)


def inflight_efficiency(alertness_gate: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """Fraction of in-flight rest spent asleep, ``e = e_max·g(S + C)`` (reference §5.2).

    ``g`` is 1 when ``S + C <= G_on``, 0.4 when ``S + C >= G_wake``, linear between.
    """
    x = as_float(alertness_gate)
    g_lo, g_hi = params.inflight_efficiency_range
    frac = np.clip((x - params.gate_onset) / (params.gate_wake - params.gate_onset), 0.0, 1.0)
    return params.inflight_efficiency_max * (g_hi + (g_lo - g_hi) * frac)


def inflight_sleep(
    window_hours: Numeric,
    alertness_gate: Numeric,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> tuple[FloatArray, FloatArray]:
    """Sleep inside an in-flight rest window of length D (reference §5.2).

    Parameters
    ----------
    window_hours : numeric
        D, the rest window length. [h]
    alertness_gate : numeric
        S + C at the window start. [TPM units]

    Returns
    -------
    latency, hours : numpy.ndarray
        Sleep starts ``latency = min(0.33, 0.15·D)`` after the window start and lasts
        ``min(e·(D - B), D - B - L)`` with ``B = min(0.25, 0.10·D)`` [h] (before the
        kernel's rounding to whole minutes and its 15-minute minimum).
    """
    d = as_float(window_hours)
    lat = np.minimum(sleep_params.latency_max, sleep_params.latency_fraction * d)
    buf = np.minimum(sleep_params.buffer_max, sleep_params.buffer_fraction * d)
    e = inflight_efficiency(alertness_gate, params)
    return lat, np.maximum(0.0, np.minimum(e * (d - buf), d - buf - lat))


@nb.njit(cache=True)
def _phase_many(
    k: FloatArray, t0: float, phi0: float, zt: FloatArray, zo: FloatArray, t: FloatArray,
    out: FloatArray,
) -> None:  # fmt: skip
    zphi = _zone_phases(k, t0, phi0, zt, zo)
    for i in range(t.shape[0]):
        out[i] = _wrap(_phi(k, t[i], t0, zt, zo, zphi))


def body_clock_offset(
    times: Numeric,
    start: float,
    phase_start: float,
    zone_time: Numeric,
    zone_offset: Numeric,
    params: Parameters = DEFAULT,
) -> FloatArray:
    """Body-clock offset φ(t) [h], wrapped to (-12, 12], as the sleep predictor sees it (§3).

    Parameters
    ----------
    times : numeric
        Instants at or after ``start``. [epoch h]
    start, phase_start : float
        Warm-up start [epoch h] and φ then [h].
    zone_time, zone_offset : array-like
        Body-clock target θ: UTC offset [h] of where the person is from each instant on.
    """
    t = as_float(times)
    out = np.empty(t.size)
    _phase_many(DEFAULT_SLEEP.kernel(params), float(start), float(phase_start),
                _f(zone_time), _f(zone_offset), _f(t.ravel()), out)  # fmt: skip
    return out.reshape(t.shape)
