"""ProcessFatigue and ProcessFatigueRisk (seed §4.2, §4.3; contract §3, §4).

Each route does three things (STYLE §3.9): validate the wire model, call
:func:`vigil.scoring.service.score`, map the report to the contract §4 envelope.

Where the scoring runs (issue 14): a roster of at most :data:`INLINE_ROWS` rows (a crew
member's month is ~20) is scored on the event loop, because handing it to the thread pool
and back costs more CPU than scoring it (two thread switches and a loop wake-up, ~0.3 ms
against ~1.5 ms of work, and the GIL lets only one of the two threads run anyway); the
loop is held for a few milliseconds at most. Larger rosters, up to the synchronous limit
of 50,000 rows, and any roster of over 64 KiB of text (a few huge lines), are scored in
the thread pool, so the loop keeps answering other requests (health checks, tokens)
meanwhile. So is every call on a surface whose database is not a
local SQLite file (PostgreSQL): the operator's settings are read first, and network I/O
never runs on the loop. (SQLite in WAL mode never makes a reader wait for a writer.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from vigil.contract import row_count
from vigil.domain import DateFormat
from vigil.scoring.service import ScoringError, score
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
    """:func:`_score` on the loop for small rosters, in the thread pool for larger ones."""
    body = call.body
    small = len(body.RosterData) <= INLINE_CHARS and row_count(body.RosterData) <= INLINE_ROWS
    if call.runtime.local_database and small and len(body.SleepData) <= INLINE_ROWS:
        return _score(call)
    return await run_in_threadpool(_score, call)


def _score(call: _Call) -> Response:
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
        report = score(request)
    except ScoringError as exc:  # pragma: no cover - the wire model already checks the scale
        return problem(400, str(exc))
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
