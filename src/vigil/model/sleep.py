"""Sleep prediction from sleep opportunities: the S + C gates of the Three-Process Model.

Pure array code (NumPy + Numba; time is float64 epoch hours, offsets in hours). The
scoring layer (:mod:`vigil.scoring.predict`) turns a roster into the packed arrays this
module consumes (:class:`PackedSleepInput`): per crew member the "busy" intervals (duties,
awake-at-work activities) with the lead and lag times that bound the sleep windows around
them, the in-duty rest windows (in-flight rest, split-duty breaks), home-standby intervals
and the body-clock target timeline. One Numba kernel then walks each person's windows
forward in time, carrying the homeostat S, and places sleep. By concept:

* :mod:`.sleep_gates`: the onset and wake gates (reference §4.2), on the layover's
  sleep-timing clock when away (§4.3.4);
* :mod:`.sleep_windows`: the windows of one person and the rules of §4.1, §4.3 and §7;
* :mod:`.sleep_inflight`: sleep in in-flight rest windows (§5.2);
* :mod:`.sleep_parameters`: the rule constants; :mod:`._clock`: φ(t) per person;
  :mod:`._kernels`: the scalar closed forms shared with the simulator.

Every rule, its source or its [C] (project choice) mark is listed in docs/sleep.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np

from ._arrays import FloatArray, IntArray, Numeric, as_float
from ._clock import clock, phi
from ._kernels import Consts, wrap
from .parameters import DEFAULT, Parameters
from .sleep_gates import gate_onset, spontaneous_wake
from .sleep_inflight import inflight_efficiency, inflight_sleep
from .sleep_parameters import (
    DEFAULT_SLEEP,
    KIND_INFLIGHT,
    KIND_MAIN,
    KIND_NAP,
    WINDOW_INFLIGHT,
    WINDOW_SPLIT,
    SleepParameters,
)
from .sleep_windows import Packed, kernel

__all__ = [
    "DEFAULT_SLEEP",
    "KIND_INFLIGHT",
    "KIND_MAIN",
    "KIND_NAP",
    "WINDOW_INFLIGHT",
    "WINDOW_SPLIT",
    "PackedSleepInput",
    "asleep_hours",
    "SleepParameters",
    "body_clock_offset",
    "gate_onset",
    "inflight_efficiency",
    "inflight_sleep",
    "predict_packed",
    "spontaneous_wake",
]


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
        after it (layover sleep timing, §4.3.4); ``nap``: 1 when a pre-duty nap may precede
        it (§4.3.3).
    window_ptr, window_start, window_end, window_kind, window_quality : CSR
        Sleep windows inside duties: ``WINDOW_INFLIGHT`` (rest window, ref §5.2) or
        ``WINDOW_SPLIT`` (the sleepable part of a split-duty break, §7); quality q per hour.
    standby_ptr, standby_start, standby_end : CSR
        Home standby (sleep overlapping one has q = 0.9, ref §4.3.6).
    bed_ptr, bed_start, bed_end : CSR
        Held times in bed: the person stays in bed from ``bed_start`` to ``bed_end``
        whether asleep or not (a laboratory protocol's time in bed); sleep in them follows
        the held-bed rule (:func:`vigil.model.sleep_windows.held`, docs/model.md). Empty
        for rosters: field crews get up when they wake (the gates of ref §4.2).
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
    bed_ptr: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))
    bed_start: FloatArray = field(default_factory=lambda: np.empty(0))
    bed_end: FloatArray = field(default_factory=lambda: np.empty(0))


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
    args = Packed(*[as_type(getattr(packed, name)) for name, as_type in _PACKED_TYPES])
    # the optional CSR inputs default to none for everyone: one pointer row per person
    for ptr_name in ("standby_ptr", "bed_ptr"):
        if getattr(args, ptr_name).shape[0] != n + 1:
            args = args._replace(**{ptr_name: np.zeros(n + 1, np.int64)})
    span = np.maximum(packed.end - packed.start, 0.0)
    busy, windows, beds = args.busy_ptr, args.window_ptr, args.bed_ptr
    n_windows = (busy[1:] - busy[:-1]) + (windows[1:] - windows[:-1]) + 2 * (beds[1:] - beds[:-1])
    cap = (np.ceil(span / 10.0) + 2 * n_windows + 4).astype(np.int64)
    for _ in range(2):  # second pass only if some person overflowed its capacity
        o_ptr = np.zeros(n + 1, np.int64)
        cap.cumsum(out=o_ptr[1:])
        total = int(o_ptr[-1])
        o_s, o_e, o_q = np.empty(total), np.empty(total), np.empty(total)
        o_k = np.empty(total, np.int64)
        count = np.zeros(n, np.int64)
        kernel(k, args, o_ptr, o_s, o_e, o_q, o_k, count)
        if (count <= cap).all():
            break
        cap = np.maximum(cap, count)
    ptr = np.zeros(n + 1, np.int64)
    count.cumsum(out=ptr[1:])
    if n == 1:  # one person (a synchronous request): its episodes are the first rows
        m = int(count[0])
        return ptr, o_s[:m], o_e[:m], o_q[:m], o_k[:m]
    keep = np.repeat(o_ptr[:-1] - ptr[:-1], count) + np.arange(int(ptr[-1]))
    return ptr, o_s[keep], o_e[keep], o_q[keep], o_k[keep]


def asleep_hours(
    start: Numeric, end: Numeric, kind: Numeric, sleep_params: SleepParameters = DEFAULT_SLEEP
) -> FloatArray:
    """Time asleep in predicted episodes [h]: the one quantity the model reports as sleep.

    A predicted ground episode (``KIND_MAIN``, ``KIND_NAP``) is a sleep period, onset to
    wake; S recovers over it at the TPM's rate, a rate per hour of sleep period (the
    habitual 23:00-07:00 night in bed restores S to 13.82, reference §2.1, the wake in it
    included). The minutes asleep in it are ``ground_efficiency`` (0.88, Signal et al.
    2013, polysomnography of flight crew in layover hotels) of its length; that is what
    actigraphy measures and what the validation compares. An in-flight episode
    (``KIND_INFLIGHT``) is already time asleep (Σ of the per-minute propensity, §5.2).

    Parameters
    ----------
    start, end : numeric
        Episode bounds. [epoch h]
    kind : numeric
        ``KIND_MAIN``, ``KIND_NAP`` or ``KIND_INFLIGHT``.
    """
    length = np.maximum(as_float(end) - as_float(start), 0.0)
    ground = np.asarray(kind) != KIND_INFLIGHT
    return np.where(ground, length * sleep_params.ground_efficiency, length)


def _f(x: object) -> FloatArray:
    return np.ascontiguousarray(x, dtype=np.float64)


def _i(x: object) -> IntArray:
    return np.ascontiguousarray(x, dtype=np.int64)


#: each kernel input field with its conversion: pointers and kinds are integers
_PACKED_TYPES = tuple(
    (name, _i if name.endswith(("_ptr", "_kind")) else _f) for name in Packed._fields
)


@nb.njit(cache=True)
def _phase_many(
    k: Consts, t0: float, phi0: float, zt: FloatArray, zo: FloatArray, t: FloatArray,
    out: FloatArray,
) -> None:  # fmt: skip
    c = clock(k, t0, phi0, zt, zo)
    for i in range(t.shape[0]):
        out[i] = wrap(phi(k, c, t[i]))


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
