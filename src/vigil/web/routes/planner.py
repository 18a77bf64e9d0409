"""POST /api/Planner/InflightRest: plan a relief crew's in-flight rest (issue 17).

Scope ``{op}_fast_safe_api``. Tenant-safe by construction: the request carries its own
roster and the route reads nothing stored (it imports no store module), so one operator's
plan can never see another's data. Plain ``def``: the search runs in the thread pool.
"""

from __future__ import annotations

from typing import Any, Literal

import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from vigil.domain import DateFormat
from vigil.planner import PlanError, PlanRequest, plan_rest
from vigil.web.deps import FatiguePrincipal, RuntimeDep
from vigil.web.problems import problem
from vigil.web.routes.processor import row_count
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
    Preset: str = Field(default="ingre2014_5c", description="Model parameter preset.")


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The proposal, the equal split, the gain and 3 alternatives."},
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
    """Search break boundaries and crew assignment for the best top-of-descent score."""
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
        sleep_data=[r.model_dump() for r in body.SleepData],
        preset=body.Preset,
    )
    try:
        plan = plan_rest(request)
    except PlanError as exc:
        return problem(400, str(exc), errors=[{"property": exc.prop, "message": str(exc)}])
    return Response(orjson.dumps(plan.to_dict()), media_type="application/json")
