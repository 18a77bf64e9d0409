"""The sleep predictor's window walk, restartable at a window and stopping on convergence.

:func:`vigil.model.sleep_windows.person` walks one person's sleep windows
(:func:`~vigil.model.sleep_windows.windows`) in time order, carrying the walk state
``(episodes so far, S at the last wake, last wake)``, one
:func:`~vigil.model.sleep_windows.step` per window on the person's body clock
(:func:`vigil.model._clock.clock`). This module walks by the same ``windows`` and
``step``, with two additions an optimiser needs:

* **record** (the base roster): before each window, the state the rest of the walk
  depends on is written out: the window's bounds and flags (with the end of the time
  awake after its report, which sizes the pre-duty sleep), the walk state, the last
  episode, the body-clock offset φ and its target θ. Nothing else passes from one window
  to the next: :func:`~vigil.model.sleep_windows.ground` and
  :func:`~vigil.model.sleep_inflight.inflight` read the window, the clock and the walk
  state, and only write to the output;
* **restart and stop** (a candidate): the walk skips the windows before ``from_ws``,
  starts from a recorded state (with the base's last episode seeded into the output, so
  the convergence check can compare it), and stops at the first ground window after the
  last changed duty whose recorded state equals the base's within ``eps``. From there on
  the windows, the clock and the state are the base's, so every later episode is the
  base's.

``tests/optimise/test_engine.py`` checks that the recording walk gives exactly the
episodes of :func:`vigil.model.sleep.predict_packed`.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb
import numpy as np

from vigil.model._arrays import FloatArray, IntArray
from vigil.model._clock import Clock, clock, phi, theta
from vigil.model._kernels import Consts, wrap
from vigil.model.sleep_parameters import WINDOW_INFLIGHT
from vigil.model.sleep_windows import Busy, Packed, Rest, step, window_flags, windows
from vigil.model.sleep_windows_out import Out

__all__ = ["GROUND", "Episodes", "Records", "Restart", "walk_all"]

#: Window types of :func:`vigil.model.sleep_windows.windows` (its flag column 0).
GROUND = 0

#: Per-window records (CSR by person): bounds, type, away and pre-duty-sleep flags,
#: report (NaN: none), end of the time awake after the report (``Win.off``, which sizes
#: the pre-duty sleep), the walk state before the window
#: (episodes, S at last wake, last wake), last episode, φ and θ at the window start, φ at
#: the last wake.
Records = namedtuple(
    "Records",
    ["ws", "we", "kind", "away", "nap", "report", "off", "n", "s_w", "t_wake", "last_s", "last_e",
     "phi", "theta", "phi_wake"],
)  # fmt: skip

#: Per-person restart (arrays of length n): skip windows starting before ``from_ws``,
#: start from ``(n0, s_w, t_wake)`` with ``n0`` seeded episodes already in the output,
#: check convergence from ``conv_from`` against the records of base person ``base``;
#: ``eps_out``: the S difference under which the person's later scores equal the base's
#: to the output's resolution (see :func:`walk_all`).
Restart = namedtuple("Restart", ["from_ws", "n0", "s_w", "t_wake", "conv_from", "base", "eps_out"])

#: The base's episodes (CSR by base person), which a restarted walk compares its own with.
Episodes = namedtuple("Episodes", ["ptr", "s", "e", "q", "kind"])

_TIME_TOL = 1e-9  #: [h] two instants computed alike from the same inputs are the same


#: rosters hold no held times in bed (those are the validation's laboratory beds)
_NO_BEDS = np.empty(0)


@nb.njit(cache=True, inline="always")
def _same(a: float, b: float) -> bool:
    """Equal instants, NaN equal to NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= _TIME_TOL


@nb.njit(cache=True)
def _record(
    k: Consts, c: Clock, rec: Records, r: int, wf: FloatArray, u: int, kind: float,
    away: float, nap: float, st: tuple[int, float, float], out: Out,
) -> None:  # fmt: skip
    n = st[0]
    rec.ws[r], rec.we[r], rec.kind[r], rec.away[r] = wf[u, 0], wf[u, 1], kind, away
    rec.nap[r] = nap
    rec.report[r], rec.off[r] = wf[u, 3], wf[u, 4]
    rec.n[r], rec.s_w[r], rec.t_wake[r] = n, st[1], st[2]
    last = out.base + min(n, out.cap) - 1
    has = n > 0 and n <= out.cap
    rec.last_s[r] = out.s[last] if has else math.nan
    rec.last_e[r] = out.e[last] if has else math.nan
    rec.phi[r] = phi(k, c, wf[u, 0])
    rec.theta[r] = theta(c, wf[u, 0])
    rec.phi_wake[r] = phi(k, c, st[2])


