"""POST /api/Planner/InflightRest: plan a relief crew's in-flight rest.

Scope ``{op}_fast_safe_api``. Tenant-safe by construction: the request carries its own
roster and the route reads nothing stored but the caller's own operator settings, so one
operator's plan can never see another's data. It plans under those settings
(:func:`vigil.web.operator_context.context_for`) and names their ``settingsVersion``.
Plain ``def``: the search runs in the thread pool.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from vigil.contract import row_count
from vigil.domain import DateFormat
from vigil.planner import PlanError, PlanRequest, plan_rest
from vigil.web.deps import FatiguePrincipal, RuntimeDep
from vigil.web.operator_context import context_for
from vigil.web.problems import problem
from vigil.web.schemas import SleepRecordIn

router = APIRouter(prefix="/api/Planner", tags=["planning"])


class InflightRestIn(BaseModel):
    """What to plan: the roster, the duty, the relief crew and who lands."""

    model_config = ConfigDict(extra="forbid")

    RosterData: str = Field(description="CSV text (seed §2.2), every crew member's duties.")
    SleepData: list[SleepRecordIn] = Field(
        default_factory=list, description="Given sleep; empty means predicted."
    )
    DateFormat: Literal["dmy", "mdy"] = "dmy"
    Duty: AwareDatetime = Field(
        description="An instant inside the duty to plan, usually its report time (UTC).",
        examples=["2026-03-03T20:00:00Z"],
    )
    References: list[str] = Field(description="The relief crew: 3 or 4 pilots' References.")
    Landing: list[str] = Field(description="The 2 References at the controls for landing.")
    Preset: str | None = Field(
        default=None,
        description="A built-in model parameter preset replacing your operator's settings' "
        "own (default: the operator's settings).",
    )
    Placeholders: list[str] = Field(
        default_factory=list,
        max_length=3,
        description="References with no rows in RosterData, planned from a rested start "
        "on the crew's duty.",
    )


class PlannedBreakOut(BaseModel):
    """One pilot's break in a split."""

    reference: str
    landing: bool = Field(description="At the controls for landing.")
    break_: int = Field(alias="break", description="Break number, 1 or 2.")
    start: str = Field(description="Break start, UTC (ISO 8601).")
    end: str = Field(description="Break end, UTC (ISO 8601).")
    hours: float
    row: int = Field(description="The pilot's row of the duty in RosterData.")
    columns: dict[str, str] = Field(
        description="The rest cells to paste into that row (FirstRest/SecondRest dates and times)."
    )
    lastHourKss: float = Field(description="Worst KSS in the duty's last hour.")
    stretchKss: float = Field(
        description="Worst KSS over this pilot's longest stretch at the controls."
    )
    meanKss: float = Field(description="Mean KSS at the controls (the duty outside the break).")
    placeholder: bool = Field(
        description="Not in RosterData: planned from a rested start on the crew's duty."
    )


class SplitOut(BaseModel):
    """A rest split and its predicted scores."""

    worstKss: float = Field(
        description="The objective: worst KSS of any pilot at their own critical phase."
    )
    landingKss: float = Field(description="Landing pilots' worst KSS in the last hour.")
    reliefKss: float = Field(
        description="Other pilots' worst KSS over their longest stretch at the controls."
    )
    crewMeanKss: float = Field(description="Crew's mean KSS at the controls.")
    breaks: list[PlannedBreakOut]


class EqualSplitOut(SplitOut):
    """The equal split, for comparison."""

    meetsMinimums: bool = Field(description="Whether it meets EASA CS FTL.1.205(c).")


class PairOut(BaseModel):
    """One group of the crew at its critical phase: proposal against the equal split."""

    group: Literal["landing", "relief"]
    references: list[str]
    phase: str = Field(description="The phase the group is judged at.")
    proposalKss: float
    equalSplitKss: float
    gain: float = Field(description="equalSplitKss - proposalKss (negative: a loss).")


class WindowOut(BaseModel):
    """The cruise window available for rest (UTC)."""

    start: str
    end: str


class InflightRestOut(BaseModel):
    """The planner's answer (docs/planner.md)."""

    summary: str = Field(description="One line: who rests when, and the landing score.")
    modelVersion: str
    settingsVersion: int | None = Field(description="Your operator's settings version used.")
    cruise: WindowOut
    candidates: int = Field(description="Splits evaluated.")
    proposal: SplitOut
    equalSplit: EqualSplitOut
    gain: float = Field(description="Landing KSS of the equal split minus the proposal's.")
    pairs: list[PairOut] = Field(
        description="Landing and relief pilots side by side, each at its own critical phase."
    )
    placeholders: list[str] = Field(
        description="References not in RosterData, planned as placeholders."
    )
    alternatives: list[SplitOut] = Field(description="The next-best splits, best first.")
    rosterData: str = Field(description="The whole roster with the proposal filled in.")


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": InflightRestOut,
        "description": "The proposal, the equal split, the gain and 3 alternatives.",
    },
    400: {"description": "Cannot plan: problem+json naming the property."},
    401: {"description": "Missing or invalid credentials."},
    403: {"description": "Valid token without the fatigue scope (empty body)."},
    413: {"description": "Roster larger than the synchronous limit."},
}


@router.post(
    "/InflightRest",
    summary="Plan the in-flight rest split of an augmented duty",
    response_model=None,
    responses=_RESPONSES,
)
def inflight_rest(
    body: InflightRestIn, principal: FatiguePrincipal, runtime: RuntimeDep
) -> Response:
    """Search break boundaries and crew assignment: every pilot judged at their critical phase."""
    limit = runtime.settings.sync_row_limit
    rows = row_count(body.RosterData)
    if rows > limit:
        return problem(413, f"RosterData has {rows} rows; planning takes at most {limit}.")
    request = PlanRequest(
        roster_text=body.RosterData,
        duty=body.Duty,
        references=tuple(body.References),
        landing=tuple(body.Landing),
        date_format=DateFormat(body.DateFormat),
        sleep_data=[r.record() for r in body.SleepData],
        context=context_for(runtime, principal.operator),
        preset=body.Preset,
        placeholders=tuple(body.Placeholders),
    )
    try:
        plan = plan_rest(request)
    except PlanError as exc:
        return problem(400, str(exc), errors=[{"property": exc.prop, "message": str(exc)}])
    return Response(orjson.dumps(plan.to_dict()), media_type="application/json")
