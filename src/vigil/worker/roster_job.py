"""One roster through the chunk tasks: plan, run, join.

:func:`score_roster` is what a worker does with a claimed roster, minus the database:
:func:`plan_tasks` splits it (:mod:`vigil.worker.split`) into chunk tasks
(:mod:`vigil.worker.tasks`), a :class:`~vigil.worker.scorers.ChunkScorer` runs them, and
the encoded outcomes are joined in schedule order, errors in row order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from vigil.domain import DateFormat
from vigil.results.frames import join_frames
from vigil.results.routes import RouteFacts
from vigil.roster import format_error
from vigil.scoring.context import DEFAULT_CONTEXT, ScoringContext
from vigil.scoring.service import (
    SCALE_CODES,
    ScoreRequest,
    resolve_preset,
    resolve_scale,
)
from vigil.store.operator_settings import SettingsVersion
from vigil.worker import jobs
from vigil.worker.memory import release_memory
from vigil.worker.scorers import ChunkScorer
from vigil.worker.split import split_roster
from vigil.worker.tasks import ChunkTask

__all__ = ["ScoredRoster", "plan_tasks", "request_for", "score_roster"]


@dataclass(frozen=True, slots=True)
class ScoredRoster:
    """What a worker stores for a roster."""

    errors: list[str]
    scores: bytes
    model_version: str
    schedule_count: int
    #: the sleep the scores rest on (:func:`vigil.results.stored_sleep.encode_sleep`)
    sleep: bytes | None = None
    #: route facts of the stored schedules, for the roster summary (``None``: a task gave
    #: none, the summary parses the roster)
    routes: RouteFacts | None = None


def request_for(job: jobs.ClaimedJob, settings: SettingsVersion | None = None) -> ScoreRequest:
    """The service request an upload stands for: risk on, all six scales (contract §5),
    under the operator settings version recorded at upload when given."""
    scale = resolve_scale(job.preferred_scale)
    context = settings.context() if settings else DEFAULT_CONTEXT
    return context.request(
        job.roster_text,
        date_format=DateFormat(job.date_format),
        scale=scale,
        sleep_data=job.sleep_data,
        activity_text=job.activity_text,
        risk=True,
        extra_scales=tuple(s for s in SCALE_CODES if s != scale),
    )


def plan_tasks(request: ScoreRequest, chunk_size: int) -> _Plan:
    """The chunk tasks of a roster, in schedule order.

    RosterData alone is split as text (:func:`vigil.worker.split.split_roster`) and each
    task parses its part; with SleepData or ActivityData the roster is parsed here, whole
    (their errors need every Reference), and tasks carry parsed schedules.
    """
    fmt = DateFormat(request.date_format)
    # the operator's scoring context travels with every task
    context = ScoringContext.of(request)
    options = ChunkTask(context, SCALE_CODES)
    if not request.sleep_data and not request.activity_text:
        split = split_roster(request.roster_text, fmt, chunk_size)
        if split is None:
            whole = replace(options, roster_text=request.roster_text, date_format=fmt.value)
            return _Plan([whole], [0], [])
        tasks = [
            replace(
                options,
                roster_text=text,
                date_format=fmt.value,
                header_row=split.header_row,
                first=i == 0,
            )
            for i, text in enumerate(split.parts)
        ]
        return _Plan(tasks, split.counts, [])
    parsed = context.parse(
        request.roster_text,
        fmt,
        sleep_data=request.sleep_data,
        activity_text=request.activity_text,
    )
    schedules = parsed.schedules
    # at least one (maybe empty) task: the stored blob always names its scales
    chunks = [schedules[i : i + chunk_size] for i in range(0, len(schedules), chunk_size)] or [()]
    return _Plan(
        [replace(options, schedules=tuple(c)) for c in chunks],
        [len(c) for c in chunks],
        [format_error(e) for e in parsed.errors],
    )


@dataclass(frozen=True, slots=True)
class _Plan:
    tasks: list[ChunkTask]
    crew: list[int]  #: crew per task (0: not known before the task has run)
    errors: list[str]  #: errors found while planning (rosters parsed whole)


def score_roster(
    request: ScoreRequest,
    *,
    chunk_size: int,
    local: ChunkScorer,
    remote: ChunkScorer | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScoredRoster:
    """Split, then parse, score and encode every chunk in its task; join in order.

    Mirrors :func:`vigil.scoring.service.score` (same parsing, same scoring function,
    same preset, same errors in the same order), but the worker itself only splits the
    text and joins the bytes the tasks return (the serial share). Rosters of
    more than ``chunk_size`` schedules go to ``remote`` (Dask) when given.
    ``progress(done, total)`` is called in crew once the roster is split and after each
    chunk.
    """
    params = request.parameters or resolve_preset(request.preset)
    plan = plan_tasks(request, chunk_size)
    release_memory()  # the split's lines and keys, before the tasks' processes grow
    scorer = remote if remote is not None and len(plan.tasks) > 1 else local
    total = sum(plan.crew)
    if progress is not None:
        progress(0, total)
    frames: list[bytes] = []
    sleep: list[bytes] = []
    found: list[tuple[int, str]] = []
    routes: list[RouteFacts | None] = []
    done = scored = 0
    for outcome, crew in zip(scorer.map(plan.tasks), plan.crew, strict=True):
        frames.append(outcome.frame)
        sleep.append(outcome.sleep)
        found.extend(outcome.errors)
        routes.append(outcome.routes)
        scored += outcome.schedule_count
        done += crew or outcome.schedule_count
        total = max(total, done)
        if progress is not None:
            progress(done, total)
    found.sort(key=lambda error: error[0])  # stable: a row's errors keep their order
    parts = [r for r in routes if r is not None]
    return ScoredRoster(
        plan.errors + [text for _, text in found],
        join_frames(frames),
        params.model_version,
        scored,
        b"".join(sleep),
        RouteFacts.join(parts) if len(parts) == len(routes) else None,
    )