@nb.njit(cache=True)
def _converged(
    k: Consts, c: Clock, base: Records, lo: int, hi: int, wf: FloatArray, u: int,
    away: float, nap: float, st: tuple[int, float, float], out: Out, eps: float,
) -> int:  # fmt: skip
    """Index of the base record of this window if the walk state equals it, else -1."""
    j = lo + np.searchsorted(base.ws[lo:hi], wf[u, 0] - _TIME_TOL)
    if j >= hi or not _same(base.ws[j], wf[u, 0]) or base.kind[j] != GROUND:
        return -1
    if not (_same(base.we[j], wf[u, 1]) and _same(base.report[j], wf[u, 3])):
        return -1
    if not _same(base.off[j], wf[u, 4]):
        return -1
    if base.away[j] != away or base.nap[j] != nap or abs(base.s_w[j] - st[1]) > eps:
        return -1
    if not _same(base.t_wake[j], st[2]) or base.theta[j] != theta(c, wf[u, 0]):
        return -1
    n = st[0]
    last = out.base + n - 1
    if n == 0 or n > out.cap:
        return -1
    if not (_same(base.last_s[j], out.s[last]) and _same(base.last_e[j], out.e[last])):
        return -1
    if abs(wrap(phi(k, c, wf[u, 0]) - base.phi[j])) > eps:
        return -1
    return j  # type: ignore[no-any-return]


@nb.njit(cache=True)
def _same_episodes(out: Out, lo: int, hi: int, bep: Episodes, b_first: int, b_end: int) -> bool:
    """Whether the walk's episodes ``lo:hi`` equal the base's from row ``b_first`` on."""
    for m in range(lo, hi):
        b = b_first + m - lo
        if m >= out.cap or b >= b_end:
            return False
        o = out.base + m
        if not (_same(out.s[o], bep.s[b]) and _same(out.e[o], bep.e[b])):
            return False
        if out.q[o] != bep.q[b] or out.kind[o] != bep.kind[b]:
            return False
    return True


@nb.njit(cache=True)
def _person(
    k: Consts, c: Clock, t_end: float, busy: Busy, rest: Rest, sb_s: FloatArray,
    sb_e: FloatArray, out: Out, from_ws: float, st: tuple[int, float, float],
    conv_from: float, base: Records, b_lo: int, b_hi: int, eps: float, record: bool,
    rec: Records, r_lo: int, bep: Episodes, e_lo: int, e_hi: int, eps_out: float,
) -> tuple[int, int, int, int]:  # fmt: skip
    """One person's walk (the loop of :func:`vigil.model.sleep_windows.person`);
    returns (episodes, converged base record or -1, records written, the output horizon's
    base record or -1: see :func:`walk_all`)."""
    wf, wtype, waway, wnap, nwin = windows(k, c.t0, t_end, busy, rest)
    worder = np.argsort(wf[:nwin, 0])
    r = 0
    mark, mark_n, mark_b = -1, 0, 0  # the output horizon: base record, episodes there
    for wi in range(nwin):
        u = worder[wi]
        if wf[u, 0] < from_ws - _TIME_TOL:
            continue
        is_away, is_nap = window_flags(wtype[u], waway[u], wnap[u])
        away = 1.0 if is_away else 0.0
        nap = 1.0 if is_nap else 0.0
        if record:
            _record(k, c, rec, r_lo + r, wf, u, wtype[u], away, nap, st, out)
            r += 1
        elif wtype[u] == GROUND and wf[u, 0] >= conv_from - _TIME_TOL:
            if mark >= 0 and not _same_episodes(out, mark_n, st[0], bep, mark_b, e_hi):
                mark = -1  # a later sleep differs: the output horizon moves on
            j = _converged(k, c, base, b_lo, b_hi, wf, u, away, nap, st, out, eps)
            if j >= 0:
                return st[0], j, r, (mark if mark >= 0 else j)
            if mark < 0 and eps_out > eps:
                j = _converged(k, c, base, b_lo, b_hi, wf, u, away, nap, st, out, eps_out)
                if j >= 0:
                    mark, mark_n, mark_b = j, st[0], e_lo + base.n[j]
        st = step(k, c, wf, u, wtype[u], is_away, is_nap, st, sb_s, sb_e, _NO_BEDS, _NO_BEDS, out)
    if mark >= 0 and not (
        _same_episodes(out, mark_n, st[0], bep, mark_b, e_hi) and e_hi - mark_b == st[0] - mark_n
    ):
        mark = -1
    return st[0], -1, r, mark


