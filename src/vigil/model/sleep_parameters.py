"""Constants of the sleep predictor and the named tuple its Numba kernels read.

The gates, limits, nap length, early-start advance, window margins and in-flight
efficiency live in :class:`~vigil.model.parameters.Parameters` (reference §10);
:class:`SleepParameters` holds the remaining rule constants (reference §4.3, §5.2, §7) and
the numerical settings of §9.2. :func:`sleep_constants` merges both, by field name, into the
one named tuple the kernels of :mod:`.sleep_windows`, :mod:`.sleep_gates` and
:mod:`.sleep_inflight` read.
"""

from __future__ import annotations

import functools
import math
from collections import namedtuple
from dataclasses import dataclass

from ._kernels import Consts, constants, kernel_fields, scalar_fields
from .homeostatic import S_AT_WAKING
from .parameters import ModelConstants, Parameters

__all__ = [
    "DEFAULT_SLEEP",
    "KIND_INFLIGHT",
    "KIND_MAIN",
    "KIND_NAP",
    "WINDOW_INFLIGHT",
    "WINDOW_SPLIT",
    "SleepParameters",
    "sleep_constants",
]

KIND_MAIN, KIND_NAP, KIND_INFLIGHT = 0, 1, 2  #: episode kinds in the kernel output
WINDOW_INFLIGHT, WINDOW_SPLIT = 0, 1  #: in-duty window kinds in the kernel input


@dataclass(frozen=True, slots=True)
class SleepParameters:
    """Sleep-prediction constants not in :class:`~vigil.model.parameters.Parameters`.

    [C] marks a project choice; every rule and its source is listed in docs/sleep.md.
    """

    # --- ground sleep rules (ref §4.2-4.3)
    min_wake_between: float = 1.0  # [h] no new onset within 1 h of waking [C, ours]
    nap_report_from: float = 18.0  # [h body] nap before reports 18:00-03:59, ref §4.3.3 [C]
    nap_report_to: float = 4.0  # [h body] (exclusive), ref §4.3.3 [C]
    nap_latest_end_body: float = 18.0  # [h body] nap ends by 18:00 body time, §4.3.3 [C]
    nap_earliest_start_body: float = 12.0  # [h body] nap starts at/after 12:00, §4.3.3 [C]
    #: [h] nap starts >= last wake + 3 h (ref §4.3.3 had 6 h, which blocked the second sleep
    #: of daytime breaks; Roach et al. 2016: >1 sleep in 41-50 % of daytime breaks)
    #: [C, fitted: roach2016-daytime]
    nap_after_wake: float = 3.0
    nap_min: float = 0.75  # [h] at least 45 min of nap must fit, ref §4.3.3 [C]
    #: [-] ground sleep efficiency: minutes asleep per minute of a predicted ground sleep
    #: period (onset to wake). Signal et al. 2013 (Sleep 36:109, doi:10.5665/sleep.2312):
    #: polysomnographic sleep efficiency of flight crew in the layover hotel, 88 %. S
    #: recovers over the whole period at the TPM's rate, which is a rate per hour of sleep
    #: period (23:00-07:00 in bed restores S to 13.82, ref §2.1); the time asleep the model
    #: reports (:func:`vigil.model.sleep.asleep_hours`) is this share of it [P]
    ground_efficiency: float = 0.88
    #: [h] layover sleep timing: the gates' clock moves from body time toward local time
    #: with weight w = min(1, hours since arrival / local_ramp), the share of local-time
    #: sleepers (Darwent et al. 2010 mixture, as its mean). Averaged over Holmes et al.
    #: 2012's 49.5-h layover, w = 1 - 36/99 = 0.64, their 64 % local-night sleepers.
    #: Replaces ref §4.3.4's onset gate G_on + 1.0 in 21:00-02:00 local (never fired) and
    #: 1.1-1.2's pull of both gates by 3.0·min(1, h/36) (left Holmes's crew on Doha time)
    #: [C, fitted: holmes2012, darwent2010]
    local_ramp: float = 36.0
    #: [h body] sleep need (Borbély 1982 two-process wake threshold read on the TPM's S):
    #: a sleep that begins 21:00-03:59 on the gates' clock (the body night) does not end
    #: at the wake gate before S is back at its rested waking level ``sleep_in_level``
    #: (13.82, ref §9.4), within the sleep capacity (``home_sleep``) and the window,
    #: whatever follows the window. One rule for laboratory and field: Arsintescu et al.
    #: 2021 (late finishers sleep in). The window is hand-set, not fitted: the body night
    #: of ref §4.2's U-shape, whose gate sleeps the morning rise of C cuts short. It is the
    #: window of the earlier sleep-in rule, chosen with Arsintescu's late-finish row
    #: [C, fitted: arsintescu2021-late]
    sleep_in_from_body: float = 21.0
    #: [h body] see sleep_in_from_body [C, fitted: arsintescu2021-late]
    sleep_in_to_body: float = 4.0
    sleep_in_level: float = S_AT_WAKING  # [TPM] S at waking after 8 h sleep / 16 h awake, §9.4
    #: [h body] habitual wake (ref §9.4: awake at 07:00 with S = 13.82); with it the rested
    #: person's gate onset, ``usual_onset_body`` (22:51 body), anchors the early-start
    #: bedtime advance (ref §4.3.2 recalibrated, docs/sleep.md) [C, fitted: arsintescu2021-early]
    habitual_wake_body: float = 7.0
    #: [TPM] held bed: a person kept in bed to the end of the time in bed (a laboratory
    #: protocol) is asleep in each minute that starts with S + C below this level, and
    #: falls asleep again once it is below it after a waking (two-process model, Daan,
    #: Beersma & Borbély 1984; :func:`vigil.model.sleep_windows.held`). Above the field's
    #: wake gate G_wake (11.72), which was calibrated on spontaneous waking (Åkerstedt &
    #: Gillberg 1981). Fitted by ``vigil report fit`` (group "held bed") to the forced-
    #: desynchrony beds of Roach et al. 2017, which fall at every circadian phase
    #: [C, fitted: roach2017-fd-consolidated, roach2017-fd-split]
    held_bed_gate: float = 15.0
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

    def kernel(self, params: Parameters) -> Consts:
        """The named tuple of ``params`` and these constants the sleep kernels read."""
        return sleep_constants(params, self)


