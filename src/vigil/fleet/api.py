"""GetResults ``dataKey=summary``: the dashboard's figures as JSON for BI tools.

The body is built from the stored summary (:mod:`vigil.fleet.stored`), so the API, the
console dashboard and the exports show the same numbers. Described for the OpenAPI
schema by :class:`RosterSummaryOut` (pydantic only; no web imports).
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from vigil.fleet.stored import ensure
from vigil.store.tables import RosterResult, RosterUpload

__all__ = ["RosterSummaryOut", "summary_body"]


class RosterSummaryOut(BaseModel):
    """GetResults `dataKey=summary`: where the fatigue is in the roster (docs/upload.md)."""

    rosterToken: str
    rosterName: str
    status: str
    modelVersion: str
    preset: str = Field(description="The parameter preset the scores were computed with.")
    summary: dict[str, Any] = Field(
        description="On the roster's scale: `counts`, `aboveWarning` (share of time at work at "
        "or above the scale's warning level), `risk` percentiles, `riskHistogram` and "
        "`peakHistogram` (`edges`, `counts`, `missing`; a `null` last edge is open), `bands`, "
        "`topDuties` and `topSchedules` (20 each), `hotSpots` (`reportHour` grid, `cityPair`, "
        "`dutyKind`, `fleet`, `rank`: `n`, `mean`, `p90`, `max` risk) and `patterns` "
        "(`earlyRuns`, `nightRuns`, `shortRests`). Peaks and times count only the "
        "intervals at work: each crew member's own in-flight rest, and 20 min after it, are "
        "left out (docs/api.md)."
    )
    schedules: dict[str, list[Any]] = Field(
        description="The schedules table, columnar (one list per column, same order): "
        "`reference`, `fleet`, `rank`, `duties`, `peak`, `maxRisk`, `aboveMinutes`, "
        "`dutyMinutes`, `workingMinutes`, `aboveShare`, `shortRests`, `earlyRuns`, `nightRuns`, …"
    )


def summary_body(session: Session, upload: RosterUpload, result: RosterResult) -> bytes:
    """The ``dataKey=summary`` answer (UTF-8 JSON) for a finished roster."""
    stored = ensure(session, upload, result)
    body = {
        "rosterToken": upload.token,
        "rosterName": upload.roster_name,
        "status": upload.status,
        "modelVersion": stored.model_version,
        "preset": stored.preset,
        "summary": stored.summary,
        "schedules": stored.schedules,
    }
    return orjson.dumps(body)
