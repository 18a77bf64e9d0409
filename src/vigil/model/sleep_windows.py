"""Sleep windows of one person and the gate-driven sleep placed in them (reference §4, §7).

Ground windows lie between merged busy blocks (duties, awake-at-work activities), bounded
by each block's lead and lag (ref §4.1); in-duty windows are in-flight rest (§5.2, see
:mod:`.sleep_inflight`) and split-duty breaks (§7). :func:`person` walks the windows in time
order carrying S and places sleep with the gates of :mod:`.sleep_gates`, plus the
overrides of §4.3 (early-start bedtime advance, pre-duty nap, sleep-in, layover sleep timing).

References
----------
.. [1] Roach GD, Sargent C, Darwent D, Dawson D (2012). Duty periods with early start times
   restrict the amount of sleep obtained by short-haul airline pilots. Accid Anal Prev
   45S:22-26. doi:10.1016/j.aap.2011.09.020
.. [2] Daan S, Beersma DGM, Borbély AA (1984). Timing of human sleep: recovery process gated
   by a circadian pacemaker. Am J Physiol 246:R161-R183. doi:10.1152/ajpregu.1984.246.2.R161
.. [3] Åkerstedt T, Gillberg M (1981). The circadian variation of experimentally displaced
   sleep. Sleep 4:159-169. doi:10.1093/sleep/4.2.159
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb
import numpy as np

from ._arrays import FloatArray, IntArray
from ._clock import (
    Clock,
    body,
    body_instant_before,
    ceil_min,
    clock,
    floor_min,
    timing,
    timing_instant_before,
)
from ._kernels import Consts, s_sleep, s_wake, signed, sleep_needed
from .sleep_gates import first_onset, wake_time
from .sleep_inflight import circ_minutes, inflight
from .sleep_parameters import KIND_MAIN, KIND_NAP, WINDOW_INFLIGHT
from .sleep_windows_out import Out, State, emit

#: One person's busy items (CSR slice): start, end, lead, lag, away-after flag, nap flag.
Busy = namedtuple("Busy", ["s", "e", "lead", "lag", "away", "nap"])
#: One person's in-duty windows (CSR slice): start, end, WINDOW_* kind, quality.
Rest = namedtuple("Rest", ["s", "e", "kind", "q"])
#: One ground or split window: bounds, quality, away, report (NaN: none), nap and early
#: rules allowed, episode kind, end of the time awake from the report (the busy block's
#: end or its first in-duty rest window; NaN: none).
Win = namedtuple("Win", ["ws", "we", "q", "away", "report", "nap_ok", "early_ok", "kind", "off"])

_GROUND, _INFLIGHT, _SPLIT = 0, 1, 2


@nb.njit(cache=True, inline="always")
def arrived(w: Win) -> float:
    """Start of a layover window (the gates' local-time weight counts from it), NaN at home."""
    value: float = w.ws if w.away else np.nan
    return value


@nb.njit(cache=True)
def standby_q(k: Consts, q: float, a: float, b: float, sb_s: FloatArray, sb_e: FloatArray) -> float:
    """q of a sleep [a, b): 0.9 (at most) when it overlaps a home standby (ref §4.3.6)."""
    for u in range(sb_s.shape[0]):
        if sb_s[u] < b and a < sb_e[u]:
            capped: float = min(q, k.standby_quality)
            return capped
    return q


@nb.njit(cache=True)
def nap_length(k: Consts, w: Win, s_start: float, start: float, end: float) -> float:
    """Length of the pre-duty sleep ending at ``end`` [h], S being ``s_start`` at ``start``.

    A prophylactic sleep before night work (Dinges et al. 1987, Sleep 10:313; Schweitzer
    et al. 2006, Sleep 29:39): long enough that, awake from ``end`` to the end of the duty
    (``w.off``), S is not below its level at a habitual bedtime (8.89 after 16 h awake
    from the rested 13.82, ref §2.1; ``w.off`` is the first in-flight rest when the duty
    has one), i.e. the crew member starts the night no sleepier,
    homeostatically, than an ordinary evening ends. At least the reference's 1.5-h nap
    (``nap_length``, §4.3.3), at most the home sleep [C]. A rested person before a short
    night duty needs little more than the 1.5 h; an early riser before a duty through the
    night needs several hours (Roach et al. 2016: daytime breaks hold more than one sleep).
    """
    bedtime = s_wake(k, k.sleep_in_level, 16.0)
    awake = max(0.0, w.off - end) if not math.isnan(w.off) else 0.0
    target = k.la + (bedtime - k.la) * math.exp(-k.d * awake)
    need = sleep_needed(k, s_start, min(target, k.sleep_in_level), w.q)
    length: float = min(max(need, k.nap_length), k.home_sleep)
    return length


@nb.njit(cache=True, inline="always")
def _night_report(k: Consts, hour: float) -> bool:
    """A report at ``hour`` [0-24) falls in the pre-duty sleep's window (18:00-03:59)."""
    return hour >= k.nap_report_from or hour < k.nap_report_to  # type: ignore[no-any-return]


@nb.njit(cache=True)
def _nap_plan(k: Consts, c: Clock, w: Win, st: State) -> tuple[bool, float, float, bool]:
    """§4.3.3 pre-duty sleep before evening/night reports: (pending, start, end, fallback).

    The report is an evening or night one on the body clock (ref §4.3.3), or, on a
    layover, on the sleep-timing clock the gates read there (:func:`timing`). The sleep
    ends at the latest wake or 18:00 before the report on that clock, whichever is first,
    lasts :func:`nap_length` (S read at its start from the state at the window start),
    and starts no earlier than 12:00; kept when ``nap_min`` fits.

    ``fallback``: only the layover's clock calls the report an evening one. Then the
    pre-duty sleep is the sleep of last resort: :func:`ground` takes it only when the
    gates give no sleep from its planned start to the latest wake, so that a crew member waiting
    through a local afternoon for an evening departure sleeps before it instead of
    reporting after a day awake, and a gate sleep that the body clock allows later in the
    window is never displaced by it (docs/sleep.md).
    """
    if not w.nap_ok or math.isnan(w.report):
        return False, np.inf, np.inf, False
    away = np.nan
    fallback = False
    if not _night_report(k, body(k, c, w.report)):
        away = arrived(w)
        if math.isnan(away) or not _night_report(k, timing(k, c, w.report, away)):
            return False, np.inf, np.inf, False
        fallback = True
    t18 = timing_instant_before(k, c, w.report, k.nap_latest_end_body, away)
    nap_e = min(w.we, t18)
    earliest = timing_instant_before(k, c, nap_e, k.nap_earliest_start_body, away)
    length = k.nap_length
    for _ in range(2):  # S at the start depends on the start: two fixed-point passes
        start = max(nap_e - length, st[2])
        length = nap_length(k, w, s_wake(k, st[1], start - st[2]), start, nap_e)
    nap_s = max(nap_e - length, earliest)
    ok = nap_e - nap_s >= k.nap_min - 1e-9
    return ok, (nap_s if ok else np.inf), (nap_e if ok else np.inf), fallback


@nb.njit(cache=True)
def _nap(
    k: Consts, c: Clock, w: Win, nap_s: float, nap_e: float, t: float, st: State,
    sb_s: FloatArray, sb_e: FloatArray, out: Out,
) -> tuple[State, float]:  # fmt: skip
    """Place the pre-duty sleep if at least ``nap_min`` fits after the last wake + 3 h;
    its length is re-read from S now (:func:`nap_length`), at most the planned one."""
    n, s_w, t_wake = st
    start = max(nap_s, t, t_wake + k.nap_after_wake)
    nap_s = max(nap_s, nap_e - nap_length(k, w, s_wake(k, s_w, start - t_wake), start, nap_e))
    a = ceil_min(max(nap_s, t, t_wake + k.nap_after_wake))
    b = floor_min(nap_e)
    if b - a >= k.nap_min - 1e-9:
        qn = standby_q(k, w.q, a, b, sb_s, sb_e)
        n = emit(out, n, a, b, qn, KIND_NAP)
        s_w = s_sleep(k, s_wake(k, s_w, a - t_wake), b - a, qn)
        return (n, s_w, b), b + k.min_wake_between
    return st, t


@nb.njit(cache=True)
def _early_onset(k: Consts, c: Clock, w: Win, on: float, t: float, st: State) -> float:
    """Bedtime before a forced wake (ref §4.3.2 recalibrated; docs/sleep.md).

    The person goes to bed earlier than their *usual* bedtime (the rested gate onset,
    ``usual_onset_body``, 22:51 body) by ``early_advance_fraction`` of the sleep the forced
    wake cuts off (natural wake - window end), not before ``early_earliest_body`` nor ``t``
    (Roach et al. 2012). A gate already earlier than usual (sleep debt, e.g. after an
    early duty) counts toward that advance instead of adding to it (1.2.0; Arsintescu et
    al. 2021). A gate later than usual is advanced from the gate itself (as in 1.1).

    Continuous in the report time, so sleep before a duty never falls as it starts later.
    An advanced sleep lasts until the forced wake (the alarm): see :func:`_sleep_from`.
    """
    s_on = s_wake(k, st[1], on - st[2])
    anchor = max(on, body_instant_before(k, c, on + 12.0, k.usual_onset_body))
    natural = _natural_wake(k, c, w, s_on, on, w.q, anchor)
    cut = natural - w.we
    since = (body(k, c, anchor) - k.early_earliest_body) % 24.0
    if cut <= 0.0 or since > 12.0:  # no cut, or the gate is not between 19:30 and 07:30 body
        return on
    bed = anchor - min(k.early_advance_fraction * cut, since)
    return max(min(on, bed), t)  # type: ignore[no-any-return]


@nb.njit(cache=True)
def _natural_wake(
    k: Consts, c: Clock, w: Win, s_on: float, on: float, q: float, cap_from: float
) -> float:
    """Wake of an unconstrained sleep from ``on`` of quality ``q``, within the sleep
    capacity: ``home_sleep`` from ``cap_from`` (the onset, or for the early-start rule the
    usual bedtime when the gate opens earlier, so that an onset advanced by sleep debt
    does not also shorten the natural sleep the alarm cuts).

    The later of the wake gate (S + C >= G_wake, ref §4.2, on the layover's sleep-timing
    clock when away) and, for onsets 21:00-03:59 on that clock (the body night), the sleep
    need: S back at its rested waking level ``sleep_in_level`` (ref §9.4). One rule for
    every window, whatever follows it: a late finisher sleeps in (Arsintescu et al. 2021),
    and no sleep outlasts the home sleep (the need does not exceed home sleep).
    """
    cap_end = cap_from + k.home_sleep
    wake = wake_time(k, c, s_on, on, q, cap_end, arrived(w))
    tau = timing(k, c, on, arrived(w))
    if (tau - k.sleep_in_from_body) % 24.0 < (k.sleep_in_to_body - k.sleep_in_from_body) % 24.0:
        need = sleep_needed(k, s_on, k.sleep_in_level, q)
        wake = max(wake, min(ceil_min(on + need), cap_end))
    return wake


@nb.njit(cache=True)
def _sleep_from(
    k: Consts, c: Clock, w: Win, on: float, st: State, sb_s: FloatArray, sb_e: FloatArray,
    out: Out, alarm: bool,
) -> tuple[State, float]:  # fmt: skip
    """Sleep from ``on`` to the spontaneous or forced wake; returns the state and next t.

    The episode is a sleep period (onset to wake); S recovers over it at the TPM's rate
    per hour of sleep period (the rate that restores S to 13.82 over a habitual 23:00-07:00
    night, ref §2.1, wake within it included); the minutes asleep in it are
    ``ground_efficiency`` of it (:func:`vigil.model.sleep.asleep_hours`).
    ``alarm``: an advanced bedtime before a forced wake; the sleep runs to the window end
    (or the home sleep) instead of the wake gate, which would otherwise end a sleep begun
    in the evening wake-maintenance zone within minutes [C].
    """
    n, s_w, t_wake = st
    on = min(ceil_min(on), w.we)
    s_on = s_wake(k, s_w, on - t_wake)
    cap_end = min(on + k.home_sleep, w.we)
    qe = w.q
    wake = cap_end if alarm else min(_natural_wake(k, c, w, s_on, on, qe, on), cap_end)
    if standby_q(k, qe, on, wake, sb_s, sb_e) != qe:  # sleep overlapping home standby
        qe = standby_q(k, qe, on, wake, sb_s, sb_e)
        wake = cap_end if alarm else min(_natural_wake(k, c, w, s_on, on, qe, on), cap_end)
    if wake - on >= k.min_sleep - 1e-9:
        n = emit(out, n, on, wake, qe, w.kind)
        return (n, s_sleep(k, s_on, wake - on, qe), wake), wake + k.min_wake_between
    return st, max(wake, on + k.scan_step)  # too short to count (ref §4.2): look further


@nb.njit(cache=True)
def ground(
    k: Consts, c: Clock, w: Win, st: State, sb_s: FloatArray, sb_e: FloatArray, out: Out
) -> State:
    """Gate-driven sleep inside one window (ref §4.2 and the overrides of §4.3)."""
    t = max(w.ws, st[2] + k.min_wake_between)
    nap_pending, nap_s, nap_e, fallback = _nap_plan(k, c, w, st)
    early = w.early_ok and not math.isnan(w.report)
    while True:
        lim = w.we - k.min_sleep
        if t > lim:
            break
        search_end = min(lim, nap_s) if nap_pending and not fallback else lim
        on = np.inf
        if t <= search_end:
            on = first_onset(k, c, st[1], st[2], t, search_end, arrived(w))
        if on == np.inf:
            if nap_pending:
                nap_pending = False
                st, t = _nap(k, c, w, nap_s, nap_e, t, st, sb_s, sb_e, out)
                continue
            break
        if fallback and on >= nap_s:  # a gate sleep where it would be: none of last resort
            nap_pending = False
        alarm = False
        if early and w.we - on <= k.max_sleep:
            early = False
            advanced = _early_onset(k, c, w, on, t, st)
            alarm = advanced < on
            on = advanced
        st, t = _sleep_from(k, c, w, on, st, sb_s, sb_e, out, alarm)
    return st


@nb.njit(cache=True)
def held(k: Consts, c: Clock, bs: float, be: float, st: State, out: Out) -> State:
    """Sleep in a held time in bed ``[bs, be)`` (a laboratory protocol's bed; docs/model.md).

    The gates of ref §4.2 describe spontaneous waking: calibrated on people who got up
    when they woke (Åkerstedt & Gillberg 1981; Åkerstedt & Folkard 1996), the wake gate
    ends a field sleep. A person held in bed to the end of the time in bed does not get
    up: in the two-process model (Daan, Beersma & Borbély 1984) sleep then runs while the
    homeostatic pressure stays beyond a circadian-modulated threshold, and after a waking
    it starts again once wakefulness has rebuilt the pressure. On the TPM's S + C: in a
    held bed the person is asleep in each minute that starts with S + C below
    ``held_bed_gate`` and awake otherwise, S recovering asleep and decaying awake minute by
    minute (near the threshold the minutes alternate, so sleep thins out where C is high).
    The minutes asleep are one sleep period (from the first of them, in one block, as
    in-flight sleep is placed, ref §5.2): its time asleep is ``ground_efficiency`` of it,
    the one definition of ground sleep (:func:`vigil.model.sleep.asleep_hours`). q = 1.
    """
    n, s_w, t_wake = st
    a0 = ceil_min(max(bs, t_wake))
    m = int(math.floor((floor_min(be) - a0) * 60.0 + 1e-6))
    if m <= 0:
        return st
    c_min = circ_minutes(k, c, a0, m)
    dt = 1.0 / 60.0
    s = s_wake(k, s_w, a0 - t_wake)
    asleep, first = 0, -1
    for i in range(m):
        if s + c_min[i] < k.held_bed_gate:
            s = s_sleep(k, s, dt, 1.0)
            asleep += 1
            if first < 0:
                first = i
        else:
            s = s_wake(k, s, dt)
    if asleep / 60.0 < k.min_sleep - 1e-9:
        return st
    a = a0 + first / 60.0
    b = a + asleep / 60.0
    n = emit(out, n, a, b, 1.0, KIND_MAIN)
    return (n, s_sleep(k, s_wake(k, s_w, a - t_wake), b - a, 1.0), b)


@nb.njit(cache=True)
def ground_held(
    k: Consts, c: Clock, w: Win, st: State, sb_s: FloatArray, sb_e: FloatArray,
    bed_s: FloatArray, bed_e: FloatArray, out: Out,
) -> State:  # fmt: skip
    """A ground window holding held times in bed (sorted by start): the held-bed rule
    (:func:`held`) inside each bed, the gates (:func:`ground`) in what lies between; the
    part after the last bed keeps the window's report and rules, the parts before a bed
    have none (a bed follows, not a duty)."""
    ws = w.ws
    for j in range(bed_s.shape[0]):
        bs, be = max(bed_s[j], ws), min(bed_e[j], w.we)
        if be <= bs:
            continue
        if bs - ws >= k.min_window:
            before = Win(ws, bs, w.q, w.away, np.nan, False, False, w.kind, np.nan)
            st = ground(k, c, before, st, sb_s, sb_e, out)
        st = held(k, c, bs, be, st, out)
        ws = be
    if w.we - ws >= k.min_window:
        after = Win(ws, w.we, w.q, w.away, w.report, w.nap_ok, w.early_ok, w.kind, w.off)
        st = ground(k, c, after, st, sb_s, sb_e, out)
    return st


@nb.njit(cache=True)
def windows(
    k: Consts, t0: float, t_end: float, busy: Busy, rest: Rest
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, int]:
    """All windows of one person, unsorted: (start/end/q/report/off, flags, n).

    Columns of the float block: start, end, q, report, the end of the time awake after
    the report (the busy block's end or the first in-duty rest in it; NaN for in-duty
    windows); of the flag block: type
    (ground, in-flight, split), away, nap allowed.
    """
    nb_ = busy.s.shape[0]
    m = nb_ + 1 + rest.s.shape[0]
    wf = np.full((m, 5), np.nan)
    wflag = np.zeros((m, 3))
    nwin = 0
    order = np.argsort(busy.s)
    free, away, j = t0, False, 0
    while j <= nb_:
        if j < nb_:
            i = order[j]
            blk_s, blk_e, lead, lag = busy.s[i], busy.e[i], busy.lead[i], busy.lag[i]
            away_after, nap_ok = busy.away[i] != 0, busy.nap[i] != 0
            j += 1
            while j < nb_ and busy.s[order[j]] < blk_e:  # merge overlapping busy items
                i2 = order[j]
                if busy.e[i2] > blk_e:
                    blk_e, lag, away_after = busy.e[i2], busy.lag[i2], busy.away[i2] != 0
                j += 1
            ws, we, report = free, min(blk_s - lead, t_end), blk_s
        else:
            j += 1
            ws, we, report, nap_ok = free, t_end, np.nan, False
            blk_e, lag, away_after = t_end, 0.0, False
        ws = max(ws, t0)
        if we - ws >= k.min_window:  # windows shorter than 1 h are ignored, ref §4.1
            wf[nwin, 0], wf[nwin, 1], wf[nwin, 2], wf[nwin, 3] = ws, we, 1.0, report
            wf[nwin, 4] = blk_e
            wflag[nwin, 0], wflag[nwin, 1], wflag[nwin, 2] = _GROUND, away, nap_ok
            nwin += 1
        free = max(free, blk_e + lag)
        away = away_after
    for v in range(nwin):  # awake from the report until the first in-duty rest, if any
        for u in range(rest.s.shape[0]):
            if wf[v, 3] <= rest.s[u] < wf[v, 4] and rest.e[u] > rest.s[u]:
                wf[v, 4] = rest.s[u]
    for u in range(rest.s.shape[0]):
        if rest.e[u] > rest.s[u] and rest.s[u] >= t0 and rest.e[u] <= t_end:
            wf[nwin, 0], wf[nwin, 1], wf[nwin, 2], wf[nwin, 3] = (
                rest.s[u],
                rest.e[u],
                rest.q[u],
                np.nan,
            )
            wflag[nwin, 0] = _INFLIGHT if rest.kind[u] == WINDOW_INFLIGHT else _SPLIT
            nwin += 1
    return wf, wflag[:, 0], wflag[:, 1], wflag[:, 2], nwin


@nb.njit(cache=True, inline="always")
def window_flags(wtype: float, waway: float, wnap: float) -> tuple[bool, bool]:
    """(away, nap allowed) of a window from :func:`windows`' flag columns: a split-duty
    break is neither."""
    split = wtype == _SPLIT
    return waway != 0 and not split, wnap != 0 and not split


@nb.njit(cache=True)
def step(
    k: Consts, c: Clock, wf: FloatArray, u: int, wtype: float, away: bool, nap: bool,
    st: State, sb_s: FloatArray, sb_e: FloatArray, bed_s: FloatArray, bed_e: FloatArray,
    out: Out,
) -> State:  # fmt: skip
    """One step of the walk: the sleep placed in window ``u`` of :func:`windows` (type
    ``wtype``, flags from :func:`window_flags`) from walk state ``st``; the state after it.
    A ground window holding a held time in bed (``bed_s``/``bed_e``, sorted by start;
    empty for rosters) is walked by :func:`ground_held`. :func:`person` and the
    optimiser's restartable walk (:mod:`vigil.optimise._walk`) both walk by it."""
    if wtype == _INFLIGHT:
        return inflight(k, c, wf[u, 0], wf[u, 1], wf[u, 2], st, out)
    split = wtype == _SPLIT
    kind = KIND_NAP if split else KIND_MAIN
    w = Win(wf[u, 0], wf[u, 1], wf[u, 2], away, wf[u, 3], nap, not split, kind, wf[u, 4])
    if not split and _holds_bed(w, bed_s, bed_e):
        return ground_held(k, c, w, st, sb_s, sb_e, bed_s, bed_e, out)
    return ground(k, c, w, st, sb_s, sb_e, out)


@nb.njit(cache=True)
def person(
    k: Consts, c: Clock, t_end: float, s0: float, busy: Busy, rest: Rest,
    sb_s: FloatArray, sb_e: FloatArray, bed_s: FloatArray, bed_e: FloatArray, out: Out,
) -> int:  # fmt: skip
    """Predict one person's sleep; returns the number of episodes (may exceed ``out.cap``).

    Ground windows holding a held time in bed (``bed_s``/``bed_e``, empty for rosters) are
    walked by :func:`ground_held`."""
    wf, wtype, waway, wnap, nwin = windows(k, c.t0, t_end, busy, rest)
    bed_order = np.argsort(bed_s)
    bs_sorted, be_sorted = bed_s[bed_order], bed_e[bed_order]
    worder = np.argsort(wf[:nwin, 0])
    st = (signed(0), s0, c.t0)  # S known at the last wake (s_w at t_wake), ref §9.2 step 1
    for wi in range(nwin):
        u = worder[wi]
        away, nap = window_flags(wtype[u], waway[u], wnap[u])
        st = step(k, c, wf, u, wtype[u], away, nap, st, sb_s, sb_e, bs_sorted, be_sorted, out)
    return st[0]


@nb.njit(cache=True)
def _holds_bed(w: Win, bed_s: FloatArray, bed_e: FloatArray) -> bool:
    """Whether a held time in bed overlaps the window."""
    for j in range(bed_s.shape[0]):
        if bed_s[j] < w.we and w.ws < bed_e[j]:
            return True
    return False


#: The packed input of all people (CSR arrays, see :class:`~vigil.model.sleep.PackedSleepInput`).
Packed = namedtuple(
    "Packed",
    [
        "start", "end", "s_start", "phase_start", "zone_ptr", "zone_time", "zone_offset",
        "busy_ptr", "busy_start", "busy_end", "busy_lead", "busy_lag", "busy_away", "busy_nap",
        "window_ptr", "window_start", "window_end", "window_kind", "window_quality",
        "standby_ptr", "standby_start", "standby_end", "bed_ptr", "bed_start", "bed_end",
    ],
)  # fmt: skip


@nb.njit(cache=True, parallel=True)
def kernel(
    k: Consts, p: Packed, o_ptr: IntArray, o_s: FloatArray, o_e: FloatArray,
    o_q: FloatArray, o_k: IntArray, count: IntArray,
) -> None:  # fmt: skip
    """Predict every person of ``p`` (``prange`` over people); ``count[i]`` episodes each."""
    for i in nb.prange(p.start.shape[0]):
        z0, z1 = p.zone_ptr[i], p.zone_ptr[i + 1]
        c0, c1 = p.busy_ptr[i], p.busy_ptr[i + 1]
        v0, v1 = p.window_ptr[i], p.window_ptr[i + 1]
        s_0, s_1 = p.standby_ptr[i], p.standby_ptr[i + 1]
        h_0, h_1 = p.bed_ptr[i], p.bed_ptr[i + 1]
        c = clock(k, p.start[i], p.phase_start[i], p.zone_time[z0:z1], p.zone_offset[z0:z1])
        busy = Busy(p.busy_start[c0:c1], p.busy_end[c0:c1], p.busy_lead[c0:c1],
                    p.busy_lag[c0:c1], p.busy_away[c0:c1], p.busy_nap[c0:c1])  # fmt: skip
        rest = Rest(p.window_start[v0:v1], p.window_end[v0:v1], p.window_kind[v0:v1],
                    p.window_quality[v0:v1])  # fmt: skip
        out = Out(o_s, o_e, o_q, o_k, o_ptr[i], o_ptr[i + 1] - o_ptr[i])
        count[i] = person(k, c, p.end[i], p.s_start[i], busy, rest,
                          p.standby_start[s_0:s_1], p.standby_end[s_0:s_1],
                          p.bed_start[h_0:h_1], p.bed_end[h_0:h_1], out)  # fmt: skip
