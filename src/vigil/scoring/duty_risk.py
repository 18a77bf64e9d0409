"""Per-duty risk R_d = H_d / H_ref over a laid-out chunk of crew (reference §8).

The hazard of each duty comes from :func:`vigil.model.risk.hazard_terms` and
:func:`~vigil.model.risk.hazard_sum`, the two halves of
:func:`~vigil.model.risk.duties_hazard` that :func:`vigil.model.reference_hazard` uses for
the reference duty, with exposure, time on duty, sector counts, cumulative night/early
multipliers and the cabin-crew factor taken from the :class:`~vigil.scoring.layout.Layout`
and the simulated body clock.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.contract import INTERVAL_HOURS
from vigil.model import risk
from vigil.model.simulate import body_clock_phase
from vigil.model.workload import workload_kss_fast
from vigil.scoring.grid import FloatArray
from vigil.scoring.layout import Layout
from vigil.scoring.request import DECIMALS

__all__ = [
    "COMPONENT_FIELDS",
    "DRIVER_FIELDS",
    "REASONS",
    "DutyRiskDetail",
    "RiskDrivers",
    "WidthGroup",
    "duty_reasons",
    "duty_risk_detail",
    "duty_risks",
    "reason_flags",
    "risk_drivers",
    "width_groups",
]

_CREW_STRIDE = 1.0e6  #: [h] offset separating crew rows when searching sorted episodes


@nb.njit(cache=True)
def _exposed(
    crew: npt.NDArray[np.int64],
    start: FloatArray,
    duty: npt.NDArray[np.int64],
    position: npt.NDArray[np.int64],
    off: FloatArray,
    sleep_start: FloatArray,
    sleep_end: FloatArray,
    rest_start: FloatArray,
    rest_end: FloatArray,
    inflight: npt.NDArray[np.bool_],
    out: npt.NDArray[np.bool_],
) -> None:
    """Whether the midpoint of interval ``t`` (from ``start[t]`` to the next point or to
    its duty's ``off``, whichever is first) counts in the exposure: outside the sleeps of
    crew member ``crew[t]`` and outside the in-flight rest of duty ``duty[t]``; written to
    ``out[duty[t], position[t]]``.

    Sleeps are ``(n_crew, m)`` sorted, non-overlapping, NaN-padded on the right. Instants
    are compared offset by ``crew * _CREW_STRIDE``, as the one sorted search of every
    crew's episodes that this replaces did, so edge cases round alike.
    """
    n_ep = np.zeros(sleep_start.shape[0], np.int64)
    for c in range(sleep_start.shape[0]):
        while n_ep[c] < sleep_start.shape[1] and math.isfinite(sleep_start[c, n_ep[c]]):
            n_ep[c] += 1
    for t in range(start.shape[0]):
        d = duty[t]
        a, b = start[t] + INTERVAL_HOURS, off[d]
        end = a if a <= b or math.isnan(a) else b  # np.minimum: NaN if either is
        c, m = crew[t], (start[t] + end) / 2
        query = m + c * _CREW_STRIDE
        asleep = False
        row, e = c, -1
        for j in range(n_ep[c]):  # the last episode starting at or before the midpoint
            if sleep_start[c, j] + c * _CREW_STRIDE <= query:
                e = j
            else:
                break
        if e < 0:  # none: the sorted search fell back to an earlier crew's last episode
            row = c - 1
            while row >= 0 and n_ep[row] == 0:
                row -= 1
            e = n_ep[row] - 1 if row >= 0 else -1
        if e >= 0:
            asleep = query < sleep_end[row, e] + row * _CREW_STRIDE
        resting = False
        for r in range(rest_start.shape[1]):
            if inflight[d, r] and m >= rest_start[d, r] and m < rest_end[d, r]:
                resting = True
        out[d, position[t]] = not (asleep or resting)


class DutyRiskDetail(NamedTuple):
    """R_d of every duty of a chunk with what drives it (:class:`vigil.model.risk.DutyComponents`),
    its kind (``model.NIGHT``, ``EARLY``, ``OTHER``) and place in its run of such duties."""

    risk: FloatArray
    components: risk.DutyComponents
    kind: npt.NDArray[np.int64]
    position: npt.NDArray[np.int64]
    report_body_hour: FloatArray  #: body-clock hour of day at report [h]
    sectors: FloatArray
    duty_hours: FloatArray  #: off - report [h]


class WidthGroup(NamedTuple):
    """Duties ``rows`` (layout order) laid out on a grid ``width`` intervals wide."""

    rows: npt.NDArray[np.int64]
    width: int


#: [intervals] step of the grid widths duties are grouped by (a multiple of 8: see
#: :func:`width_groups`)
_WIDTH_STEP = 16
#: [cells] grid cells a further width group must save to pay for its own NumPy passes
#: (about 30 calls: a chunk of a few duties, as one request's, is scored on one grid)
_GROUP_MIN_SAVED = 20_000


def width_groups(count: npt.NDArray[np.int64]) -> list[WidthGroup]:
    """Duties grouped so each group's (duties × width) grid is padded only to the next
    multiple of 16 intervals, not to the longest duty of the chunk.

    The risk sums (:func:`vigil.model.risk.hazard_sum`, ``duty_components``) add each
    row in NumPy's pairwise order (:mod:`vigil.model._sums`): values ``j < 8·⌊n/8⌋`` of a
    row of ``n`` (``8 <= n <= 128``) go to accumulator ``j mod 8`` and the rest are
    added after, one by one. A duty of ``c`` intervals padded with zeros to any multiple
    of 8 at least ``c`` is therefore summed bit for bit as on the chunk's grid of width
    ``W`` whenever ``c <= 8·⌊W/8⌋`` (zeros only extend the accumulators or the tail).
    Duties longer than that, and chunks narrower than 8 or wider than 128 intervals
    (where NumPy's split point moves with the width), keep width ``W``; so does every
    duty of a chunk where the groups would save fewer than ``_GROUP_MIN_SAVED`` cells
    each.
    """
    width = int(count.max())
    one = [WidthGroup(np.arange(count.size), width)]
    if width < 8 or width > 128:
        return one
    full = 8 * (width // 8)
    step = -(-np.maximum(count, 1) // _WIDTH_STEP) * _WIDTH_STEP
    grid = np.where(count <= full, np.minimum(step, full), width)
    widths = np.unique(grid)
    if count.size * width - int(grid.sum()) < _GROUP_MIN_SAVED * (widths.size - 1):
        return one  # a request's few duties: each group's NumPy passes cost more
    return [WidthGroup(np.flatnonzero(grid == w), int(w)) for w in widths]


def _without_workload(
    layout: Layout, kss_by_interval: FloatArray, params: model.Parameters
) -> FloatArray:
    """Each interval's KSS without the sector workload term at its midpoint, in [1, 9]
    (reference §6: take-offs and landings count once, as task exposure). One compiled
    pass over the chunk (one launch of the parallel kernel, not one per width group)."""
    d, k = layout.duty, layout.position
    width = int(layout.count.max())
    mid = np.full((layout.on.size, width), np.nan)
    mid[d, k] = (layout.start + np.minimum(layout.start + 0.25, layout.off[d])) / 2.0
    load = workload_kss_fast(
        mid, layout.on, layout.off, layout.sectors, layout.workload,
        layout.rest_start, layout.rest_end, params,
    )  # fmt: skip
    out: FloatArray = np.clip(kss_by_interval - np.nan_to_num(load[d, k]), 1.0, 9.0)
    return out


class _GroupTerms(NamedTuple):
    rows: npt.NDArray[np.int64]
    terms: risk.HazardTerms
    included: npt.NDArray[np.bool_]


def _group_intervals(
    layout: Layout, group: WidthGroup
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64] | slice]:
    """Row and column on the group's grid of each of its intervals, and where those
    intervals sit in the layout (``slice(None)`` when the group is every duty in layout
    order)."""
    rows = group.rows
    n = rows.size
    if n == layout.on.size:  # every duty (rows in layout order): the layout's intervals
        return layout.duty, layout.position, slice(None)
    # the group's intervals: each duty's are consecutive (layout order)
    count = layout.count[rows]
    first = np.cumsum(layout.count) - layout.count
    d = np.repeat(np.arange(n), count)
    k = np.arange(d.size) - np.repeat(np.cumsum(count) - count, count)
    return d, k, first[rows][d] + k


def _group_terms(
    layout: Layout,
    timeline: model.CrewTimeline,
    kss: FloatArray,
    params: model.Parameters,
    working: npt.NDArray[np.bool_] | None,
    body_offset: FloatArray,
    interval_crew: npt.NDArray[np.int64],
    group: WidthGroup,
) -> _GroupTerms:
    """Hazard terms and exposure mask of one :class:`WidthGroup`'s duties (rows of the
    group's grid in the order of ``group.rows``) from each interval's KSS without the
    workload term (``kss``); see :func:`duty_risk_detail`."""
    rows, width = group
    n = rows.size
    d, k, iv = _group_intervals(layout, group)
    start = layout.start[iv]
    on, off = layout.on[rows], layout.off[rows]
    rest_start, rest_end = layout.rest_start[rows], layout.rest_end[rows]
    grid = np.full((n, width), np.nan)
    grid[d, k] = kss[iv]
    included = np.zeros((n, width), dtype=bool)
    _exposed(
        interval_crew[iv],
        start,
        d,
        k,
        off,
        np.ascontiguousarray(timeline.sleep_start),
        np.ascontiguousarray(timeline.sleep_end),
        np.ascontiguousarray(rest_start),
        np.ascontiguousarray(rest_end),
        np.ascontiguousarray(layout.inflight[rows]),
        included,
    )
    if working is not None:
        at_work = np.zeros((n, width), dtype=bool)
        at_work[d, k] = working[iv]
        included &= at_work
    terms = risk.hazard_terms(
        grid, on, off, layout.sectors[rows], params, cabin_crew=layout.cabin[rows],
        body_offset=body_offset[rows], rest_start=rest_start, rest_end=rest_end,
    )  # fmt: skip
    return _GroupTerms(rows, terms, included)


def duty_risks(
    layout: Layout,
    timeline: model.CrewTimeline,
    kss_by_interval: FloatArray,
    params: model.Parameters,
    working: npt.NDArray[np.bool_] | None = None,
) -> FloatArray:
    """R_d = H_d / H_ref for every duty of the chunk (reference §8); see
    :func:`duty_risk_detail` (the same R, without the components)."""
    detail = duty_risk_detail(layout, timeline, kss_by_interval, params, working, components=False)
    return detail.risk


def _no_components() -> risk.DutyComponents:
    """Components left out: one empty array per field."""
    empty = np.empty(0)
    return risk.DutyComponents(*(empty,) * 7)


class _DutyClock(NamedTuple):
    """Body-clock phase of each duty at report and off duty, and the kind it gives."""

    phase_on: FloatArray  #: [h]
    phase_off: FloatArray  #: [h]
    report_body: FloatArray  #: report + its phase [h]
    kinds: npt.NDArray[np.int64]  #: ``model.NIGHT``, ``EARLY`` or ``OTHER``


def _duty_clock(
    layout: Layout, timeline: model.CrewTimeline, params: model.Parameters
) -> _DutyClock:
    """Body clock at report and off duty: the phase from the same simulation, two points a
    duty, and the night/early classification it gives (:func:`vigil.model.classify_duty`)."""
    slots = int(layout.slot.max()) + 1
    points = np.full((layout.n_crew, 2 * slots), np.nan)
    points[layout.crew, 2 * layout.slot] = layout.on
    points[layout.crew, 2 * layout.slot + 1] = layout.off - 1e-6
    phase = body_clock_phase(timeline, points, params)
    phase_on = phase[layout.crew, 2 * layout.slot]
    phase_off = phase[layout.crew, 2 * layout.slot + 1]
    report_body = layout.on + phase_on
    off_body = layout.off + phase_off
    kinds = model.classify_duty(report_body, off_body, params)
    return _DutyClock(phase_on, phase_off, report_body, kinds)


class _Runs(NamedTuple):
    """Each crew member's duties as (n_crew, slots) rows: kind, place in its run of nights
    or earlies, and the cumulative multiplier before the run's fatigue floor."""

    kind: npt.NDArray[np.int64]
    position: npt.NDArray[np.int64]
    multiplier: FloatArray


def _runs(layout: Layout, kinds: npt.NDArray[np.int64], params: model.Parameters) -> _Runs:
    """Runs of nights or earlies per crew member and their cumulative multiplier
    (:func:`vigil.model.risk.run_positions`, :func:`vigil.model.cumulative_multiplier`)."""
    crew_shape = (layout.n_crew, int(layout.slot.max()) + 1)
    report_rows = np.full(crew_shape, np.nan)
    off_rows = np.full(crew_shape, np.nan)
    kind_rows = np.zeros(crew_shape, dtype=np.int64)
    report_rows[layout.crew, layout.slot] = layout.on
    off_rows[layout.crew, layout.slot] = layout.off
    kind_rows[layout.crew, layout.slot] = kinds
    positions = risk.run_positions(report_rows, off_rows, kind_rows, params)
    multiplier = model.cumulative_multiplier(
        report_rows, off_rows, kind_rows, params, position=positions
    )
    return _Runs(kind_rows, positions, multiplier)


def _duty_multiplier(layout: Layout, runs: _Runs, groups: list[_GroupTerms]) -> FloatArray:
    """Each duty's cumulative multiplier with its run's fatigue floor: no recovery within
    a run of nights or earlies (§8)."""
    factor_rows = np.full(runs.kind.shape, np.nan)
    for g in groups:
        factor = risk.terms_fatigue_factor(g.terms, g.included)
        factor_rows[layout.crew[g.rows], layout.slot[g.rows]] = factor
    multiplier = runs.multiplier * risk.run_fatigue_floor(factor_rows, runs.kind, runs.position)
    out: FloatArray = multiplier[layout.crew, layout.slot]
    return out


def _hazards(
    groups: list[_GroupTerms], per_duty: FloatArray, n_duty: int, components: bool
) -> tuple[FloatArray, risk.DutyComponents]:
    """H_d of every duty (layout order) and, given ``components``, what it is made of,
    summed over each width group's grid."""
    if len(groups) == 1:  # one grid, every duty in layout order
        g = groups[0]
        hazard = risk.hazard_sum(g.terms, g.included, per_duty)
        if not components:
            return hazard, _no_components()
        return hazard, risk.duty_components(g.terms, g.included, per_duty)
    hazard = np.empty(n_duty)
    parts = [np.empty(n_duty if components else 0) for _ in risk.DutyComponents._fields]
    for g in groups:
        hazard[g.rows] = risk.hazard_sum(g.terms, g.included, per_duty[g.rows])
        if components:
            comps_g = risk.duty_components(g.terms, g.included, per_duty[g.rows])
            for part, values in zip(parts, comps_g, strict=True):
                part[g.rows] = values
    return hazard, risk.DutyComponents(*parts)


def duty_risk_detail(
    layout: Layout,
    timeline: model.CrewTimeline,
    kss_by_interval: FloatArray,
    params: model.Parameters,
    working: npt.NDArray[np.bool_] | None = None,
    *,
    components: bool = True,
) -> DutyRiskDetail:
    """R_d and its components for every duty of the chunk (:mod:`vigil.model.risk`);
    with ``components=False`` the components are left out (empty arrays), for callers
    that read only R.

    An interval is left out of the exposure sum when its midpoint lies in the person's
    own in-flight rest or in one of their sleeps (a split-duty break counts as duty only
    while awake, §7), and, given ``working`` (per interval of the layout: the at-work mask
    of :func:`vigil.scoring.controls.at_controls`, as the service passes it), when the
    person is not at work by that mask: the 20-min wake-up allowance after rest or sleep
    (Rosekind et al. 1994; EASA GM1 CAT.OP.MPA.210: duties resume after it) is then not
    counted either, so R and every other duty summary count the same time at work.

    The sleepiness component reads the interval KSS without the sector workload term
    (reference §6), so take-offs and landings enter once, as task exposure.
    Night/early classification, time of day and the typical worker's sleepiness use the
    body clock, ``t + phi(t)`` from the simulated body clock.
    """
    if layout.on.size == 0:
        empty = np.empty(0)
        return DutyRiskDetail(empty, _no_components(), np.empty(0, np.int64),
                              np.empty(0, np.int64), empty, empty, empty)  # fmt: skip
    clock = _duty_clock(layout, timeline, params)
    runs = _runs(layout, clock.kinds, params)
    body_offset = np.stack([clock.phase_on, clock.phase_off], axis=1)
    kss = _without_workload(layout, kss_by_interval, params)
    interval_crew = layout.interval_crew
    groups = [
        _group_terms(layout, timeline, kss, params, working, body_offset, interval_crew, g)
        for g in width_groups(layout.count)
    ]
    per_duty = _duty_multiplier(layout, runs, groups)
    hazard, comps = _hazards(groups, per_duty, layout.on.size, components)
    return DutyRiskDetail(
        model.duty_risk(hazard, params).round(DECIMALS),
        comps,
        clock.kinds,
        runs.position[layout.crew, layout.slot],
        np.mod(clock.report_body, 24.0),
        layout.sectors,
        layout.off - layout.on,
    )


class RiskDrivers(NamedTuple):
    """What drives one duty's R, for people: the components of
    :class:`vigil.model.risk.DutyComponents` (rounded) and plain-word reasons, with the
    duty's kind (``model.NIGHT``, ``EARLY``, ``OTHER``) and place in its run, which the
    reasons read and the stored results keep (:data:`DRIVER_FIELDS`)."""

    components: dict[str, float]
    reasons: tuple[str, ...]
    kind: int = -1
    position: int = 0


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")
_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
#: a duty is "sleepier than usual" when S is this far above the typical worker's (≈ 0.5
#: KSS step at β = ln 1.72) [C]
SLEEPY_FACTOR = 1.3
SHORT_SLEEP_HOURS = 6.0  #: [h] "short sleep": less than this asleep in the 24 h before report
LONG_DUTY_HOURS = 10.0  #: [h] "long duty": past the hours where D has risen 25 % (c = 0.129)
MANY_LANDINGS = 3  #: a duty with this many landings or more names them as a reason

#: the per-duty values a stored result keeps to explain each R without re-scoring
#: (:mod:`vigil.results.frames`): the components of :class:`RiskDrivers` in order, then
#: the duty's kind and place in its run of nights or earlies
COMPONENT_FIELDS = (
    "sleepiness",
    "timeOfDay",
    "timeOnDuty",
    "breaks",
    "consecutive",
    "workingHours",
    "taskExposure",
    "priorSleep",
)
DRIVER_FIELDS = (*COMPONENT_FIELDS, "kind", "position")

#: what can drive a duty's risk, as the "driven by" filter names it: key -> words
REASONS = {
    "night": "night",
    "early": "early start",
    "consecutive": "consecutive nights or earlies",
    "long": "long duty",
    "landings": "three or more landings",
    "shortSleep": "short sleep",
    "sleepy": "sleepier than usual for the hour",
}


def reason_flags(
    kind: npt.ArrayLike,
    position: npt.ArrayLike,
    duty_hours: npt.ArrayLike,
    sectors: npt.ArrayLike,
    prior_sleep: npt.ArrayLike,
    sleepiness: npt.ArrayLike,
) -> dict[str, npt.NDArray[np.bool_]]:
    """Which of :data:`REASONS` apply to each duty (vectorised; the rules of
    :func:`duty_reasons`, which words the same tests one duty at a time)."""
    k = np.asarray(kind)
    pos = np.asarray(position)
    run = (k == model.NIGHT) | (k == model.EARLY)
    return {
        "night": k == model.NIGHT,
        "early": k == model.EARLY,
        "consecutive": run & (pos >= 2),
        "long": np.asarray(duty_hours) >= LONG_DUTY_HOURS,
        "landings": np.asarray(sectors) >= MANY_LANDINGS,
        "shortSleep": np.asarray(prior_sleep) < SHORT_SLEEP_HOURS,
        "sleepy": np.asarray(sleepiness) >= SLEEPY_FACTOR,
    }


def duty_reasons(
    kind: int,
    position: int,
    duty_hours: float,
    sectors: int,
    prior_sleep: float,
    sleepiness: float,
) -> tuple[str, ...]:
    """The reasons a safety officer would give for one duty's risk, in their words.

    Night (touches 02:00-04:59 body time), early start (report 05:00-06:59 body time),
    the k-th consecutive night or early (k >= 2), long duty (>= 10 h), three or more
    landings, short sleep (< 6 h in the 24 h before report), sleepier than usual for the
    hour (S >= 1.3: sleepier than the typical shiftworker at those hours, e.g. after a
    long time awake or across time zones). :func:`reason_flags` applies the same rules
    to many duties at once.
    """
    reasons: list[str] = []
    word = {model.NIGHT: "night", model.EARLY: "early start"}.get(kind)
    if word is not None:
        if position >= 2:
            nth = _ORDINALS[min(position, len(_ORDINALS)) - 1]
            reasons.append(f"{nth} consecutive {'night' if kind == model.NIGHT else 'early'}")
        else:
            reasons.append(word)
    if duty_hours >= LONG_DUTY_HOURS:
        reasons.append(f"long duty ({duty_hours:.1f} h)")
    if sectors >= MANY_LANDINGS:
        reasons.append(f"{_COUNTS[min(sectors, len(_COUNTS) - 1)]} landings")
    if prior_sleep < SHORT_SLEEP_HOURS:
        reasons.append(f"short sleep ({prior_sleep:.1f} h in the 24 h before report)")
    if sleepiness >= SLEEPY_FACTOR:
        reasons.append("sleepier than usual for the hour")
    return tuple(reasons)


def prior_sleep_hours(
    timeline: model.CrewTimeline, crew: npt.NDArray[np.int64], report: FloatArray
) -> FloatArray:
    """Hours asleep in the 24 h before each duty's report (given or predicted sleep)."""
    start = np.asarray(timeline.sleep_start)[crew]
    end = np.asarray(timeline.sleep_end)[crew]
    r = report[:, None]
    overlap = np.clip(np.minimum(end, r) - np.maximum(start, r - 24.0), 0.0, None)
    out: FloatArray = np.nansum(overlap, axis=1)  # NaN padding adds nothing
    return out


def risk_drivers(detail: DutyRiskDetail, prior_sleep: FloatArray) -> list[RiskDrivers]:
    """Per duty: the components of its R and the reasons a safety officer would give
    (:func:`duty_reasons`)."""
    c = detail.components
    out: list[RiskDrivers] = []
    for i in range(detail.risk.size):
        comps = {
            "sleepiness": c.sleepiness[i],
            "timeOfDay": c.time_of_day[i],
            "timeOnDuty": c.time_on_duty[i],
            "breaks": c.breaks[i],
            "consecutive": c.consecutive[i],
            "workingHours": c.working_hours[i],
            "taskExposure": c.task_exposure[i],
            "priorSleep": prior_sleep[i],
        }
        rounded = {k: round(float(v), 3) if math.isfinite(v) else 0.0 for k, v in comps.items()}
        kind, pos = int(detail.kind[i]), int(detail.position[i])
        reasons = duty_reasons(
            kind,
            pos,
            float(detail.duty_hours[i]),
            int(detail.sectors[i]),
            float(prior_sleep[i]),
            float(c.sleepiness[i]),
        )
        out.append(RiskDrivers(rounded, reasons, kind, pos))
    return out
