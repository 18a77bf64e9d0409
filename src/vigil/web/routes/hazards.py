"""The hazard log, read-only over the API (docs/hazard-log.md).

``GET /api/GetHazardLog`` (risk scope) answers the caller's operator's hazard-log entries,
newest first, optionally filtered by ``decision``, ``state`` and ``kind``. Entries are
recorded in the console only (an audit record of named reviewers); another operator's
entries are never returned.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from vigil.store import hazards
from vigil.web.deps import RiskPrincipal, SessionDep
from vigil.web.problems import only_query, problem

router = APIRouter(prefix="/api", tags=["hazard log"])


class HazardEntryOut(BaseModel):
    """One decision of the hazard log."""

    entryId: int
    recordedAt: str = Field(description="UTC, YYYY-MM-DDTHH:MM:SSZ.")
    recordedBy: str = Field(description="The console user who recorded it.")
    subjectKind: str = Field(description="duty, trip or pattern.")
    subject: str = Field(description="What the reviewer saw: schedule, duty number, route.")
    reference: str = Field(description="A duty's schedule Reference (empty otherwise).")
    reportAt: str = Field(description="A duty's report instant UTC (empty otherwise).")
    startAirport: str
    endAirport: str
    rosterName: str = Field(description="The roster it was recorded on (may be gone since).")
    risk: float | None = Field(description="The duty risk R shown when it was recorded.")
    decision: str = Field(description="accept, mitigate or change.")
    reason: str
    mitigation: str
    supersedes: int | None = Field(description="The entry this one replaced.")
    supersededBy: int | None = Field(description="The entry that replaced this one.")
    inForce: bool = Field(description="True for the subject's newest entry.")


class HazardLogOut(BaseModel):
    """GetHazardLog: the operator's entries, newest first."""

    operator: str
    entries: list[HazardEntryOut]


@router.get(
    "/GetHazardLog",
    dependencies=[Depends(only_query("decision", "state", "kind"))],
    summary="Your operator's hazard log: every review decision, newest first",
    responses={
        200: {"model": HazardLogOut, "description": "The entries, newest first."},
        400: {"description": "An unknown decision, state or kind."},
    },
)
def get_hazard_log(
    principal: RiskPrincipal,
    session: SessionDep,
    decision: Annotated[str, Query(description="accept, mitigate or change.")] = "",
    state: Annotated[str, Query(description="current (in force) or superseded.")] = "",
    kind: Annotated[str, Query(description="duty, trip or pattern.")] = "",
) -> JSONResponse:
    """Read-only; decisions are recorded in the console (docs/hazard-log.md)."""
    try:
        entries, replaced = hazards.list_entries(
            session=session,
            operator=principal.operator,
            decision=decision.strip().lower(),
            state=state.strip().lower(),
            kind=kind.strip().lower(),
        )
    except hazards.HazardError as exc:
        name = str(exc).split()[1]
        return problem(400, f"{exc}.", errors=[{"property": name, "message": str(exc)}])
    body = {
        "operator": principal.operator,
        "entries": [hazards.entry_row(e, replaced) for e in entries],
    }
    return JSONResponse(body, headers={"Cache-Control": "no-store"})
