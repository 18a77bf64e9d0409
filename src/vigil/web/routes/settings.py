"""Operator settings, read-only over the API (docs/settings.md).

``GET /api/GetSettings`` (upload scope) answers the caller's operator's current settings
or, with ``version=N``, any earlier version, with who changed them and when, and the
history of versions. Settings change only in the console (admins) and the CLI.

:func:`vigil.web.operator_context.context_for` is what the scoring surfaces call to score
under the operator's settings.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from vigil.scoring.service import iso
from vigil.store import operator_settings as store
from vigil.store.operator_settings import SettingsVersion
from vigil.web.deps import SessionDep, UploadPrincipal
from vigil.web.problems import only_query, problem
from vigil.web.query import whole_number

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/api", tags=["settings"])


class SettingsHistoryItemOut(BaseModel):
    """One settings version in the history."""

    settingsVersion: int
    changedBy: str
    changedAt: str | None = Field(description="UTC; null for version 0, the defaults.")
    note: str


class SettingsOut(BaseModel):
    """GetSettings: one settings version and the history (docs/settings.md)."""

    operator: str
    settingsVersion: int
    changedBy: str
    changedAt: str | None
    note: str
    modelVersion: str = Field(description="The modelVersion scores under these settings carry.")
    settings: dict[str, Any] = Field(
        description="crewPrepMinutes, commuteMinutes, preset, scale, kpThreshold, "
        "warningLevels, airports, calibratedPresets."
    )
    history: list[SettingsHistoryItemOut]


def version_body(found: SettingsVersion, operator: str) -> dict[str, Any]:
    """A settings version as the API and the CLI show it."""
    return {
        "operator": operator,
        "settingsVersion": found.version,
        "changedBy": found.changed_by,
        "changedAt": iso(found.changed_at) if found.changed_at else None,
        "note": found.note,
        "modelVersion": found.settings.parameters().model_version,
        "settings": found.settings.to_dict(),
    }


@router.get(
    "/GetSettings",
    dependencies=[Depends(only_query("version"))],
    summary="Your operator's settings (current, or one version), with their history",
    responses={
        200: {"model": SettingsOut, "description": "The version, who changed it, when, history."},
        400: {"description": "version is not a whole number."},
        404: {"description": "Your operator has no such settings version."},
    },
)
def get_settings(
    principal: UploadPrincipal,
    session: SessionDep,
    version: Annotated[
        str | None, Query(description="A settings version (default current).")
    ] = None,
) -> JSONResponse:
    """Read-only settings (docs/settings.md); change them in the console or the CLI."""
    operator = principal.operator
    if version is None:
        found: SettingsVersion | None = store.current_settings(session=session, operator=operator)
    else:
        number = whole_number(version)
        if number is None:
            return problem(
                400,
                "version must be a whole number (0 is the built-in defaults).",
                errors=[{"property": "version", "message": "not a whole number"}],
            )
        found = store.settings_at(session=session, operator=operator, version=number)
    if found is None:
        return problem(404, f"Your operator has no settings version {version}.")
    body = version_body(found, operator)
    body["history"] = [
        {
            "settingsVersion": v.version,
            "changedBy": v.changed_by,
            "changedAt": iso(v.changed_at) if v.changed_at else None,
            "note": v.note,
        }
        for v in store.settings_history(session=session, operator=operator)
    ]
    return JSONResponse(body)
