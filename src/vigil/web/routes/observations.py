"""Crew observations and the calibration report over the API (docs/calibration.md).

- ``POST /api/UploadObservations`` (upload scope): ratings (and optionally actual sleep)
  as CSV for one of the operator's stored rosters → an ``observationsToken``.
- ``GET /api/GetCalibration?observationsToken=T`` → ``{"calibration": {...}}``; with
  ``format=pdf`` the same report as a PDF.
- ``GET /api/ListObservations``, ``DELETE /api/DeleteObservations?observationsToken=T``.

Another operator's roster or observations answer 404 exactly like unknown ones
(contract §2). The report is computed under the settings version the roster was scored
with, so it says which ``modelVersion`` and ``settingsVersion`` it judges.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, field_validator

from vigil.scoring.service import iso
from vigil.store import operator_settings as store
from vigil.store import uploads
from vigil.store.tables import RosterUpload
from vigil.web.calibration_service import check_files, report_cache, report_for
from vigil.web.deps import RuntimeDep, SessionDep, UploadPrincipal
from vigil.web.problems import only_query, problem
from vigil.web.schemas import _Wire

router = APIRouter(prefix="/api", tags=["calibration"])


class UploadObservationsIn(_Wire):
    """UploadObservations body (docs/calibration.md "File format")."""

    rosterToken: str = Field(min_length=1, max_length=64, description="A stored roster's token.")  # noqa: N815
    Observations: str = Field(description="CSV: Reference,Timestamp,Instrument,Value.")
    SleepData: str = Field(default="", description="CSV: Reference,SleepStart,SleepEnd (UTC).")
    Name: str | None = Field(default=None, min_length=1, max_length=200)

    @field_validator("rosterToken", "Observations", "SleepData", "Name", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("text must not contain NUL characters (U+0000)")
        return value


class ObservationsAcceptedOut(BaseModel):
    """UploadObservations: the stored set's token; lines that could not be read."""

    observationsToken: str  # noqa: N815
    rosterToken: str  # noqa: N815
    ratings: int = Field(description="Ratings read.")
    errors: list[str] = Field(description="Unreadable lines, 'row|Reference|message'.")


class CalibrationOut(BaseModel):
    """GetCalibration (JSON): the report under ``calibration`` (docs/calibration.md)."""

    observationsToken: str  # noqa: N815
    rosterToken: str | None  # noqa: N815
    name: str
    calibration: dict[str, Any] = Field(
        description="verdict (one plain sentence), verdictDetail, adoption (what adopting "
        "the offered preset changes, or null), "
        "modelVersion, settingsVersion, observationsUsed, observationsNotCompared, "
        "inputErrors, actualSleepFor, scales (per KSS/SP: overall, byTimeOfDay, byDutyType, "
        "byHoursOnDuty, calibrationBins, fit), sleep."
    )


class ObservationItemOut(BaseModel):
    observationsToken: str  # noqa: N815
    name: str
    createdAt: str  # noqa: N815


class ObservationListOut(BaseModel):
    """ListObservations: the operator's observation sets, newest first."""

    observations: list[ObservationItemOut]


def _not_found(what: str = "observations") -> JSONResponse:
    return problem(404, f"No {what} with this token.", title=f"Unknown {what} token")


@router.post(
    "/UploadObservations",
    summary="Store crew ratings (KSS / Samn-Perelli) and actual sleep for a stored roster",
    responses={
        200: {"model": ObservationsAcceptedOut, "description": "Stored; see observationsToken."},
        400: {"description": "Not readable: missing columns or no usable rating."},
        404: {"description": "Unknown roster token (or another operator's)."},
    },
)
def upload_observations(
    body: UploadObservationsIn, principal: UploadPrincipal, session: SessionDep, runtime: RuntimeDep
) -> JSONResponse:
    """UploadObservations (docs/calibration.md); bad lines are listed, not fatal."""
    limits = runtime.settings
    checked = check_files(body.Observations, body.SleepData, limits.max_observation_ratings)
    if isinstance(checked, JSONResponse):
        return checked
    count, errors = checked
    upload = uploads.get_upload(
        session=session, operator=principal.operator, token=body.rosterToken.strip()
    )
    if upload is None:
        return _not_found("roster")
    try:
        row = store.create_observation_set(
            session=session,
            operator=principal.operator,
            upload_id=upload.id,
            name=body.Name or f"observations for {upload.roster_name}",
            observations_csv=body.Observations,
            sleep_csv=body.SleepData,
            created_by=f"client:{principal.client_id}",
            max_sets=limits.max_observation_sets_per_operator,
        )
    except store.ObservationSetLimitError as exc:
        return problem(409, str(exc), title="Too many observation sets")
    token = row.token
    session.commit()
    return JSONResponse(
        {
            "observationsToken": token,
            "rosterToken": upload.token,
            "ratings": count,
            "errors": errors,
        }
    )