#: The default sleep-prediction constants.
DEFAULT_SLEEP = SleepParameters()


#: The constants the sleep kernels read: the simulator's plus this module's (by name).
SleepConstants = namedtuple(  # type: ignore[misc]  # noqa: PYI024
    "SleepConstants",
    [
        *ModelConstants._fields,
        *kernel_fields(
            SleepParameters, ("g_lo", "g_hi", "lip", "lip_away", "usual_onset_body", "home_sleep")
        ),
    ],
)


@functools.lru_cache(maxsize=64)
def sleep_constants(p: Parameters, sp: SleepParameters) -> Consts:
    """Every scalar field of ``p`` and ``sp`` by name, the simulator's derived values, plus:

    ``g_lo``/``g_hi`` (the in-flight efficiency range) and ``lip``, a Lipschitz bound of
    S + C [TPM/h]: |dS/dt| <= max(|d|(ha - la), |g|(ha - bl)) (§2.1), |dC/dt| <=
    Ca·2π/24·(1 + |dφ/dt|) (§2.2, §3), with a 5 % margin (used by the safe gate scan);
    ``lip_away`` the same with |dφ/dt| + 12/local_ramp, for the layover's gate clock
    (:func:`._clock.local_shift`), whose shift moves by up to 12 h / local_ramp per hour;
    ``usual_onset_body`` and ``home_sleep`` (:func:`home_sleep`).
    """
    values = p.kernel._asdict()
    values.update(scalar_fields(sp))
    values["g_lo"], values["g_hi"] = p.inflight_efficiency_range
    ds = max(abs(p.d) * (p.ha - p.la), abs(p.g * (p.bl - p.ha)))
    dphi = max(values["rate_e"], values["rate_w"], 12.0 * values["phase_k"])
    values["lip"] = 1.05 * (ds + abs(p.ca) * 2.0 * math.pi / 24.0 * (1.0 + dphi))
    # on a layover the gates' clock also moves by up to 12 h / local_ramp per hour
    dphi += 12.0 / sp.local_ramp
    values["lip_away"] = 1.05 * (ds + abs(p.ca) * 2.0 * math.pi / 24.0 * (1.0 + dphi))
    values["usual_onset_body"] = usual_onset_body(p, sp)
    # the cap allows for the kernel's rounding of onset and wake up to the minute (§9.3)
    values["home_sleep"] = math.ceil(home_sleep(p, sp) * 60.0 - 1e-9) / 60.0 + 2.0 * sp.tolerance
    return constants(values, SleepConstants)


