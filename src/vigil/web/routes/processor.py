"""ProcessFatigue and ProcessFatigueRisk (seed §4.2, §4.3; contract §3, §4).

Each route does three things (STYLE §3.9): validate the wire model, call
:func:`vigil.scoring.service.score`, map the report to the contract §4 envelope.

Where the scoring runs: a roster of at most :data:`INLINE_ROWS` rows and
:data:`INLINE_CHARS` characters is read and planned on the event loop, and scored there
when its estimated work is at most :data:`INLINE_CREW_DAYS` simulated crew-days
(:func:`vigil.scoring.cost.simulated_crew_days`; a crew member's month is about 32),
because handing it to the thread pool and back costs more CPU than scoring it (two thread
switches and a loop wake-up against a few milliseconds of work). What the rows say is not
the measure: two duties a year apart are one row each but a year of simulation. Every
other call is scored in the thread pool, so the loop keeps answering other requests
(health checks, tokens) meanwhile; there one operator runs at most
``VIGIL_SCORING_CONCURRENCY_PER_OPERATOR`` calls at once per process, the next
``VIGIL_SCORING_QUEUE_PER_OPERATOR`` wait, and further calls get 429
(:mod:`vigil.web._operator_gate`), so one tenant never takes every thread. A call's CPU is
bounded by ``VIGIL_SYNC_MAX_CREW_DAYS`` (413 beyond, before any scoring). So is every call
on a surface whose database is not a local SQLite file (PostgreSQL) scored in the pool:
the operator's settings are read first, and network I/O never runs on the loop. (SQLite
in WAL mode never makes a reader wait for a writer.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from vigil.contract import row_count
from vigil.domain import DateFormat
from vigil.scoring.service import ScoringError, TooMuchWork, score
from vigil.web._operator_gate import GateFull, OperatorGate
from vigil.web._runtime import Runtime
from vigil.web.deps import FatiguePrincipal, RiskPrincipal, get_runtime
from vigil.web.operator_context import context_for
from vigil.web.problems import problem
from vigil.web.schemas import ScoresOut, ScoringRequestIn

router = APIRouter(prefix="/api/Processor", tags=["scoring"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": ScoresOut, "description": "Scores and data errors (contract §4)."},
    400: {"description": "Request-level problem (problem+json naming each property)."},
    401: {"description": "Missing or invalid credentials."},
    403: {"description": "Valid token without this endpoint's scope (empty body)."},
    413: {"description": "Body or roster larger than the synchronous limits."},
    429: {"description": "This operator already has its synchronous calls running."},
}

IncludeSleep = Annotated[
    bool,
    Query(
        alias="includeSleep",
        description="Add each schedule's sleep (given or predicted) to the response.",
    ),
]

ExplainRisk = Annotated[
    bool,
    Query(
        alias="explainRisk",
        description="Add each duty's riskComponents and riskReasons (what drives its risk).",
    ),
]

Percentiles = Annotated[
    bool,
    Query(
        alias="percentiles",
        description="Add Ingre et al. 2014's population percentiles: per-interval KSS "
        "limits of 50/75/90 % of crew, P(KSS ≥ 7) and P(KSS ≥ 8), per-duty summaries.",
    ),
]


#: rosters of at most this many physical lines are scored on the event loop (see above)
INLINE_ROWS = 64
#: ... and of at most this many characters, so a few huge lines never hold the loop
INLINE_CHARS = 64 * 1024
#: ... and of at most this many simulated crew-days (a few crew members' month)
INLINE_CREW_DAYS = 128.0
#: seconds a refused caller is told to wait (429)
GATE_RETRY_AFTER = 1


@dataclass(frozen=True, slots=True)
class _Call:
    """One scoring call: the validated body and what the route adds to it."""

    body: ScoringRequestIn
    runtime: Runtime
    risk: bool
    include_sleep: bool
    operator: str
    explain: bool = False
    percentiles: bool = False


async def _answer(call: _Call) -> Response:
    """:func:`_score` on the loop for small work, in the thread pool (gated) otherwise."""
    body, runtime = call.body, call.runtime
    small = len(body.RosterData) <= INLINE_CHARS and row_count(body.RosterData) <= INLINE_ROWS
    if runtime.local_database and small and len(body.SleepData) <= INLINE_ROWS:
        try:
            return _score(call, min(INLINE_CREW_DAYS, runtime.settings.sync_max_crew_days))
        except TooMuchWork:
            pass  # more than the loop may hold: score it in the pool
    try:
        async with scoring_gate(runtime).slot(call.operator):
            return await run_in_threadpool(_score, call, runtime.settings.sync_max_crew_days)
    except GateFull:
        limit = runtime.settings.scoring_concurrency_per_operator
        response = problem(
            429,
            f"This operator already has {limit} synchronous scoring calls running and "
            "others waiting; retry shortly, or send large rosters to the upload API.",
            title="Too many scoring calls at once",
        )
        response.headers["Retry-After"] = str(GATE_RETRY_AFTER)
        return response


def scoring_gate(runtime: Runtime) -> OperatorGate:
    """The surface's per-operator gate for pooled scoring (one per runtime)."""
    gate = runtime.state.scoring_gate
    if gate is None:
        settings = runtime.settings
        gate = OperatorGate(
            settings.scoring_concurrency_per_operator, settings.scoring_queue_per_operator
        )
        runtime.state.scoring_gate = gate
    return gate


