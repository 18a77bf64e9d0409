"""The one path to a score (STYLE §3.9): roster text in, :class:`ScoreReport` out.

The CLI (``vigil score``), the scoring API (ProcessFatigue, ProcessFatigueRisk) and the
upload worker all call :func:`score`. It is synchronous, deterministic and does no I/O.

Pipeline, per chunk of crew (bounded memory, progress reported per chunk):

1. sleep the scores rest on: given SleepData (reference §4.4) or predicted (§4, §5);
2. :mod:`vigil.scoring.layout` lays out duties, intervals and the model timeline
   (warm-up start, body-clock target, sleep episodes) as flat arrays, and
   :mod:`vigil.scoring.grid` the 15-minute interval sample grid (contract §4);
3. :func:`vigil.model.interval_kss.interval_kss` gives each interval's mean final KSS
   in one compiled pass (alertness X, the workload term of §6, the KSS transform, the
   mean over the interval's samples); any other requested scale is mapped from each
   sample's KSS and then averaged per interval (§9.2 step 4);
4. per-duty risk (§8) relative to the reference duty (:mod:`vigil.scoring.duty_risk`);
5. :mod:`vigil.scoring.report` holds the results and builds every response from them.

The request records live in :mod:`vigil.scoring.request`; this module re-exports them
and the report records so callers import the scoring API from one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime

import numba
import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.domain import Schedule
from vigil.model.interval_kss import DutyRows, interval_kss
from vigil.model.scales import scale_function
from vigil.model.sleep import DEFAULT_SLEEP, predict_packed
from vigil.model.unified import unified_samples
from vigil.roster import ParsedRoster, format_error, parse_request
from vigil.scoring import grid
from vigil.scoring.controls import RestRanges, at_controls, rest_ranges
from vigil.scoring.cost import TooMuchWork, simulated_crew_days
from vigil.scoring.duty_risk import (
    RiskDrivers,
    duty_risk_detail,
    prior_sleep_hours,
    risk_drivers,
)
from vigil.scoring.grid import FloatArray, IntArray, SleepEpisode
from vigil.scoring.layout import Layout, build_layout, build_timeline
from vigil.scoring.plan import CrewPlan, plan_columns, plan_schedules, with_held_beds
from vigil.scoring.predict import horizons, pack_plan
from vigil.scoring.report import (
    DutyResult,
    ScheduleResult,
    ScoreReport,
    iso,
    sleep_json,
)
from vigil.scoring.request import (
    DECIMALS,
    SCALE_CODES,
    ScoreRequest,
    ScoringError,
    resolve_preset,
    resolve_scale,
)
from vigil.scoring.segments import GAP_DAYS, join_segments, split_long_gaps
from vigil.scoring.sleep_arrays import SleepArrays
from vigil.scoring.sleep_given import given_sleep
from vigil.scoring.zones import crew_zone_timelines

__all__ = [
    "DECIMALS",
    "SCALE_CODES",
    "DutyResult",
    "ScheduleResult",
    "ScoreReport",
    "ScoreRequest",
    "ScoringError",
    "TooMuchWork",
    "iso",
    "resolve_preset",
    "resolve_scale",
    "score",
    "plan_parsed",
    "score_plan",
    "score_parsed",
    "score_schedules",
    "sleep_for",
    "sleep_json",
]

#: Crew members simulated together: bounds peak memory (~15 samples per interval).
CHUNK_SIZE = 512
#: Below this many crew the kernels run single-threaded (see :func:`_kernel_threads`).
PARALLEL_MIN_CREW = 64

ProgressCallback = Callable[[int, int], None]


def score(
    request: ScoreRequest,
    *,
    progress: ProgressCallback | None = None,
    max_crew_days: float | None = None,
) -> ScoreReport:
    """Parse, validate and score a roster (the service's single scoring path).

    Parameters
    ----------
    request : ScoreRequest
        Roster text and options.
    progress : callable, optional
        Called as ``progress(done, total)`` in crew members after each chunk.
    max_crew_days : float, optional
        Most simulated crew-days (:func:`vigil.scoring.cost.simulated_crew_days`) to
        score; a larger roster raises :class:`~vigil.scoring.cost.TooMuchWork` after
        reading, before any scoring.

    Returns
    -------
    ScoreReport
        Scores of every schedule without data errors, in roster order of first
        appearance, and the data errors as ``row|schedule|message`` strings.

    Raises
    ------
    ScoringError
        Unknown scale or preset (request-level problems, answered 400 by the API).
    TooMuchWork
        More simulated crew-days than ``max_crew_days``.
    """
    _resolve(request)  # an unknown scale or preset is refused before the roster is read
    parsed = parse_request(
        request.roster_text,
        request.date_format,
        sleep_data=request.sleep_data,
        activity_text=request.activity_text,
        airports=request.airports,
        blank_defaults=request.blank_defaults,
    )
    return score_parsed(request, parsed, progress=progress, max_crew_days=max_crew_days)


def score_parsed(
    request: ScoreRequest,
    parsed: ParsedRoster,
    *,
    progress: ProgressCallback | None = None,
    max_crew_days: float | None = None,
) -> ScoreReport:
    """:func:`score` of a roster already read under the request's airports and blank
    defaults (a caller that also needs the parsed roster's columns reads it once)."""
    scale, scales, params = _resolve(request)
    plan = with_held_beds(plan_parsed(parsed, params), request.held_beds or {})
    if max_crew_days is not None:
        days = simulated_crew_days(plan)
        if days > max_crew_days:
            raise TooMuchWork(days, max_crew_days)
    results = score_plan(plan, params, scales, progress=progress, risk=request.risk)
    return ScoreReport(
        scale=scale,
        model_version=params.model_version,
        schedules=tuple(results),
        errors=tuple(format_error(e) for e in parsed.errors),
        risk=request.risk,
        include_sleep=request.include_sleep,
        settings_version=request.settings_version,
    )


def _resolve(request: ScoreRequest) -> tuple[str, tuple[str, ...], model.Parameters]:
    """The request's scale, every scale it asks for, and its parameters.

    Raises
    ------
    ScoringError
        Unknown scale or preset.
    """
    scale = resolve_scale(request.scale)
    scales = tuple(dict.fromkeys((scale, *(resolve_scale(s) for s in request.extra_scales))))
    return scale, scales, request.parameters or resolve_preset(request.preset)


def plan_parsed(parsed: ParsedRoster, params: model.Parameters) -> CrewPlan:
    """The plan of a parsed roster, from its duty columns (no ``Duty`` objects)."""
    return plan_columns(parsed.columns, params, DEFAULT_SLEEP, parsed.sleep, parsed.activities)


def sleep_for(
    schedules: Sequence[Schedule],
    params: model.Parameters,
    starts: Sequence[datetime] | None = None,
) -> list[list[SleepEpisode]]:
    """Given sleep where a schedule has any (contract §3.2), predicted sleep otherwise."""
    plan = plan_schedules(schedules, params, DEFAULT_SLEEP)
    if starts is not None:
        plan = replace(plan, warmup=tuple(starts))
    start = np.array([grid.epoch_hours(w) for w in plan.warmup])
    horizon = horizons(plan)
    zones = crew_zone_timelines(plan, start, np.maximum(horizon, plan.last_event + 1.0))
    return _sleep(plan, start, horizon, zones, params).episodes()


def score_schedules(
    schedules: Sequence[Schedule],
    params: model.Parameters,
    scales: Sequence[str] = ("KSS",),
    *,
    progress: ProgressCallback | None = None,
    chunk_size: int = CHUNK_SIZE,
    risk: bool = True,
) -> list[ScheduleResult]:
    """Score validated schedules chunk by chunk (see the module docstring)."""
    plan = plan_schedules(schedules, params, DEFAULT_SLEEP)
    return score_plan(plan, params, scales, progress=progress, chunk_size=chunk_size, risk=risk)


def score_plan(
    plan: CrewPlan,
    params: model.Parameters,
    scales: Sequence[str] = ("KSS",),
    *,
    progress: ProgressCallback | None = None,
    chunk_size: int = CHUNK_SIZE,
    risk: bool = True,
    gap_days: float = GAP_DAYS,
) -> list[ScheduleResult]:
    """Score every crew member of ``plan``: sleep for all at once, the rest chunk by chunk.

    A schedule with a gap at home longer than ``gap_days`` is scored as segments and
    joined again (:mod:`vigil.scoring.segments`); ``progress`` counts segments.
    """
    segments = split_long_gaps(plan, gap_days)
    plan = segments.plan
    total = plan.n_crew
    results: list[ScheduleResult] = []
    with _kernel_threads(total):
        start = np.array([grid.epoch_hours(w) for w in plan.warmup])
        horizon = horizons(plan)
        end = np.maximum(horizon, plan.last_event + 1.0)  # covers prediction and scoring
        zones = crew_zone_timelines(plan, start, end)
        sleep = _sleep(plan, start, horizon, zones, params)
        has_sleep = sleep.ptr[1:] > sleep.ptr[:-1]
        early = sleep.start[sleep.ptr[:-1][has_sleep]] < start[has_sleep]
        if early.any():  # a sleep before the warm-up start: the timeline starts with it
            has = np.flatnonzero(has_sleep)
            start = start.copy()
            start[has[early]] = sleep.start[sleep.ptr[has[early]]]
            zones = crew_zone_timelines(plan, start, end)
        for lo in range(0, total, chunk_size):
            hi = min(lo + chunk_size, total)
            results.extend(
                _score_chunk(plan, lo, hi, start, sleep.slice(lo, hi), zones, params, scales, risk)
            )
            if progress is not None:
                progress(hi, total)
    return join_segments(results, segments.owner)


def _sleep(
    plan: CrewPlan,
    start: FloatArray,
    horizon: FloatArray,
    zones: tuple[IntArray, FloatArray, FloatArray],
    params: model.Parameters,
) -> SleepArrays:
    """Given sleep where a crew member has any (contract §3.2), predicted sleep otherwise."""
    has_given = np.array([bool(s) for s in plan.sleep], dtype=bool)
    parts: list[tuple[IntArray, SleepArrays]] = []
    predicted = np.flatnonzero(~has_given)
    if predicted.size:
        packed = pack_plan(plan, start, horizon, zones, params, DEFAULT_SLEEP, crew=predicted)
        ptr, s, e, q, k = predict_packed(packed, params, DEFAULT_SLEEP)
        parts.append((predicted, SleepArrays(ptr, s, e, q, k, np.zeros(s.size, dtype=bool))))
    given = np.flatnonzero(has_given)
    if given.size:
        parts.append((given, given_sleep(plan, given, params)))
    return SleepArrays.merge(plan.n_crew, parts)


@contextmanager
def _kernel_threads(n_crew: int) -> Iterator[None]:
    """Run the Numba kernels on one thread for small batches.

    Waking a thread pool costs more than a few crew members' work (measured: 10 ms
    instead of 0.7 ms for one 28-day schedule on this 2-core machine), and a server
    already runs requests in parallel. Large batches keep every configured thread.
    """
    if n_crew >= PARALLEL_MIN_CREW:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _score_chunk(
    plan: CrewPlan,
    lo: int,
    hi: int,
    start: FloatArray,
    sleep: SleepArrays,
    zones: tuple[IntArray, FloatArray, FloatArray],
    params: model.Parameters,
    scales: Sequence[str],
    risk: bool = True,
) -> list[ScheduleResult]:
    layout = build_layout(plan, lo, hi)
    z_ptr, z_time, z_offset = zones
    z0, z1 = int(z_ptr[lo]), int(z_ptr[hi])
    chunk_zones = (z_ptr[lo : hi + 1] - z0, z_time[z0:z1], z_offset[z0:z1])
    timeline = build_timeline(start[lo:hi], sleep, chunk_zones)
    samples = grid.interval_samples(layout.start, layout.off[layout.duty])  # (T, spi)
    duties = DutyRows(
        layout.on, layout.off, layout.sectors, layout.workload, layout.rest_start, layout.rest_end
    )
    # other scales map each sample's KSS before averaging (reference §2.6, §9.2 step 4)
    native = params.alertness_model == "unified" and "LAPSES" in scales
    other = [code for code in scales if code != "KSS" and not (native and code == "LAPSES")]
    kss = np.empty(samples.shape) if other else None
    kss_means = interval_kss(  # X, workload term (§6), final KSS, interval means
        timeline, samples, layout.interval_ptr, layout.duty, duties, params, sample_kss=kss
    )
    means = {"KSS": kss_means}  # the final KSS is already in the KSS scale's [1, 9]
    if kss is not None:
        means |= _mapped_means(kss, samples, other, params)
    if native:  # the Unified Model's own lapses, S + κ·C, not below 0 (docs/model.md)
        ump = unified_samples(timeline, samples, layout.interval_ptr, params)
        means["LAPSES"] = _interval_means(np.maximum(ump.lapses, 0.0), *_padding(samples))
    per_scale = {code: means[code].round(DECIMALS) for code in scales}
    # per interval: is the crew member working (own in-flight rest left out)? Every
    # summary of the scores reads this mask, carried as each duty's rest runs
    working = at_controls(layout, sleep)
    drivers: list[RiskDrivers] | None = None
    risks = None
    if risk:
        detail = duty_risk_detail(layout, timeline, kss_means, params, working)
        risks = detail.risk
        prior = prior_sleep_hours(timeline, layout.crew, layout.on)
        drivers = risk_drivers(detail, prior)
    rest = rest_ranges(working, layout.count)
    return _results(plan, lo, hi, layout, per_scale, risks, sleep, rest, drivers)


def _results(
    plan: CrewPlan,
    lo: int,
    hi: int,
    layout: Layout,
    per_scale: dict[str, FloatArray],
    risks: FloatArray | None,
    sleep: SleepArrays,
    rest: list[RestRanges],
    drivers: list[RiskDrivers] | None = None,
) -> list[ScheduleResult]:
    """One :class:`ScheduleResult` per crew member of the chunk, slicing the score arrays;
    ``rest`` is each duty's off intervals (:func:`vigil.scoring.controls.rest_ranges`)."""
    d0 = int(plan.offsets[lo])
    bounds = (plan.offsets[lo : hi + 1] - d0).tolist()
    counts = layout.count.tolist()
    firsts = layout.column[layout.count.cumsum() - layout.count] if counts else layout.count
    risk_list = risks.tolist() if risks is not None else [None] * len(counts)
    why: list[RiskDrivers | None] = list(drivers) if drivers is not None else [None] * len(counts)
    on, off = plan.on_instant, plan.off_instant
    duties = [
        DutyResult(on[d0 + k], off[d0 + k], first, n, value, runs, reason)
        for k, (first, n, value, runs, reason) in enumerate(
            zip(firsts.tolist(), counts, risk_list, rest, why, strict=True)
        )
    ]
    row = layout.interval_ptr.tolist()
    return [
        ScheduleResult(
            reference=plan.references[lo + i],
            scores={code: arr[row[i] : row[i + 1]] for code, arr in per_scale.items()},
            duties=tuple(duties[bounds[i] : bounds[i + 1]]),
            sleep=sleep.rows(i),
        )
        for i in range(hi - lo)
    ]


def _mapped_means(
    kss: FloatArray, samples: FloatArray, codes: Sequence[str], params: model.Parameters
) -> dict[str, FloatArray]:
    """Interval means of scales ``codes``, each mapped from every sample's final KSS
    (``(T, spi)``, NaN where ``samples`` is) before averaging (reference §9.2 step 4)."""
    pad = _padding(samples)
    return {code: _interval_means(scale_function(code)(kss, params), *pad) for code in codes}


def _padding(
    samples: FloatArray,
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """The rows with padding (NaN pads short last intervals only), their padding masks,
    and every row's count of samples: the arguments of :func:`_interval_means`."""
    short = np.flatnonzero(np.isnan(samples[:, -1]))
    padding = np.isnan(samples[short])
    count = np.full(len(samples), samples.shape[1], dtype=np.int64)
    count[short] -= padding.sum(axis=1)
    return short, padding, count


def _interval_means(
    values: FloatArray,
    short: npt.NDArray[np.intp],
    padding: npt.NDArray[np.bool_],
    count: npt.NDArray[np.int64],
) -> FloatArray:
    """Mean of each ``(T, spi)`` row over its ``count`` valid samples.

    Only rows ``short`` hold padding (``padding``, one mask row each); their sums skip it.
    """
    sums: FloatArray = values.sum(axis=1)
    if short.size:
        rows = values[short]
        rows[padding] = 0.0
        sums[short] = rows.sum(axis=1)
    means: FloatArray = sums / np.maximum(count, 1)
    return means
