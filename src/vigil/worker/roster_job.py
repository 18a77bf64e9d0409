"""One roster through the chunk tasks: plan, run, join.

:func:`score_roster` is what a worker does with a claimed roster, minus the database:
the roster is split (:mod:`vigil.worker.split`) into chunk tasks
(:mod:`vigil.worker.tasks`) by the :class:`~vigil.worker.scorers.ChunkScorer` that runs
them (:meth:`~vigil.worker.scorers.ChunkScorer.map_split`: on the cluster for Dask, so
the worker never reads the roster's lines), and the encoded outcomes are joined in
schedule order, errors in row order. :func:`plan_tasks` is the same plan made here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
from vigil.worker.scorers import ChunkScorer, SplitOutcomes
from vigil.worker.split import split_roster
from vigil.worker.tasks import ChunkOutcome, ChunkTask, split_counts, task_of

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
    #: route facts of the stored schedules, one part per chunk task in schedule order,
    #: for the roster summary (``None``: a task gave none; the summary is then built on
    #: first view); joined by the summary's build, where the tasks ran
    route_parts: tuple[RouteFacts, ...] | None = None
    #: whether the chunk tasks ran on the remote scorer (the summary is built there too)
    remote: bool = False

    @property
    def routes(self) -> RouteFacts | None:
        """The route facts of every stored schedule (:meth:`RouteFacts.join` of the parts)."""
        return None if self.route_parts is None else RouteFacts.join(self.route_parts)


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
    options = _options(request)
    context = options.context
    if _text_only(request):
        split = split_roster(request.roster_text, fmt, chunk_size)
        counts = split_counts(split)
        tasks = [task_of(split, request.roster_text, options, i) for i in range(len(counts))]
        return _Plan(tasks, counts, [])
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


def _options(request: ScoreRequest) -> ChunkTask:
    """What every task of ``request`` shares: the operator's scoring context (it travels
    with every task), the six scales, the date format."""
    fmt = DateFormat(request.date_format)
    return ChunkTask(ScoringContext.of(request), SCALE_CODES, date_format=fmt.value)


def _text_only(request: ScoreRequest) -> bool:
    """RosterData alone: split as text, each task parses its part."""
    return not request.sleep_data and not request.activity_text


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
    same preset, same errors in the same order), but the worker itself only hands the
    text over and joins the bytes the tasks return (the serial share). Rosters of
    more than ``chunk_size`` schedules go to ``remote`` (Dask) when given, which also
    splits them (:func:`_start`).
    ``progress(done, total)`` is called in crew once the roster is split and after each
    chunk.
    """
    params = request.parameters or resolve_preset(request.preset)
    crew, outcomes, errors, remote_ran = _start(request, chunk_size, local, remote)
    total = sum(crew)
    if progress is not None:
        progress(0, total)
    frames: list[bytes] = []
    sleep: list[bytes] = []
    found: list[tuple[int, str]] = []
    routes: list[RouteFacts | None] = []
    done = scored = 0
    for outcome, known in zip(outcomes, crew, strict=True):
        frames.append(outcome.frame)
        sleep.append(outcome.sleep)
        found.extend(outcome.errors)
        routes.append(outcome.routes)
        scored += outcome.schedule_count
        done += known or outcome.schedule_count
        total = max(total, done)
        if progress is not None:
            progress(done, total)
    found.sort(key=lambda error: error[0])  # stable: a row's errors keep their order
    parts = tuple(r for r in routes if r is not None)
    return ScoredRoster(
        errors + [text for _, text in found],
        join_frames(frames),
        params.model_version,
        scored,
        b"".join(sleep),
        parts if len(parts) == len(routes) else None,
        remote_ran,
    )


def _start(
    request: ScoreRequest, chunk_size: int, local: ChunkScorer, remote: ChunkScorer | None
) -> tuple[list[int], Iterator[ChunkOutcome], list[str], bool]:
    """Crew per task, the outcomes as they come, the errors found while planning, and
    whether the remote scorer runs the tasks. RosterData alone of more than
    ``chunk_size`` lines is split by the remote scorer when there is one (with fewer
    lines it cannot hold more than ``chunk_size`` schedules: scored here); a roster
    parsed whole here (:func:`plan_tasks`) goes to ``remote`` when it makes several
    tasks."""
    if _text_only(request):
        fmt = DateFormat(request.date_format)
        go_remote = remote is not None and request.roster_text.count("\n") >= chunk_size
        scorer = remote if go_remote and remote is not None else local
        split: SplitOutcomes = scorer.map_split(
            request.roster_text, fmt, chunk_size, _options(request)
        )
        return split[0], split[1], [], scorer is remote
    plan = plan_tasks(request, chunk_size)
    release_memory()  # the parse's objects, before the tasks' processes grow
    on_remote = remote is not None and len(plan.tasks) > 1
    scorer = remote if on_remote and remote is not None else local
    return plan.crew, scorer.map(plan.tasks), plan.errors, on_remote
