"""The one path to a score (STYLE §3.9): roster text in, :class:`ScoreReport` out.

The CLI (``vigil score``), the scoring API (ProcessFatigue, ProcessFatigueRisk) and the
upload worker all call :func:`score`. It is synchronous, deterministic and does no I/O.

Pipeline, per chunk of crew (bounded memory, progress reported per chunk):

1. sleep the scores rest on: given SleepData (reference §4.4) or predicted (§4, §5);
2. :mod:`vigil.scoring.layout` lays out duties, intervals and the model timeline
   (warm-up start, body-clock target, sleep episodes) as flat arrays, and
   :mod:`vigil.scoring.grid` the 15-minute interval sample grid (contract §4);
3. :func:`vigil.model.simulate` gives S, C, U, W; the workload term (§6) and the KSS
   transform give the final KSS; every requested scale is mapped per sample and then
   averaged per interval (§9.2 step 4);
4. per-duty risk (§8) relative to the reference duty (:mod:`vigil.scoring.duty_risk`);
5. :mod:`vigil.scoring.report` holds the results and builds every response from them.

The request records live in :mod:`vigil.scoring.request`; this module re-exports them
and the report records so callers import the scoring API from one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

import numba
import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.domain import Schedule
from vigil.roster import format_error, parse_request
from vigil.scoring import grid
from vigil.scoring.duty_risk import duty_risks
from vigil.scoring.grid import FloatArray, SleepEpisode
from vigil.scoring.layout import build_layout, build_timeline, to_crew_rows
from vigil.scoring.predict import predict_sleep
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

__all__ = [
    "DECIMALS",
    "SCALE_CODES",
    "DutyResult",
    "ScheduleResult",
    "ScoreReport",
    "ScoreRequest",
    "ScoringError",
    "iso",
    "resolve_preset",
    "resolve_scale",
    "score",
    "score_schedules",
    "sleep_for",
    "sleep_json",
]

#: Crew members simulated together: bounds peak memory (~15 samples per interval).
CHUNK_SIZE = 512
#: Below this many crew the kernels run single-threaded (see :func:`_kernel_threads`).
PARALLEL_MIN_CREW = 64

ProgressCallback = Callable[[int, int], None]


def score(request: ScoreRequest, *, progress: ProgressCallback | None = None) -> ScoreReport:
    """Parse, validate and score a roster (the service's single scoring path).

    Parameters
    ----------
    request : ScoreRequest
        Roster text and options.
    progress : callable, optional
        Called as ``progress(done, total)`` in crew members after each chunk.

    Returns
    -------
    ScoreReport
        Scores of every schedule without data errors, in roster order of first
        appearance, and the data errors as ``row|schedule|message`` strings.

    Raises
    ------
    ScoringError
        Unknown scale or preset (request-level problems, answered 400 by the API).
    """
    scale = resolve_scale(request.scale)
    scales = tuple(dict.fromkeys((scale, *(resolve_scale(s) for s in request.extra_scales))))
    params = request.parameters or resolve_preset(request.preset)
    parsed = parse_request(
        request.roster_text,
        request.date_format,
        sleep_data=request.sleep_data,
        activity_text=request.activity_text,
        airports=request.airports,
        blank_defaults=request.blank_defaults,
    )
    results = score_schedules(
        parsed.schedules,
        params,
        scales,
        progress=progress,
        risk=request.risk,
    )
    return ScoreReport(
        scale=scale,
        model_version=params.model_version,
        schedules=tuple(results),
        errors=tuple(format_error(e) for e in parsed.errors),
        risk=request.risk,
        include_sleep=request.include_sleep,
        settings_version=request.settings_version,
    )


def sleep_for(
    schedules: Sequence[Schedule],
    params: model.Parameters,
    starts: Sequence[datetime] | None = None,
) -> list[list[SleepEpisode]]:
    """Given sleep where a schedule has any (contract §3.2), predicted sleep otherwise."""
    out: list[list[SleepEpisode] | None] = [None] * len(schedules)
    missing: list[int] = []
    for i, schedule in enumerate(schedules):
        if schedule.sleep:
            start = starts[i] if starts is not None else grid.warmup_start(schedule)
            out[i] = grid.given_sleep_episodes(schedule, start, params)
        else:
            missing.append(i)
    if missing:
        predicted = predict_sleep([schedules[i] for i in missing], params)
        for i, episodes in zip(missing, predicted, strict=True):
            out[i] = episodes
    return [episodes or [] for episodes in out]


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
    results: list[ScheduleResult] = []
    total = len(schedules)
    with _kernel_threads(total):
        for lo in range(0, total, chunk_size):
            chunk = schedules[lo : lo + chunk_size]
            results.extend(_score_chunk(chunk, params, scales, risk))
            if progress is not None:
                progress(min(lo + chunk_size, total), total)
    return results


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
    schedules: Sequence[Schedule],
    params: model.Parameters,
    scales: Sequence[str],
    risk: bool = True,
) -> list[ScheduleResult]:
    starts = [grid.warmup_start(schedule) for schedule in schedules]
    sleeps = sleep_for(schedules, params, starts)
    layout = build_layout(schedules)
    timeline = build_timeline(schedules, sleeps, starts)
    spi = grid.SAMPLES_PER_INTERVAL
    samples = grid.interval_samples(layout.start, layout.off[layout.duty], spi)  # (T, spi)
    d = layout.duty
    wl = model.workload_kss_fast(  # reference §6, one row per interval
        samples,
        layout.on[d],
        layout.off[d],
        layout.sectors[d],
        layout.workload[d],
        layout.rest_start[d],
        layout.rest_end[d],
        params,
    )
    sample_time = to_crew_rows(layout, samples, np.nan)
    x = model.simulate_alertness(timeline, sample_time, params)
    # back to interval rows (T, spi): no crew padding in the per-sample work below
    x = x.reshape(layout.n_crew, -1, spi)[layout.interval_crew, layout.column]
    kss = model.final_kss(x, np.nan_to_num(wl, nan=0.0), params, out=x)
    padding = np.isnan(samples)
    count = spi - padding.sum(axis=1)
    per_scale = {
        code: np.round(_interval_means(model.SCALES[code](kss, params), padding, count), DECIMALS)
        for code in scales
    }
    risks = (
        duty_risks(layout, timeline, _interval_means(kss.copy(), padding, count), params)
        if risk
        else np.full(layout.on.size, np.nan)
    )
    results: list[ScheduleResult] = []
    duty_row = 0
    row = 0
    risk_list = risks.tolist()
    for i, schedule in enumerate(schedules):
        total = schedule.interval_count
        duties: list[DutyResult] = []
        first = 0
        for duty in schedule.duties:
            value = risk_list[duty_row] if risk else None
            duties.append(
                DutyResult(duty.on_duty, duty.off_duty, first, duty.interval_count, value)
            )
            first += duty.interval_count
            duty_row += 1
        results.append(
            ScheduleResult(
                reference=schedule.reference,
                scores={code: arr[row : row + total] for code, arr in per_scale.items()},
                duties=tuple(duties),
                sleep=tuple(sleeps[i]),
            )
        )
        row += total
    return results


def _interval_means(
    values: FloatArray, padding: npt.NDArray[np.bool_], count: npt.NDArray[np.int64]
) -> FloatArray:
    """Mean of each ``(T, spi)`` row over its ``count`` valid samples.

    ``values`` is overwritten (its ``padding`` slots set to 0): callers pass a temporary.
    """
    values[padding] = 0.0
    means: FloatArray = values.sum(axis=1) / np.maximum(count, 1)
    return means
