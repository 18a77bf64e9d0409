"""POST /api/Optimise/Evaluate: cost terms of candidate chains in one batch (docs/optimise.md).

Scope: risk (as ProcessFatigueRisk). The operator's settings apply as they do to
ProcessFatigueRisk (:func:`vigil.web.operator_context.settings_for`): the preset and KP
threshold, the airport table and blank-cell values the rows are read with, the highest
KSS warning level (``hours_band``) and the elevated risk band's bound (``high_risk_duties``).

Request and response are columnar: the candidates as one array per roster column (plus
``Candidate``), the answer as one array per cost term. The base roster's engine is kept
per process (a few, keyed by operator, settings version, costs and the roster's digest),
so a column-generation loop sends the same base with every batch and pays its loading
once. Plain ``def``: evaluation runs in the thread pool.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from vigil.contract import row_count
from vigil.optimise import CostSettings, Engine, EngineError
from vigil.optimise.candidates import parse_candidates, rows_to_csv
from vigil.optimise.costs import COST_TERMS, DEFAULT_CATEGORY_WEIGHTS, TERM_NAMES, with_weights
from vigil.web._runtime import Runtime
from vigil.web.deps import RiskPrincipal, RuntimeDep
from vigil.web.operator_context import settings_for
from vigil.web.problems import problem

router = APIRouter(prefix="/api/Optimise", tags=["optimisation"])


class EvaluateIn(BaseModel):
    """A batch of candidate chains against a base roster."""

    model_config = ConfigDict(extra="forbid")

    BaseRosterData: str = Field(description="The base roster, CSV text (contract §3.1).")
    DateFormat: Literal["dmy", "mdy"] = "dmy"
    Candidates: dict[str, list[str | int | float | None]] = Field(
        description="Candidate rows, columnar: each roster column (and Candidate) -> "
        "one value per row. Reference names the base crew member."
    )
    Weights: dict[str, float] = Field(
        default_factory=dict, description=f"Cost weights by term: {', '.join(COST_TERMS)}."
    )
    AirportCategories: dict[str, Literal["A", "B", "C"]] = Field(
        default_factory=dict, description="Airport code -> category (landing weights)."
    )


class EvaluateOut(BaseModel):
    """The answer: one array per cost term, one element per valid candidate (documentation
    of the response for OpenAPI; docs/optimise.md gives each term's meaning and unit)."""

    modelVersion: str
    settingsVersion: int
    candidate: list[str] = Field(description="Candidate IDs, in first-appearance order.")
    risk_sum: list[float] = Field(description="Σ R_d over the chain [R].")
    risk_max: list[float] = Field(description="Highest R_d [R].")
    high_risk_duties: list[int] = Field(description="Duties above the elevated band.")
    hours_kss7: list[float] = Field(description="Hours at the controls above KSS 7.")
    hours_band: list[float] = Field(description="Hours above the operator's KSS warning level.")
    min_sleep24: list[float] = Field(description="Least predicted sleep in 24 h before a report.")
    short_sleep: list[float] = Field(description="Hours that least sleep falls short of 7 h.")
    tod_fatigue: list[float] = Field(description="Category-weighted top-of-descent fatigue.")
    tod_kss_max: list[float] = Field(description="Highest KSS at a top of descent.")
    cost: list[float] = Field(description="The weighted cost.")
    errors: list[str] = Field(description="Row errors, row|candidate|message (contract §4).")


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": EvaluateOut,
        "description": "One array per cost term, one element per valid candidate.",
    },
    400: {"description": "Unusable base roster, columns or weights (problem+json)."},
    401: {"description": "Missing or invalid credentials."},
    403: {"description": "Valid token without the risk scope (empty body)."},
    413: {"description": "More rows than the synchronous limit."},
}


def _engine(runtime: Runtime, operator: str, body: EvaluateIn, costs: CostSettings) -> Engine:
    found = settings_for(runtime, operator)
    context = found.context()
    digest = hashlib.sha256(body.BaseRosterData.encode("utf-8", "surrogatepass")).hexdigest()
    key = (operator, found.version, body.DateFormat, digest, repr(costs))
    kept = runtime.state.optimise_engines
    engine = kept.get(key)
    if engine is not None:
        return engine
    engine = Engine.from_roster(
        body.BaseRosterData,
        body.DateFormat,
        context.parameters,
        costs,
        airports=context.airports,
        blank_defaults=context.blank_defaults,
    )
    engine.settings_version = found.version
    kept.put(key, engine)
    return engine


def _costs(runtime: Runtime, operator: str, body: EvaluateIn) -> CostSettings:
    s = settings_for(runtime, operator).settings
    band = max(s.warning_levels.get("KSS", (7.0,)) or (7.0,))
    base = CostSettings(
        band_kss=float(band),
        high_risk=float(s.risk_bands[1]),
        airport_category=dict(body.AirportCategories),
        category_weight=dict(DEFAULT_CATEGORY_WEIGHTS),
    )
    return with_weights(base, body.Weights)


@router.post(
    "/Evaluate",
    summary="Fatigue cost terms of candidate chains (batch)",
    response_model=None,
    responses=_RESPONSES,
)
def evaluate(body: EvaluateIn, principal: RiskPrincipal, runtime: RuntimeDep) -> Response:
    """Evaluate a batch of candidate chains against a base roster; risk scope."""
    limit = runtime.settings.sync_row_limit
    rows = row_count(body.BaseRosterData)
    n_cand = max((len(v) for v in body.Candidates.values()), default=0)
    if rows > limit or n_cand > limit:
        return problem(
            413,
            f"at most {limit} base rows and {limit} candidate rows per call "
            f"(got {rows} and {n_cand})",
            title="Batch too large for a synchronous call",
        )
    try:
        costs = _costs(runtime, principal.operator, body)
    except ValueError as exc:
        return problem(400, str(exc), errors=[{"property": "Weights", "message": str(exc)}])
    try:
        text = rows_to_csv(body.Candidates)
    except ValueError as exc:
        return problem(400, str(exc), errors=[{"property": "Candidates", "message": str(exc)}])
    try:
        engine = _engine(runtime, principal.operator, body, costs)
    except EngineError as exc:
        return problem(400, str(exc), errors=[{"property": "BaseRosterData", "message": str(exc)}])
    parsed = parse_candidates(engine, text, body.DateFormat)
    out: dict[str, Any] = {
        "modelVersion": engine.params.model_version,
        "settingsVersion": engine.settings_version,
        "candidate": list(parsed.ids),
    }
    if parsed.candidates is not None and parsed.pool is not None:
        try:
            out |= engine.evaluate(parsed.pool, parsed.candidates).terms.columns()
        except EngineError as exc:
            return problem(400, str(exc), errors=[{"property": "Candidates", "message": str(exc)}])
    else:
        out |= {name: [] for name in TERM_NAMES}
    out["errors"] = list(parsed.errors)
    return Response(orjson.dumps(out), media_type="application/json")