def usual_onset_body(p: Parameters, sp: SleepParameters) -> float:
    """Body-clock time of a rested person's sleep onset [h, 0-24): awake from
    ``habitual_wake_body`` (07:00) with S = ``sleep_in_level`` (13.82, ref §9.4), the first
    instant with S + C <= G_on (ref §4.2); 22:51 with the defaults (docs/sleep.md)."""

    def gap(t: float) -> float:
        s = p.la + (sp.sleep_in_level - p.la) * math.exp(p.d * t)
        c = p.cm + p.ca * math.cos(2.0 * math.pi * (sp.habitual_wake_body + t - p.p) / 24.0)
        return s + c - p.gate_onset

    lo, hi = 0.0, sp.scan_step
    while gap(hi) > 0.0:  # forward scan in 5-min steps, then bisection
        if hi >= 24.0:
            raise ValueError("no sleep onset within 24 h of the habitual wake")
        lo, hi = hi, hi + sp.scan_step
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gap(mid) > 0.0 else (lo, mid)
    return (sp.habitual_wake_body + hi) % 24.0


def _c(p: Parameters, body_time: float) -> float:
    return p.cm + p.ca * math.cos(2.0 * math.pi * (body_time - p.p) / 24.0)


def home_sleep(p: Parameters, sp: SleepParameters) -> float:
    """Length of a rested person's sleep period at home [h]: from the usual onset
    (:func:`usual_onset_body`) to the wake gate (S + C >= G_wake, ref §4.2), within
    ``max_sleep``; 8.08 h (22:51-06:56 body) with the defaults.

    It bounds every ground sleep (the sleep need does not exceed home sleep: Klerman &
    Dijk 2008, Curr Biol 18:1118, doi:10.1016/j.cub.2008.06.047, daily sleep with long
    opportunities settles near habitual sleep; field layover sleep is not longer than home
    sleep). Derived from the gates, not a free parameter.
    """
    on = usual_onset_body(p, sp)
    s_on = p.la + (sp.sleep_in_level - p.la) * math.exp(p.d * ((on - sp.habitual_wake_body) % 24.0))
    q = 1.0
    r_lin = p.g * (p.bl - p.ha)

    def s_sleep(t: float) -> float:
        tau = q * t
        if s_on >= p.bl:
            return p.ha - (p.ha - s_on) * math.exp(p.g * tau)
        tau_b = (p.bl - s_on) / r_lin
        if tau <= tau_b:
            return s_on + r_lin * tau
        return p.ha - (p.ha - p.bl) * math.exp(p.g * (tau - tau_b))

    def gap(t: float) -> float:
        return p.gate_wake - s_sleep(t) - _c(p, on + t)

    lo, hi = 0.0, sp.scan_step
    while gap(hi) > 0.0:
        if hi >= p.max_sleep:
            return p.max_sleep
        lo, hi = hi, hi + sp.scan_step
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gap(mid) > 0.0 else (lo, mid)
    return hi