@nb.njit(cache=True, parallel=True)
def walk_all(
    k: Consts, p: Packed, rs: Restart, base: Records, base_ptr: IntArray, eps: float,
    record: bool, rec: Records, rec_ptr: IntArray, o_ptr: IntArray, o_s: FloatArray,
    o_e: FloatArray, o_q: FloatArray, o_k: IntArray, count: IntArray, conv: IntArray,
    written: IntArray, bep: Episodes, conv_out: IntArray,
) -> None:  # fmt: skip
    """Walk every person of ``p`` (``prange``): episodes into ``o_*`` rows ``o_ptr[i]:``
    (the first ``rs.n0[i]`` already seeded), ``count[i]`` of them, the converged base
    record in ``conv[i]`` (-1: ran to the horizon), records (``record``) into ``rec``.

    ``conv_out[i]``, the **output horizon**: the first base record (window) after
    ``conv_from`` where the state equals the base's with S within ``rs.eps_out[i]``
    (everything else as for ``conv``) *and* every later episode the walk places is the
    base's (checked until ``conv`` or the end). From there on the sleep is the base's and
    S differs by at most ``eps_out``: S awake ``la + (S0 - la)·exp(d·t)`` and asleep
    (linear, then exponential with the same slope at the break level, reference §2.1)
    never widen a difference in S, so later scores move by at most what ``eps_out``
    moves them. -1: none (the candidate's scores differ up to the chain's end)."""
    for i in nb.prange(p.start.shape[0]):
        z0, z1 = p.zone_ptr[i], p.zone_ptr[i + 1]
        c0, c1 = p.busy_ptr[i], p.busy_ptr[i + 1]
        v0, v1 = p.window_ptr[i], p.window_ptr[i + 1]
        s_0, s_1 = p.standby_ptr[i], p.standby_ptr[i + 1]
        c = clock(k, p.start[i], p.phase_start[i], p.zone_time[z0:z1], p.zone_offset[z0:z1])
        busy = Busy(p.busy_start[c0:c1], p.busy_end[c0:c1], p.busy_lead[c0:c1],
                    p.busy_lag[c0:c1], p.busy_away[c0:c1], p.busy_nap[c0:c1])  # fmt: skip
        rest = Rest(p.window_start[v0:v1], p.window_end[v0:v1], p.window_kind[v0:v1],
                    p.window_quality[v0:v1])  # fmt: skip
        out = Out(o_s, o_e, o_q, o_k, o_ptr[i], o_ptr[i + 1] - o_ptr[i])
        if math.isinf(rs.from_ws[i]):
            st = (0, p.s_start[i], p.start[i])
        else:
            st = (rs.n0[i], rs.s_w[i], rs.t_wake[i])
        b = rs.base[i]
        b_lo, b_hi = (base_ptr[b], base_ptr[b + 1]) if b >= 0 else (0, 0)
        r_lo = rec_ptr[i] if record else 0
        e_lo, e_hi = (bep.ptr[b], bep.ptr[b + 1]) if b >= 0 else (0, 0)
        n, j, r, m = _person(k, c, p.end[i], busy, rest, p.standby_start[s_0:s_1],
                             p.standby_end[s_0:s_1], out, rs.from_ws[i], st, rs.conv_from[i],
                             base, b_lo, b_hi, eps, record, rec, r_lo, bep, e_lo, e_hi,
                             rs.eps_out[i])  # fmt: skip
        count[i], conv[i], written[i], conv_out[i] = n, j, r, m


def empty_records(size: int) -> Records:
    """Records with room for ``size`` windows."""
    f = [np.full(size, np.nan) for _ in Records._fields]
    values = dict(zip(Records._fields, f, strict=True))
    values["n"] = np.zeros(size, np.int64)
    return Records(**values)


__all__ += ["Packed", "empty_records", "WINDOW_INFLIGHT"]