def _score(call: _Call, max_crew_days: float) -> Response:
    """Score the call; raises :class:`TooMuchWork` past ``max_crew_days`` below the
    synchronous limit (the caller moves it to the pool), answers 413 past that limit."""
    body, runtime = call.body, call.runtime
    limit = runtime.settings.sync_row_limit
    rows = row_count(body.RosterData)
    if rows > limit:
        return problem(
            413,
            f"RosterData has {rows} rows; synchronous scoring takes at most {limit}. "
            "Send larger rosters to the upload API (POST /api/UploadRoster, then "
            "GET /api/GetResults).",
            title="Roster too large for a synchronous call",
        )
    request = context_for(runtime, call.operator).request(
        body.RosterData,
        date_format=DateFormat(body.DateFormat),
        scale=body.PreferredScale,
        sleep_data=[r.record() for r in body.SleepData],
        risk=call.risk,
        include_sleep=call.include_sleep,
    )
    if call.percentiles:  # the limits read the KSS, whatever the PreferredScale
        request = replace(request, extra_scales=(*request.extra_scales, "KSS"))
    try:
        report = score(request, max_crew_days=max_crew_days)
    except ScoringError as exc:  # pragma: no cover - the wire model already checks the scale
        return problem(400, str(exc))
    except TooMuchWork as exc:
        if max_crew_days < runtime.settings.sync_max_crew_days:
            raise
        return problem(
            413,
            f"RosterData needs {exc.crew_days:,.0f} simulated crew-days (a crew member's "
            f"month is about 32); synchronous scoring takes at most {exc.limit:,.0f}. Send "
            "it to the upload API (POST /api/UploadRoster, then GET /api/GetResults).",
            title="Roster too large for a synchronous call",
        )
    if call.explain or call.percentiles:
        report = replace(report, explain=call.explain, percentiles=call.percentiles)
    return Response(report.to_json(), media_type="application/json")


@router.post(
    "/ProcessFatigue",
    summary="Fatigue scores per 15-minute interval",
    response_model=None,
    responses=_RESPONSES,
)
async def process_fatigue(
    body: ScoringRequestIn,
    principal: FatiguePrincipal,
    request: Request,
    include_sleep: IncludeSleep = False,
    percentiles: Percentiles = False,
) -> Response:
    """Score a roster on the PreferredScale (seed §4.2); needs the fatigue scope."""
    runtime = get_runtime(request)  # a plain read, not a dependency to solve per call
    call = _Call(body, runtime, False, include_sleep, principal.operator, False, percentiles)
    return await _answer(call)


@router.post(
    "/ProcessFatigueRisk",
    summary="Fatigue scores and one risk score per duty",
    response_model=None,
    responses=_RESPONSES,
)
async def process_fatigue_risk(
    body: ScoringRequestIn,
    principal: RiskPrincipal,
    request: Request,
    include_sleep: IncludeSleep = False,
    explain_risk: ExplainRisk = False,
    percentiles: Percentiles = False,
) -> Response:
    """Score a roster and rate each duty's risk (seed §4.3, reference §8); risk scope."""
    runtime = get_runtime(request)  # a plain read, not a dependency to solve per call
    call = _Call(body, runtime, True, include_sleep, principal.operator, explain_risk, percentiles)
    return await _answer(call)
