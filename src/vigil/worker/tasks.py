"""The chunk task: parse (when given text), score and encode consecutive schedules.

Every :class:`~vigil.worker.scorers.ChunkScorer` runs :func:`run_task` wherever it
scores (this thread, local processes, a Dask cluster). A task holds either a part of the
RosterData text (:mod:`vigil.worker.split`), which it parses itself, or already parsed
schedules (rosters with SleepData or ActivityData, which are read whole by the worker,
as their errors need every Reference). It answers bytes ready to store: the scores frame
(:mod:`vigil.results.frames`), the sleep segment (:mod:`vigil.results.stored_sleep`), the
data errors it found, and what the roster says about each scored duty (route, sectors,
Fleet, Rank: :class:`vigil.results.routes.RouteFacts`) for the roster summary. Only small
objects travel back to the worker.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from vigil.domain import Schedule
from vigil.gc_pause import cyclic_gc_paused
from vigil.results.frames import encode_frame
from vigil.results.routes import RouteFacts, route_facts, route_facts_of_columns
from vigil.results.stored_sleep import encode_sleep, sleep_columns
from vigil.roster import format_error
from vigil.scoring import warm
from vigil.scoring.context import ScoringContext
from vigil.scoring.service import (
    plan_parsed,
    score_plan,
    score_schedules,
)
from vigil.worker.split import RosterSplit

__all__ = ["ChunkOutcome", "ChunkTask", "run_task", "split_counts", "task_of", "warm_up"]

#: crew simulated together inside a task: the per-minute arrays of 64 crew-months keep a
#: scoring process near 326 MiB at peak, against 334-341 MiB with 128 and 485 MiB with the
#: service's 512 (measured on 500-crew parts of the airline month), at no cost in speed
#: (CPU 1.41-1.51 s against 1.56-1.71 s with 128); scores do not depend on it (each crew
#: member is simulated on its own)
SCORING_BATCH = 64


@dataclass(frozen=True, slots=True)
class ChunkTask:
    """What one chunk task scores (picklable; small)."""

    #: the operator's scoring context (parameters, airports, blank defaults)
    context: ScoringContext
    scales: tuple[str, ...]
    #: a part of RosterData to parse here (row numbers of the whole roster), or ""
    roster_text: str = ""
    date_format: str = "dmy"
    #: errors on this row (the header) are reported only by the task with ``first``
    header_row: int = 0
    first: bool = True
    #: schedules already parsed (when ``roster_text`` is empty)
    schedules: tuple[Schedule, ...] = ()


@dataclass(frozen=True, slots=True)
class ChunkOutcome:
    """A scored chunk, encoded."""

    frame: bytes
    sleep: bytes
    schedule_count: int
    #: RosterData errors found here: ``(row, "row|schedule|message")``, in parser order
    errors: tuple[tuple[int, str], ...] = ()
    #: route, sectors, Fleet, Rank of the scored schedules, for the roster summary
    #: (:mod:`vigil.fleet.stored`), which then never parses the roster again
    routes: RouteFacts | None = None


def split_counts(split: RosterSplit | None) -> list[int]:
    """Crew per task of a split roster (:func:`vigil.worker.split.split_roster`): one task
    of unknown crew (0) for a roster read whole (``None``)."""
    return [0] if split is None else split.counts


def task_of(split: RosterSplit | None, text: str, options: ChunkTask, index: int) -> ChunkTask:
    """Task ``index`` of a split roster: ``options`` with its part of the text (the whole
    ``text`` when the roster is read whole, ``split`` being ``None``). Pure, so a Dask
    worker that holds the split builds the tasks (:meth:`vigil.worker.dask.DaskScorer.map_split`)
    as the worker builds them locally."""
    if split is None:
        return replace(options, roster_text=text)
    return replace(
        options,
        roster_text=split.parts[index],
        header_row=split.header_row,
        first=index == 0,
    )


def run_task(task: ChunkTask) -> ChunkOutcome:
    """Parse (if text), score with risk, encode (runs in any process or on Dask), with the
    cyclic garbage collector paused (:mod:`vigil.gc_pause`)."""
    with cyclic_gc_paused():
        return _run_task(task)


def _run_task(task: ChunkTask) -> ChunkOutcome:
    """Text is parsed and planned as the CLI and the API do (the columnar reader's duty
    columns straight to a :class:`~vigil.scoring.plan.CrewPlan`, no ``Duty`` objects,
    :func:`vigil.scoring.service.plan_parsed`); parsed schedules are planned from them."""
    params = task.context.parameters
    errors: tuple[tuple[int, str], ...] = ()
    if task.roster_text:
        parsed = task.context.parse(task.roster_text, task.date_format)
        errors = tuple(
            (e.row, format_error(e))
            for e in parsed.errors
            if task.first or e.row != task.header_row
        )
        plan = plan_parsed(parsed, params)
        results = score_plan(plan, params, task.scales, chunk_size=SCORING_BATCH, risk=True)
        entries = [(r.reference, len(r.duties)) for r in results]
        routes = route_facts_of_columns(entries, parsed.columns)
    else:
        results = score_schedules(
            task.schedules, params, task.scales, chunk_size=SCORING_BATCH, risk=True
        )
        routes = route_facts(((r.reference, len(r.duties)) for r in results), task.schedules)
    return ChunkOutcome(
        frame=encode_frame(results, params, task.scales),
        sleep=encode_sleep([sleep_columns(results)]),
        schedule_count=len(results),
        errors=errors,
        routes=routes,
    )


def warm_up() -> float:
    """Load (or compile) the scoring kernels in this process before its first real task
    (:func:`vigil.scoring.warm.warm_kernels`, what the server runs before ``/readyz``);
    returns the seconds taken. The upload pool runs it on each Dask worker when it starts
    (:meth:`vigil.worker.dask.DaskScorer.warm_up`): a fresh worker otherwise pays the
    kernels' loading in its first task, a serial share of the scale-out.
    """
    return warm.warm_kernels()
