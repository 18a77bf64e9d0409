"""Per-duty fatigue risk of reference §8, rebuilt from published components.

``R_d = H_d / H_ref`` with, over the duty's working 15-minute intervals i (own in-flight
rest and sleep excluded) and its take-offs and landings e,

``H_d = Σ_i h_i·Δt_i + Σ_e E_e·h(t_e)``, ``h = S·T·D·B·M``:

- **S, sleepiness** ``exp(β(K − K_typ(τ)))``: K the interval's KSS without the sector
  workload term (take-offs and landings count once, through E), K_typ(τ) the KSS of a
  typical rotating three-shift worker at the same body hour τ (:func:`typical_kss`), β =
  ln 1.72 per KSS step of model-predicted sleepiness (Åkerstedt et al. 2008 [1]_). The
  injury trends below were observed on such workers, so they already hold the typical
  worker's sleepiness; S adds only the sleepiness beyond it (short sleep, long time
  awake, jet lag), and takes it away from a crew member more rested than typical.
- **T, time of day** ``1 + a·cos(2π(τ − 0 h)/24)``: the circadian rhythm in the risk of
  injuries and accidents peaks about midnight, earlier than sleepiness (Folkard,
  Lombardi & Spencer 2006 [2]_; the time-of-day component of the HSE Fatigue and Risk
  Index, Spencer, Robertson & Folkard 2006 [3]_); the amplitude a is fitted to the
  three-shift trend (Smith et al. 1994; Folkard & Åkerstedt 2004).
- **D, time on duty** ``exp(c·max(0, hours on duty − 8))``: risk rises about
  exponentially after 8-9 h on duty (Folkard & Tucker 2003 [4]_; Folkard & Lombardi
  2006); c fitted to the 12-h over 8-h shift risk.
- **B, breaks**: within a spell of work risk rises linearly from the first to the fourth
  half hour, where it is double (Tucker, Folkard & Macdonald 2003 [5]_), then stays; an
  own rest window (in-flight rest or a split-duty break) starts a new spell.
- **M, consecutive duties**: Folkard & Tucker's (2003) risk by night (and early) number,
  with :func:`run_fatigue_floor`.
- **E, task exposure**: each take-off and landing adds ``E_to`` and ``E_ld``
  cruise-hour equivalents evaluated at its nearest point, from the share of fatal
  accidents by phase of flight per exposure time (Boeing Statistical Summary).

R = 1 is the reference duty: 2 pilots, acclimatised at home, habitual 23:00-07:00 sleep,
report 10:00, off 20:00, 2 sectors, Workload 0. The fitted parameters and their rows are
in :mod:`vigil.validation.risk_fit`; docs/model.md "Risk" states the derivation.

Conventions (ours, where reference §8 is silent; also in docs/model.md):

- ToT uses the hours on duty at each interval's start; T, B and K_typ use its midpoint on
  the body clock (``t + φ``, φ interpolated between report and off duty).
- A take-off or landing is assigned to the nearest point (ties to the later one), clipped
  to the duty's intervals.
- "Consecutive" night/early duties: the previous duty of the same kind went off duty less
  than 36 h before this one reports. Night wins over early.

References
----------
.. [1] Åkerstedt T, Connor J, Gray A, Kecklund G (2008). Predicting road crashes from a
   mathematical model of alertness regulation - the Sleep/Wake Predictor. Accid Anal Prev
   40:1480-1485. doi:10.1016/j.aap.2008.03.005
.. [2] Folkard S, Lombardi DA, Spencer MB (2006). Estimating the circadian rhythm in the
   risk of occupational injuries and accidents. Chronobiol Int 23:1181-1192.
   doi:10.1080/07420520601096443
.. [3] Spencer MB, Robertson KA, Folkard S (2006). The development of a fatigue/risk
   index for shiftworkers. HSE Research Report RR446.
.. [4] Folkard S, Tucker P (2003). Shift work, safety and productivity. Occup Med
   53:95-101. doi:10.1093/occmed/kqg047
.. [5] Tucker P, Folkard S, Macdonald I (2003). Rest breaks and accident risk. Lancet
   361:680. doi:10.1016/S0140-6736(03)12566-4
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil.contract import INTERVAL_HOURS, INTERVAL_MINUTES

from ._arrays import FloatArray, IntArray, as_2d, as_float, as_shaped
from ._sums import pairwise_sum as _pairwise_sum
from .alertness import final_kss
from .homeostatic import S_AT_WAKING
from .parameters import DEFAULT, Parameters
from .scales import interval_means
from .simulate import CrewTimeline, body_clock_phase, simulate_alertness

OTHER, NIGHT, EARLY = 0, 1, 2  #: duty kinds for the cumulative multiplier (reference §8)


def classify_duty(report_body: object, off_body: object, params: Parameters = DEFAULT) -> IntArray:
    """Kind of each duty: ``NIGHT`` (1), ``EARLY`` (2) or ``OTHER`` (0) (reference §8).

    Parameters
    ----------
    report_body, off_body : array_like
        Report and off-duty instants on the body clock, ``t + φ(t)`` (epoch hours plus the
        body-clock offset at that instant; any common origin). [h]
    params : Parameters
        ``night_window`` (02:00-04:59), ``early_window`` (05:00-06:59).

    Returns
    -------
    numpy.ndarray of int64
        NIGHT if ``[report, off]`` overlaps a night window; else EARLY if the report falls in
        the early window; else OTHER. NaN input gives OTHER.
    """
    rb, ob = as_float(report_body), as_float(off_body)
    shape = np.broadcast_shapes(rb.shape, ob.shape)
    rb, ob = as_shaped(rb, shape, np.float64), as_shaped(ob, shape, np.float64)
    out = np.empty(shape, dtype=np.int64)
    (w0, w1), (e0, e1) = params.night_window, params.early_window
    rows = rb.reshape(-1), ob.reshape(-1)
    _classify(*rows, float(w0), float(w1), float(e0), float(e1), out.reshape(-1))
    return out


@nb.njit(cache=True)
def _classify(
    rb: FloatArray, ob: FloatArray, w0: float, w1: float, e0: float, e1: float, out: IntArray
) -> None:
    """Kernel of :func:`classify_duty`, one duty at a time (the same float operations)."""
    for i in range(rb.size):
        r, o = rb[i], ob[i]
        if math.isnan(r) or math.isnan(o):
            out[i] = OTHER
            continue
        k = np.floor((r - w1) / 24.0) + 1.0  # first night window that ends after the report
        if 24.0 * k + w0 < o and r < 24.0 * k + w1:
            out[i] = NIGHT
            continue
        tod = r % 24.0  # as np.mod for a positive divisor
        out[i] = EARLY if e0 <= tod < e1 else OTHER


def run_positions(
    report: object, off: object, kind: object, params: Parameters = DEFAULT
) -> IntArray:
    """Position k = 1, 2, ... of each duty in its run of consecutive night or early duties.

    Parameters
    ----------
    report, off : array_like, shape (n, d)
        Duties of each person in time order, NaN-padded. [epoch h]
    kind : array_like of int, shape (n, d)
        From :func:`classify_duty`.
    params : Parameters
        ``consecutive_gap``: a duty continues the run of its kind when the previous duty
        of the same kind went off duty less than this before it reports (reference §8 [C]).

    Returns
    -------
    numpy.ndarray of int64, shape (n, d)
        k for NIGHT and EARLY duties; 0 for OTHER duties and padding.
    """
    rep, end = as_2d(report, "report"), as_2d(off, "off")
    kinds = np.ascontiguousarray(kind, dtype=np.int64)
    out = np.zeros(rep.shape, dtype=np.int64)
    _run_positions(
        np.ascontiguousarray(rep), np.ascontiguousarray(end), kinds,
        float(params.consecutive_gap), out,
    )  # fmt: skip
    return out


@nb.njit(cache=True)
def _run_positions(
    rep: FloatArray, end: FloatArray, kinds: IntArray, gap: float, out: IntArray
) -> None:
    """Kernel of :func:`run_positions`: one pass per person and duty kind."""
    for i in range(rep.shape[0]):
        for code in (NIGHT, EARLY):
            run = 0
            last_off = -np.inf
            for j in range(rep.shape[1]):
                r = rep[i, j]
                if kinds[i, j] != code or math.isnan(r):
                    continue
                run = run + 1 if r - last_off < gap else 1
                last_off = end[i, j]
                out[i, j] = run


def cumulative_multiplier(
    report: object,
    off: object,
    kind: object,
    params: Parameters = DEFAULT,
    *,
    position: IntArray | None = None,
) -> FloatArray:
    """M_cum per duty from runs of consecutive night or early duties (reference §8).

    Parameters are those of :func:`run_positions`; ``params`` also gives
    ``night_multiplier`` and ``early_multiplier`` (k = 1, 2, 3, >= 4). ``position``, if
    given, is :func:`run_positions` of the same duties (computed here otherwise).

    Returns
    -------
    numpy.ndarray, shape (n, d)
        M_cum (1 for OTHER duties; NaN for padding).
    """
    rep = as_2d(report, "report")
    kinds = np.asarray(kind, dtype=np.int64)
    if position is None:
        position = run_positions(rep, off, kinds, params)
    out = np.empty(rep.shape)
    _multiplier(
        np.ascontiguousarray(rep),
        as_shaped(kinds, rep.shape, np.int64),
        as_shaped(position, rep.shape, np.int64),
        np.asarray(params.night_multiplier, dtype=np.float64),
        np.asarray(params.early_multiplier, dtype=np.float64),
        out,
    )
    return out


@nb.njit(cache=True)
def _multiplier(
    rep: FloatArray,
    kinds: IntArray,
    pos: IntArray,
    night: FloatArray,
    early: FloatArray,
    out: FloatArray,
) -> None:
    """Kernel of :func:`cumulative_multiplier`: the table entry of position k (last entry
    for k beyond the table), 1 for OTHER duties, NaN for padding."""
    for i in range(rep.shape[0]):
        for j in range(rep.shape[1]):
            k = pos[i, j]
            if math.isnan(rep[i, j]):
                out[i, j] = np.nan
            elif k > 0 and kinds[i, j] == NIGHT:
                out[i, j] = night[min(k - 1, night.size - 1)]
            elif k > 0 and kinds[i, j] == EARLY:
                out[i, j] = early[min(k - 1, early.size - 1)]
            else:
                out[i, j] = 1.0


def time_of_day_factor(body_hour: object, params: Parameters = DEFAULT) -> FloatArray:
    """T = ``1 + a·cos(2π(τ − acrophase)/24)`` at body hour(s) τ (module docstring).

    Folkard, Lombardi & Spencer (2006) place the acrophase of the risk rhythm about
    midnight; ``risk_tod_amplitude`` is fitted (:mod:`vigil.validation.risk_fit`).
    """
    tau = as_float(body_hour)
    angle = 2.0 * np.pi * (tau - params.risk_tod_acrophase) / 24.0
    out: FloatArray = 1.0 + params.risk_tod_amplitude * np.cos(angle)
    return out


def break_factor(spell_hours: object, params: Parameters = DEFAULT) -> FloatArray:
    """B after ``spell_hours`` of work since report or the last own rest window.

    Linear from 1 at the middle of the first half hour (0.25 h) to ``break_factor_max``
    at the middle of the fourth (1.75 h), then constant (Tucker, Folkard & Macdonald
    2003; Tucker et al. 2006 found no further rise).
    """
    spell = as_float(spell_hours)
    rise = (params.break_factor_max - 1.0) * (spell - 0.25) / params.break_ramp_hours
    out: FloatArray = np.clip(1.0 + rise, 1.0, params.break_factor_max)
    return out


def typical_kss(params: Parameters = DEFAULT) -> FloatArray:
    """K_typ: KSS of a typical rotating three-shift worker at each body hour 0..23.

    The injury and accident trends the risk components come from (Smith et al. 1994;
    Folkard & Tucker 2003; Folkard, Lombardi & Spencer 2006) were observed on workers of
    rotating three-shift systems, so their time-of-day risk already holds such a worker's
    sleepiness. ``params.risk_typical_alertness`` holds the alertness X of the validation
    scenarios SHIFT-M, SHIFT-A and SHIFT-N (the first 8-h morning, afternoon and night
    shift after days off, predicted sleep, acclimatised), hour by hour; this maps it to
    the preset's KSS (reference §2.5), clipped to 1-9.
    """
    x = np.asarray(params.risk_typical_alertness, dtype=np.float64)
    out: FloatArray = np.clip(params.kss_intercept + params.kss_slope * x, 1.0, 9.0)
    return out


#: Body hours at which the typical worker changes (the three shifts' report hours).
_SHIFT_CHANGES = (6, 14, 22)
#: Whether the typical worker changes at each body hour 0..23 (a lookup, not a search).
_CHANGES_AT = np.isin(np.arange(24), _SHIFT_CHANGES)


def typical_kss_at(body_hour: object, params: Parameters = DEFAULT) -> FloatArray:
    """K_typ at body hour(s) τ: :func:`typical_kss` at the hour midpoints, interpolated
    linearly (circularly) within each shift; at 06:00, 14:00 and 22:00 the typical worker
    changes, so it steps there instead of blending a night worker into a morning one."""
    hours = as_float(body_hour)
    out = np.empty(hours.shape)
    _typical_at(np.ascontiguousarray(hours).reshape(-1), typical_kss(params), _CHANGES_AT,
                out.reshape(-1))  # fmt: skip
    return out


@nb.njit(cache=True)
def _typical_at(
    hours: FloatArray, table: FloatArray, changes: npt.NDArray[np.bool_], out: FloatArray
) -> None:
    """:func:`typical_kss_at` of each of ``hours`` into ``out``, one pass."""
    for i in range(hours.size):
        tau = hours[i] % 24.0
        base = math.floor(tau - 0.5)
        if math.isnan(base):
            out[i] = math.nan
            continue
        share = tau - 0.5 - base
        left = int(base) % 24
        right = (left + 1) % 24
        if changes[right]:
            out[i] = table[right] if math.floor(tau) == right else table[left]
        else:
            out[i] = table[left] + (table[right] - table[left]) * share


def sleepiness_factor(kss: object, body_hour: object, params: Parameters = DEFAULT) -> FloatArray:
    """S = ``exp(β(K − K_typ(τ)))`` (Åkerstedt et al. 2008's OR per KSS step)."""
    k = as_float(kss)
    out: FloatArray = np.exp(params.risk_beta * (k - typical_kss_at(body_hour, params)))
    return out


def work_spell_hours(
    midpoint: object, report: object, rest_start: object, rest_end: object, params: Parameters
) -> FloatArray:
    """Hours since report or the end of the last own rest window of at least
    ``break_min_hours`` that ended by each interval midpoint, ``(d, w)`` [h]."""
    mid = as_2d(midpoint, "midpoint")
    start = as_float(report).reshape(-1, 1)
    begin = np.broadcast_to(start, mid.shape).copy()
    rs, re = as_2d(rest_start, "rest_start"), as_2d(rest_end, "rest_end")
    for r in range(rs.shape[1]):
        a, b = rs[:, r : r + 1], re[:, r : r + 1]
        valid = np.isfinite(a) & np.isfinite(b) & (b - a >= params.break_min_hours)
        ended = valid & (b <= mid)
        begin = np.where(ended & (b > begin), b, begin)
    return mid - begin


@nb.njit(cache=True, error_model="numpy")
def _factor_mean(
    term: FloatArray, included: npt.NDArray[np.bool_], hours: FloatArray, out: FloatArray
) -> None:
    """Hour-weighted row means of :func:`fatigue_factor`, summed in NumPy's pairwise order
    (bit-equal to the vectorised form); ``term`` is NaN where the KSS is."""
    width = term.shape[1]
    weight = np.empty(width)
    product = np.empty(width)
    for d in range(term.shape[0]):
        for j in range(width):
            w = hours[d, j] if included[d, j] and not math.isnan(term[d, j]) else 0.0
            weight[j] = w
            product[j] = (term[d, j] if w > 0 else 0.0) * w
        total = _pairwise_sum(weight)
        out[d] = _pairwise_sum(product) / total if total > 0 else np.nan


def run_fatigue_floor(factor: object, kind: object, position: object) -> FloatArray:
    """Cumulative fatigue over a run of nights (or earlies): no recovery within the run.

    The k-th duty (k >= 2) of a run of consecutive night or early duties is scored with a
    fatigue factor no lower than the highest of the earlier duties of the same run:
    ``floor_k = max(1, max(f_1 .. f_{k-1}) / f_k)``, multiplying h like M_cum.

    Why: M_cum is Folkard & Tucker's observed risk by night number [1]_, which already holds
    the fatigue of real workers over the run; the TPM instead predicts that sleepiness
    *falls* from the 2nd night on (day sleeps recover S fully), which cancels M_cum (issue
    12: 4th night 1.14x the 2nd, against 1.36/1.06 = 1.28). Folkard & Åkerstedt [2]_ name
    exactly this failure of fatigue models against the risk data: risk rises over four
    successive nights, so models overestimate recovery in short and day sleeps between
    night shifts. A model-predicted fall in fatigue within a run is therefore not credited;
    a predicted rise is kept (conservative: it then acts together with M_cum).

    Parameters
    ----------
    factor : array_like, shape (n, d)
        :func:`fatigue_factor` of each duty, in time order (NaN pad).
    kind : array_like of int, shape (n, d)
        From :func:`classify_duty`.
    position : array_like of int, shape (n, d)
        From :func:`run_positions`.

    Returns
    -------
    numpy.ndarray, shape (n, d)
        The floor (>= 1; 1 outside runs and for each run's first duty).

    References
    ----------
    .. [1] Folkard S, Tucker P (2003). Occup Med 53:95-101. doi:10.1093/occmed/kqg047
    .. [2] Folkard S, Åkerstedt T (2004). Aviat Space Environ Med 75(3 Suppl):A161-A167.
    """
    f = np.ascontiguousarray(as_2d(factor, "factor"))
    out = np.ones(f.shape)
    _run_floor(
        f,
        np.ascontiguousarray(kind, dtype=np.int64),
        np.ascontiguousarray(position, dtype=np.int64),
        out,
    )
    return out


@nb.njit(cache=True, error_model="numpy")
def _run_floor(f: FloatArray, kinds: IntArray, pos: IntArray, out: FloatArray) -> None:
    """Kernel of :func:`run_fatigue_floor`; NaN-ignoring max as ``np.fmax``."""
    for i in range(f.shape[0]):
        for code in (NIGHT, EARLY):
            running = np.nan
            for j in range(f.shape[1]):
                if kinds[i, j] != code or pos[i, j] < 1:
                    continue
                fj = f[i, j]
                if pos[i, j] == 1:
                    running = fj
                    continue
                ratio = running / fj
                if math.isnan(ratio) or ratio < 1.0:
                    ratio = 1.0
                if math.isfinite(ratio):
                    out[i, j] = ratio
                if math.isnan(running) or fj > running:
                    running = fj


def nearest_point_counts(
    event_time: object, report: object, n_intervals: object, width: int | None = None
) -> FloatArray:
    """Count events at each duty's nearest 15-minute point (reference §8).

    Parameters
    ----------
    event_time : array_like, shape (d, s)
        Take-off or landing instants per duty, NaN-padded. [epoch h]
    report : array_like, shape (d,)
        Duty report instants. [epoch h]
    n_intervals : array_like of int, shape (d,)
        Intervals per duty; events are clipped into ``0 .. n_intervals - 1``.
    width : int, optional
        Output width (default ``max(n_intervals)``).

    Returns
    -------
    numpy.ndarray, shape (d, width)
        Number of events assigned to each point.
    """
    ev = as_2d(event_time, "event_time")
    rep = as_float(report)
    n_int = np.asarray(n_intervals, dtype=np.int64)
    width = int(n_int.max()) if width is None else width
    out = np.zeros((ev.shape[0], width))
    given = np.isfinite(ev)
    k = np.floor((np.where(given, ev, 0.0) - rep[:, None]) / INTERVAL_HOURS + 0.5)
    k = np.clip(k, 0, np.maximum(n_int - 1, 0)[:, None]).astype(np.int64)
    rows = np.broadcast_to(np.arange(ev.shape[0])[:, None], ev.shape)
    np.add.at(out, (rows[given], k[given]), 1.0)
    return out


def interval_geometry(
    report: object, off: object, n_intervals: object, width: int
) -> tuple[FloatArray, FloatArray]:
    """Hours on duty at each 15-minute point and each interval's length (contract §4).

    Point k of a duty is ``report + 15k min``; interval k ends at the next point or at
    off duty, whichever is first. Both arrays are ``(d, width)``, 0 past a duty's end. [h]
    """
    rep = np.ascontiguousarray(as_float(report).reshape(-1))
    d = rep.shape[0]
    hours, length = np.empty((d, width)), np.empty((d, width))
    _interval_geometry(
        rep,
        as_shaped(off, (d,), np.float64),
        as_shaped(n_intervals, (d,), np.int64),
        hours,
        length,
    )
    return hours, length


@nb.njit(cache=True)
def _interval_geometry(
    report: FloatArray, off: FloatArray, count: IntArray, hours: FloatArray, length: FloatArray
) -> None:
    """:func:`interval_geometry` per duty: ``start = report + 0.25·k``, ``hours = start -
    report``, ``length = min(start + 0.25, off) - start`` (NaN-propagating, as NumPy's)."""
    for d in range(hours.shape[0]):
        rep, end = report[d], off[d]
        for j in range(hours.shape[1]):
            if j < count[d]:
                start = rep + INTERVAL_HOURS * j
                hours[d, j] = start - rep
                length[d, j] = -_fmax_nan(-(start + INTERVAL_HOURS), -end) - start
            else:
                hours[d, j] = 0.0
                length[d, j] = 0.0


class HazardTerms(NamedTuple):
    """The per-interval factors of ``H_d`` for a batch of duties, each ``(d, w)``.

    :func:`duties_hazard` is :func:`hazard_sum` of these; the scoring service also reads
    each duty's components from them (:func:`duty_components`).
    """

    term: FloatArray  #: S, sleepiness beyond the typical worker's; NaN past the duty's end
    tod: FloatArray  #: T, time of day
    brk: FloatArray  #: B, time since the last break
    tot: FloatArray  #: D, time-on-duty factor at each point
    length: FloatArray  #: each interval's length, 0 past the duty's end [h]
    events: FloatArray  #: take-off and landing exposure assigned to each point [h]


def hazard_terms(
    kss: object,
    report: object,
    off: object,
    sectors: object,
    params: Parameters = DEFAULT,
    *,
    cabin_crew: object = False,
    body_offset: object = 0.0,
    rest_start: object | None = None,
    rest_end: object | None = None,
) -> HazardTerms:
    """:class:`HazardTerms` of a batch of duties (arguments as :func:`duties_hazard`)."""
    k = np.ascontiguousarray(as_2d(kss, "kss"))
    d, width = k.shape
    rep = as_shaped(report, (d,), np.float64)
    end = as_shaped(off, (d,), np.float64)
    tot, length, events = np.empty(k.shape), np.empty(k.shape), np.empty(k.shape)
    _hazard_geometry(
        k,
        rep,
        end,
        as_shaped(sectors, (d,), np.int64),
        as_shaped(cabin_crew, (d,), bool),
        _hazard_constants(params),
        tot,
        length,
        events,
    )
    np.exp(tot, out=tot)
    mid = rep[:, None] + INTERVAL_HOURS * np.arange(width)[None, :] + length / 2.0
    offset = np.asarray(body_offset, dtype=np.float64)
    if offset.ndim == 2:  # φ at report and off duty: interpolate along the duty
        share = np.clip((mid - rep[:, None]) / np.maximum(end - rep, 1e-9)[:, None], 0.0, 1.0)
        phi = offset[:, :1] + (offset[:, 1:2] - offset[:, :1]) * share
    else:
        phi = np.broadcast_to(offset.reshape(-1, 1) if offset.ndim else offset, (d, 1))
    body = mid + phi
    if rest_start is None or rest_end is None:
        spell = mid - rep[:, None]
    else:
        spell = work_spell_hours(mid, rep, rest_start, rest_end, params)
    term = sleepiness_factor(k, body, params)
    return HazardTerms(
        term, time_of_day_factor(body, params), break_factor(spell, params), tot, length, events
    )


def hazard_sum(terms: HazardTerms, included: object, multiplier: object) -> FloatArray:
    """``H_d = Σ h·(w + events)`` of each duty from its :class:`HazardTerms`, with
    ``h = S·T·B·D·M`` (``multiplier``, shape (d,)) and ``w`` the interval length where
    ``included`` (shape (d, w)), 0 elsewhere."""
    d = terms.term.shape[0]
    out = np.empty(d)
    _hazard_sum(
        np.ascontiguousarray(terms.term * terms.tod * terms.brk),
        terms.tot,
        as_shaped(multiplier, (d,), np.float64),
        as_shaped(included, terms.term.shape, bool),
        terms.length,
        terms.events,
        out,
    )
    return out


def terms_fatigue_factor(terms: HazardTerms, included: object) -> FloatArray:
    """Hour-weighted mean sleepiness factor S of each duty over its exposure (NaN for a
    duty with none): the fatigue that :func:`run_fatigue_floor` carries along a run."""
    mean = np.empty(terms.term.shape[0])
    _factor_mean(
        np.ascontiguousarray(terms.term),
        as_shaped(included, terms.term.shape, bool),
        terms.length,
        mean,
    )
    return mean


class DutyComponents(NamedTuple):
    """What drives each duty's risk, ``(d,)`` each: hour-weighted means of the factors of
    h over the duty's working intervals, the task exposure and the consecutive-duty
    multiplier (module docstring)."""

    sleepiness: FloatArray  #: mean S (1: as sleepy as the typical worker at those hours)
    time_of_day: FloatArray  #: mean T
    time_on_duty: FloatArray  #: mean D
    breaks: FloatArray  #: mean B
    consecutive: FloatArray  #: M (M_cum times the run floor)
    working_hours: FloatArray  #: hours in the exposure [h]
    task_exposure: FloatArray  #: Σ E over take-offs and landings [h]


def duty_components(terms: HazardTerms, included: object, multiplier: object) -> DutyComponents:
    """:class:`DutyComponents` of the duties of ``terms``."""
    inc = as_shaped(included, terms.term.shape, bool)
    valid = np.isfinite(terms.term)
    w = np.where(inc & valid, terms.length, 0.0)
    hours = w.sum(axis=1)
    safe = np.where(hours > 0, hours, np.nan)

    def mean(values: FloatArray) -> FloatArray:
        out: FloatArray = np.where(valid, values, 0.0).__mul__(w).sum(axis=1) / safe
        return out

    return DutyComponents(
        mean(terms.term),
        mean(terms.tod),
        mean(terms.tot),
        mean(terms.brk),
        as_shaped(multiplier, (terms.term.shape[0],), np.float64),
        hours,
        np.where(valid, terms.events, 0.0).sum(axis=1),
    )


def duties_hazard(
    kss: object,
    report: object,
    off: object,
    sectors: object,
    included: object,
    multiplier: object,
    params: Parameters = DEFAULT,
    *,
    cabin_crew: object = False,
    body_offset: object = 0.0,
    rest_start: object | None = None,
    rest_end: object | None = None,
) -> FloatArray:
    """H_d of a batch of duties from their interval KSS: the one risk path (reference §8).

    The scoring service calls it for every duty it rates, and :func:`reference_hazard`
    for the reference duty, so R = 1 for that duty holds through the service too.

    Parameters
    ----------
    kss : array_like, shape (d, w)
        Mean KSS of each 15-minute interval without the sector workload term (NaN pad
        past a duty's end). [KSS]
    report, off : array_like, shape (d,)
        Report and off-duty instants. [epoch h]
    sectors : array_like, shape (d,)
        Sectors flown (take-offs and landings, spread by :func:`sector_times`).
    included : array_like of bool, shape (d, w)
        Intervals counted in the exposure (False: own in-flight rest or asleep).
    multiplier : array_like, shape (d,)
        M_cum times the run floor (:func:`cumulative_multiplier`, :func:`run_fatigue_floor`).
    params : Parameters
    cabin_crew : bool or array_like of bool, shape (d,)
    body_offset : float or array_like, shape (d,) or (d, 2)
        Body-clock offset φ [h]: one per duty, or at report and off duty (interpolated).
    rest_start, rest_end : array_like, shape (d, r), optional
        The person's own rest windows (in-flight or split-duty breaks), NaN pad: each
        of at least ``break_min_hours`` ends a work spell (B).

    Returns
    -------
    numpy.ndarray, shape (d,)
        H_d. [h-equivalents of the typical worker's risk at the T = 1 hours]
    """
    terms = hazard_terms(
        kss, report, off, sectors, params, cabin_crew=cabin_crew, body_offset=body_offset,
        rest_start=rest_start, rest_end=rest_end,
    )  # fmt: skip
    return hazard_sum(terms, included, multiplier)


def _hazard_constants(params: Parameters) -> FloatArray:
    """The scalars of :func:`_hazard_geometry`, in its order."""
    return np.array(
        [
            params.risk_beta,
            0.0,
            params.tot_coefficient,
            params.tot_onset,
            params.exposure_takeoff,
            params.exposure_landing,
            params.exposure_cabin[0],
            params.exposure_cabin[1],
            params.report_to_takeoff,
            params.landing_to_off,
        ]
    )


@nb.njit(cache=True, inline="always")
def _fmax_nan(a: float, b: float) -> float:
    """``np.maximum(a, b)``: NaN if either is NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    return max(a, b)


@nb.njit(cache=True)
def _hazard_geometry(
    kss: FloatArray,
    report: FloatArray,
    off: FloatArray,
    sectors: IntArray,
    cabin: npt.NDArray[np.bool_],
    c: FloatArray,
    tot_arg: FloatArray,
    length: FloatArray,
    events: FloatArray,
) -> None:
    """:func:`interval_geometry`, :func:`sector_times` and :func:`nearest_point_counts` of
    :func:`duties_hazard` fused per duty, in their operation order (bit-equal results):
    the ToT exponent, each interval's length and its take-off and landing exposure."""
    tot_c, tot_onset = c[2], c[3]
    width = kss.shape[1]
    n_to = np.empty(width)
    n_ld = np.empty(width)
    for d in range(kss.shape[0]):
        rep, end = report[d], off[d]
        count = 0
        for j in range(width):
            if not math.isnan(kss[d, j]):
                count += 1
        n_to[:] = 0.0
        n_ld[:] = 0.0
        f0 = rep + c[8]
        f1 = _fmax_nan(f0, end - c[9])
        leg = (f1 - f0) / max(sectors[d], 1)
        top = float(max(count - 1, 0))
        for i in range(sectors[d]):
            k = math.floor((f0 + i * leg - rep) / INTERVAL_HOURS + 0.5)
            if not math.isnan(k):  # NaN instants are not events (nearest_point_counts)
                n_to[int(min(max(k, 0.0), top))] += 1.0
            k = math.floor((f0 + (i + 1) * leg - rep) / INTERVAL_HOURS + 0.5)
            if not math.isnan(k):
                n_ld[int(min(max(k, 0.0), top))] += 1.0
        e_to, e_ld = (c[6], c[7]) if cabin[d] else (c[4], c[5])
        for j in range(width):
            valid = j < count
            start = rep + INTERVAL_HOURS * j
            hours = start - rep if valid else 0.0
            length[d, j] = -_fmax_nan(-(start + INTERVAL_HOURS), -end) - start if valid else 0.0
            tot_arg[d, j] = tot_c * _fmax_nan(0.0, hours - tot_onset)
            events[d, j] = e_to * n_to[j] + e_ld * n_ld[j]


@nb.njit(cache=True)
def _hazard_sum(
    term: FloatArray,
    tot: FloatArray,
    multiplier: FloatArray,
    included: npt.NDArray[np.bool_],
    length: FloatArray,
    events: FloatArray,
    out: FloatArray,
) -> None:
    """``H_d = Σ h·(w + events)`` (``term`` = S·T·B), summed in NumPy's order."""
    width = term.shape[1]
    row = np.empty(width)
    for d in range(term.shape[0]):
        for j in range(width):
            if math.isnan(term[d, j]):  # KSS padding
                row[j] = 0.0
            else:
                h = term[d, j] * tot[d, j] * multiplier[d]
                row[j] = h * ((length[d, j] if included[d, j] else 0.0) + events[d, j])
        out[d] = _pairwise_sum(row)


def minute_midpoints(report: float, off: float) -> FloatArray:
    """Minute-midpoint samples of a duty's intervals, ``(1, n_intervals·15)`` NaN-padded.

    Interval k covers ``[report + 15k min, min(report + 15(k+1) min, off))`` (contract §4);
    its samples are at +0.5 ... +14.5 min, those at or after ``off`` are NaN.
    """
    n_int = max(1, math.ceil(round((off - report) * 60.0, 6) / float(INTERVAL_MINUTES)))
    t = report + (np.arange(n_int * 15) + 0.5) / 60.0
    return np.where(t < off, t, np.nan)[None, :]


@functools.lru_cache(maxsize=16)
def reference_hazard(params: Parameters = DEFAULT) -> float:
    """H_ref: :func:`duties_hazard` of the reference duty, run through the same engine.

    Two pilots at home (UTC+0, acclimatised), warm-up from 07:00 three days before with
    23:00-07:00 sleep, report 10:00, off 20:00 on day 3, 2 sectors, Workload 0, M_cum = 1
    (reference §8). Cached per parameter set.
    """
    day = 20_000 * 24.0  # any midnight works: the model is time-translation invariant
    nights = np.arange(3)
    sleep_start = np.asarray((day + 23.0 + 24.0 * nights)[None, :], dtype=np.float64)
    timeline = CrewTimeline(
        start=np.array([day + 7.0]),
        s_start=np.array([S_AT_WAKING]),
        phase_start=np.zeros(1),
        sleep_start=sleep_start,
        sleep_end=sleep_start + 8.0,
        sleep_quality=np.ones_like(sleep_start),
        zone_time=np.array([[day]]),
        zone_offset=np.zeros((1, 1)),
    )
    report, off = day + 72.0 + 10.0, day + 72.0 + 20.0
    return float(duty_risk_exposure(timeline, report, off, sectors=2, workload=0.0, params=params))


def duty_risk_exposure(
    timeline: CrewTimeline,
    report: float,
    off: float,
    *,
    sectors: int,
    workload: float = 0.0,
    multiplier: float = 1.0,
    cabin_crew: bool = False,
    rest: tuple[float, float] | None = None,
    params: Parameters = DEFAULT,
) -> float:
    """H_d of one duty of one person (``timeline`` with one row), end to end.

    A convenience for tests, docs and the reference duty; the scoring layer calls the same
    :func:`duties_hazard` on whole batches. ``rest``: one own rest window (excluded from
    the exposure; it ends a work spell). The sector workload term is not in the risk's
    KSS (take-offs and landings count once); ``workload`` is kept for the signature.
    """
    del workload
    t = minute_midpoints(report, off)
    x = simulate_alertness(timeline, t, params)
    kss = interval_means(final_kss(x, 0.0, params))
    n = kss.shape[1]
    mid = report + INTERVAL_HOURS * np.arange(n) + INTERVAL_HOURS / 2.0
    included = np.ones_like(kss, dtype=bool)
    rest_start = rest_end = None
    if rest is not None:
        included[0] = ~((mid >= rest[0]) & (mid < rest[1]))
        rest_start, rest_end = np.array([[rest[0]]]), np.array([[rest[1]]])
    phase = body_clock_phase(timeline, np.array([[report, off - 1e-6]]), params)
    h = duties_hazard(
        kss, [report], [off], [sectors], included, [multiplier], params,
        cabin_crew=cabin_crew, body_offset=phase, rest_start=rest_start, rest_end=rest_end,
    )  # fmt: skip
    return float(h[0])


def duty_risk(hazard: object, params: Parameters = DEFAULT) -> FloatArray:
    """``R_d = H_d / H_ref`` (reference §8; bands in :mod:`vigil.settings.bands`)."""
    return as_float(hazard) / reference_hazard(params)