@router.get(
    "/GetCalibration",
    dependencies=[Depends(only_query("observationsToken", "format"))],
    summary="The calibration report of stored observations (JSON or PDF)",
    responses={
        200: {
            "model": CalibrationOut,
            "description": "The report as JSON, or with format=pdf as a PDF.",
            "content": {"application/pdf": {}},
        },
        400: {"description": "Missing observationsToken or unknown format."},
        404: {"description": "Unknown observations token (or another operator's)."},
    },
)
def get_calibration(
    principal: UploadPrincipal,
    session: SessionDep,
    runtime: RuntimeDep,
    observationsToken: Annotated[str | None, Query()] = None,  # noqa: N803
    format: Annotated[str | None, Query(description="json (default) or pdf.")] = None,  # noqa: A002
) -> Response:
    """The report as the ``calibration`` key (docs/calibration.md "JSON") or a PDF."""
    token = (observationsToken or "").strip()
    if not token:
        return problem(
            400,
            "The query parameter observationsToken is required.",
            errors=[{"property": "observationsToken", "message": "Field required"}],
        )
    kind = (format or "json").strip().lower()
    if kind not in ("json", "pdf"):
        return problem(
            400,
            "format must be json or pdf.",
            errors=[{"property": "format", "message": "unknown"}],
        )
    if "\x00" in token:
        return _not_found()
    found = store.get_observation_set(session=session, operator=principal.operator, token=token)
    if found is None:
        return _not_found()
    report = report_for(runtime, session, principal.operator, found)
    if kind == "pdf":
        from vigil.calibration.plots import report_pdf

        pdf = report_pdf(report, f"Vigil calibration report: {found.name}")
        return Response(
            pdf,
            media_type="application/pdf",
            headers={"Content-Disposition": f'attachment; filename="calibration-{token[:8]}.pdf"'},
        )
    upload = session.get(RosterUpload, found.upload_id)
    return JSONResponse(
        {
            "observationsToken": found.token,
            "rosterToken": upload.token if upload else None,
            "name": found.name,
            "calibration": report.to_dict(),
        }
    )


@router.get(
    "/ListObservations",
    dependencies=[Depends(only_query())],
    summary="Your operator's observation sets, newest first",
    responses={200: {"model": ObservationListOut, "description": "Every observation set."}},
)
def list_observations(principal: UploadPrincipal, session: SessionDep) -> JSONResponse:
    """Every observation set of the caller's operator."""
    rows = store.list_observation_sets(session=session, operator=principal.operator)
    return JSONResponse(
        {
            "observations": [
                {"observationsToken": r.token, "name": r.name, "createdAt": iso(r.created_at)}
                for r in rows
            ]
        }
    )


@router.delete(
    "/DeleteObservations",
    dependencies=[Depends(only_query("observationsToken"))],
    status_code=204,
    summary="Delete an observation set",
    responses={404: {"description": "Unknown observations token (or another operator's)."}},
)
def delete_observations(
    principal: UploadPrincipal,
    session: SessionDep,
    runtime: RuntimeDep,
    observationsToken: Annotated[str | None, Query()] = None,  # noqa: N803
) -> Response:
    """Delete the operator's observation set; its token is unknown afterwards."""
    token = (observationsToken or "").strip()
    if not token or "\x00" in token:
        return _not_found()
    if not store.delete_observation_set(session=session, operator=principal.operator, token=token):
        return _not_found()
    report_cache(runtime).discard(principal.operator, token)
    return Response(status_code=204)
