"""The upload surface (``{upload_url}``): UploadRoster, GetResults, DeleteRoster,
ListRosters (seed §4.4–§4.6; contract §5, §8). Every call needs the upload scope.

Rosters belong to the caller's operator: another operator's token answers 404 exactly
like an unknown one (contract §2). Query parameter names and ``dataKey`` values match
case-insensitively. The router's lifespan starts the in-process worker pool
(:class:`vigil.worker.run.WorkerPool`, ``VIGIL_WORKER_THREADS``) when the surface has a
database, so ``vigil serve`` processes uploads by itself (contract §8).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field, field_validator
from sqlalchemy.orm import Session

from vigil.contract import JobStatus
from vigil.scoring.service import SCALE_CODES, ScoringError, iso, resolve_scale
from vigil.store import operator_settings as settings_store
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.repo import AlreadyExistsError
from vigil.store.tables import RosterUpload, utcnow
from vigil.web.deps import SessionDep, UploadPrincipal, get_runtime
from vigil.web.problems import only_query, problem
from vigil.web.schemas import (
    GetResultsOut,
    RosterListOut,
    ScaleCode,
    SleepRecordIn,
    UploadAcceptedOut,
    _Wire,
)
from vigil.web.stored_results import Selection, read_selection, scores_response, sleep_response

logger = logging.getLogger(__name__)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Start the in-process worker pool when this surface has a database (contract §8)."""
    runtime = getattr(app.state, "vigil", None)
    pool = None
    if runtime is not None and runtime.sessions is not None:
        settings = runtime.settings
        if settings.worker_threads > 0:
            from vigil.fleet.stored import WORKER_SUMMARIES
            from vigil.worker.run import WorkerPool

            pool = WorkerPool.from_settings(
                runtime.sessions, settings, record_summary=WORKER_SUMMARIES
            ).start()
    if runtime is not None:
        runtime.state.upload_pool = pool
    try:
        yield
    finally:
        if runtime is not None:
            runtime.state.upload_pool = None
        if pool is not None:
            pool.stop(timeout=10.0)


router = APIRouter(prefix="/api", tags=["upload"], lifespan=lifespan)

#: ``dataKey`` values (contract §5); ``results`` is an alias of ``scores``; ``sleep``
#: is the sleep the scores rest on; ``summary``
#: the roster dashboard's figures
DATA_KEYS = ("status", "feedback", "scores", "results", "sleep", "summary")
#: spellings of a boolean query parameter (``includeSleep``)
_BOOLEAN = {
    **dict.fromkeys(("true", "1", "yes", "on", "t", "y"), True),
    **dict.fromkeys(("false", "0", "no", "off", "f", "n"), False),
}


class UploadRosterIn(_Wire):
    """UploadRoster body (contract §5); only its JSON shape is checked here [4.4]."""

    RosterData: str = Field(description="CSV text as for ProcessFatigue (contract §3.1).")
    ActivityData: str = Field(default="", description="Activities CSV (contract §5.1).")
    SleepData: list[SleepRecordIn] = Field(default_factory=list)
    DateFormat: str = Field(default="dmy", pattern="^(dmy|mdy)$")
    PreferredScale: ScaleCode | None = Field(
        default=None, description="Default: the operator's default scale (KSS unless set)."
    )
    RosterName: str | None = Field(default=None, min_length=1, max_length=200)
    Overwrite: bool = False

    @field_validator("RosterName", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    @field_validator("RosterData", "ActivityData", "RosterName", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        """PostgreSQL text cannot hold U+0000; refuse it on every backend alike (400)."""
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("text must not contain NUL characters (U+0000)")
        return value


def default_roster_name() -> str:
    """A RosterName made from the upload time (contract §5), unique by a short suffix."""
    return f"roster-{utcnow().strftime('%Y%m%dT%H%M%S')}Z-{secrets.token_hex(3)}"


def _query(request: Request) -> dict[str, str]:
    """Query parameters with lower-cased names (contract §5: case-insensitive)."""
    out: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        out.setdefault(key.lower(), value)
    return out


def _not_found() -> JSONResponse:
    return problem(404, "No roster with this token.", title="Unknown roster token")


def _token(params: dict[str, str]) -> str | JSONResponse:
    token = params.get("rostertoken", "").strip()
    if not token:
        return problem(
            400,
            "The query parameter rosterToken is required.",
            errors=[{"property": "rosterToken", "message": "Field required"}],
        )
    if "\x00" in token:  # no token has one; PostgreSQL refuses NUL in text (was a 500)
        return _not_found()
    return token


def _status_body(upload: RosterUpload) -> dict[str, Any]:
    return {
        "rosterToken": upload.token,
        "status": upload.status,
        "submittedAt": iso(upload.submitted_at),
        "updatedAt": iso(upload.updated_at),
        "progress": {"crewDone": upload.progress_done, "crewTotal": upload.progress_total},
    }


@router.post(
    "/UploadRoster",
    summary="Accept a roster for processing; returns its roster token",
    responses={
        200: {"model": UploadAcceptedOut, "description": "Stored durably and queued."},
        400: {"description": "The body is not an UploadRoster request (problem+json)."},
        409: {"description": "The operator already has this RosterName (without Overwrite)."},
        429: {"description": "The operator has too many rosters waiting (problem+json)."},
    },
)
def upload_roster(
    body: UploadRosterIn,
    principal: UploadPrincipal,
    session: SessionDep,
    request: Request,
) -> JSONResponse:
    """Store the roster, ``queued``; the token is returned only after the commit."""
    name = body.RosterName or default_roster_name()
    quota = request.app.state.vigil.settings.max_queued_per_operator
    current = settings_store.current_settings(session=session, operator=principal.operator)
    try:
        upload = uploads.create_upload(
            session=session,
            operator=principal.operator,
            roster_name=name,
            roster_text=body.RosterData,
            activity_text=body.ActivityData,
            sleep_json=json.dumps([r.record() for r in body.SleepData]),
            date_format=body.DateFormat,
            preferred_scale=body.PreferredScale or current.settings.scale,
            overwrite=body.Overwrite,
            max_unfinished=quota,
        )
    except uploads.QueueFullError as exc:
        return problem(
            429,
            f"{exc} (GetResults dataKey=status)",
            title="Too many rosters waiting",
            headers={"Retry-After": "60"},
        )
    except AlreadyExistsError:
        return problem(
            409,
            f"A roster named {name!r} exists; send Overwrite: true to replace it.",
            title="Roster name already used",
        )
    settings_store.record_roster_settings(
        session=session, upload_id=upload.id, version=current.version
    )
    token = upload.token
    session.commit()  # durable before the token is returned (contract §5)
    pool = get_runtime(request).state.upload_pool
    if pool is not None:
        pool.wake()
    return JSONResponse({"rosterToken": token, "rosterName": name})


def _options(params: dict[str, str]) -> tuple[str, str | None, bool] | JSONResponse:
    """GetResults' ``dataKey``, ``scale`` (``None``: the roster's) and ``includeSleep``,
    checked, or the 400 naming the bad one."""
    key = params.get("datakey", "").strip().lower()
    if key not in DATA_KEYS:
        return problem(
            400,
            f"dataKey must be one of {', '.join(DATA_KEYS)}.",
            errors=[{"property": "dataKey", "message": "unknown value"}],
        )
    wanted_scale: str | None = None
    if params.get("scale"):
        try:
            wanted_scale = resolve_scale(params["scale"])
        except ScoringError:
            return problem(
                400,
                f"scale must be one of {', '.join(SCALE_CODES)}.",
                errors=[{"property": "scale", "message": "unknown value"}],
            )
    with_sleep = _BOOLEAN.get(params.get("includesleep", "false").strip().lower())
    if with_sleep is None:
        return problem(
            400,
            "includeSleep must be true or false.",
            errors=[{"property": "includeSleep", "message": "not a boolean"}],
        )
    return key, wanted_scale, with_sleep


@router.get(
    "/GetResults",
    dependencies=[
        Depends(
            only_query(
                "rosterToken", "dataKey", "scale", "includeSleep", "schedule", "offset", "limit"
            )
        )
    ],
    summary="Status, feedback (data errors), scores or sleep of an uploaded roster",
    responses={
        200: {
            "model": GetResultsOut,
            "description": "`dataKey=status`: RosterStatusOut; `feedback`: FeedbackOut; "
            "`scores` (alias `results`): ScoresOut, streamed, with `riskScores` and `duties` "
            "(and each schedule's `sleep` with `includeSleep=true`); `sleep`: "
            "SleepResultsOut, streamed. Scores and sleep hold every schedule, or those named "
            "by `schedule`, then paged by `offset`/`limit`; `X-Total-Count` gives the count "
            "before paging. `summary`: RosterSummaryOut (the roster dashboard's figures).",
        },
        400: {"description": "Missing rosterToken, unknown dataKey, scale or parameter."},
        404: {
            "description": "Unknown roster token (or another operator's), or a `schedule` "
            "without results in this roster."
        },
        409: {"description": "Scores asked before processing ended; `rosterStatus` says."},
    },
)
def get_results(
    principal: UploadPrincipal,
    session: SessionDep,
    request: Request,
    rosterToken: Annotated[str | None, Query(description="From UploadRoster.")] = None,  # noqa: N803
    dataKey: Annotated[  # noqa: N803
        str | None, Query(description="status, feedback, scores (alias results), sleep, summary.")
    ] = None,
    scale: Annotated[str | None, Query(description="Scores on another scale.")] = None,
    includeSleep: Annotated[  # noqa: N803
        bool | None,
        Query(description="With scores: add each schedule's sleep, given or predicted."),
    ] = None,
    schedule: Annotated[
        list[str] | None,
        Query(description="Only these schedules (References); repeat for several."),
    ] = None,
    offset: Annotated[
        int | None, Query(ge=0, description="Skip this many schedules (default 0).")
    ] = None,
    limit: Annotated[
        int | None, Query(ge=1, description="At most this many schedules (default all).")
    ] = None,
) -> Response:
    """GetResults (seed §4.5, contract §5); parameter names in any case."""
    params = _query(request)
    token = _token(params)
    if isinstance(token, JSONResponse):
        return token
    asked = _options(params)
    if isinstance(asked, JSONResponse):
        return asked
    key, wanted_scale, with_sleep = asked
    selection = read_selection(request)
    if isinstance(selection, JSONResponse):
        return selection
    upload = uploads.get_upload(session=session, operator=principal.operator, token=token)
    if upload is None:
        return _not_found()
    if key == "status":
        return JSONResponse(_status_body(upload))
    return _result_answer(session, upload, key, wanted_scale, with_sleep, selection)


def _sleep_not_stored(upload: RosterUpload) -> JSONResponse:
    """The 409 of a roster stored before its sleep was."""
    return problem(
        409,
        "This roster was processed before sleep was stored with results; upload it"
        " again (Overwrite: true) to get its sleep.",
        title="Sleep not stored",
        rosterToken=upload.token,
        rosterStatus=upload.status,
    )


def _result_answer(
    session: Session,
    upload: RosterUpload,
    key: str,
    wanted_scale: str | None,
    with_sleep: bool,
    selection: Selection,
) -> Response:
    """GetResults' answer from a roster's stored result (every ``dataKey`` but status)."""
    # the result's small columns only: the scores blob is read as each answer needs it
    result = results_store.light_result(
        session, upload.id, sleep=key == "sleep" or bool(with_sleep)
    )
    if key == "feedback":
        body: dict[str, Any] = {
            "rosterToken": upload.token,
            "status": upload.status,
            "errors": json.loads(result.errors_json) if result is not None else [],
        }
        if upload.status == JobStatus.FAILED:
            body["detail"] = upload.error_summary or "The server failed to process the roster."
        return JSONResponse(body)
    if result is None:
        what = "sleep" if key == "sleep" else "scores"
        return problem(
            409,
            f"The roster is {upload.status}; {what} exist once processing has completed.",
            title=f"{what.capitalize()} not available",
            rosterToken=upload.token,
            rosterStatus=upload.status,
        )
    if key == "summary":  # the roster dashboard's figures (vigil.fleet.api)
        from vigil.fleet.api import summary_body

        whole = uploads.get_result(session=session, upload_id=upload.id)
        assert whole is not None
        return Response(summary_body(session, upload, whole), media_type="application/json")
    if (key == "sleep" or with_sleep) and result.sleep is None:
        return _sleep_not_stored(upload)
    if key == "sleep":
        return sleep_response(upload.token, result, selection)
    version = settings_store.roster_settings_version(session=session, upload_id=upload.id)
    return scores_response(
        session, result, wanted_scale or upload.preferred_scale, with_sleep, selection, version
    )


@router.delete(
    "/DeleteRoster",
    dependencies=[Depends(only_query("rosterToken"))],
    status_code=204,
    summary="Delete an uploaded roster and its results",
    responses={
        204: {"description": "Deleted; the token is unknown from now on."},
        404: {"description": "Unknown roster token (or another operator's)."},
    },
)
def delete_roster(
    principal: UploadPrincipal,
    session: SessionDep,
    request: Request,
    rosterToken: Annotated[str | None, Query(description="From UploadRoster.")] = None,  # noqa: N803
) -> Response:
    """DeleteRoster (seed §4.6 step 3, contract §5)."""
    token = _token(_query(request))
    if isinstance(token, JSONResponse):
        return token
    if not uploads.delete_upload(session=session, operator=principal.operator, token=token):
        return _not_found()
    return Response(status_code=204)


@router.get(
    "/ListRosters",
    dependencies=[Depends(only_query())],
    summary="The operator's rosters, newest first, with status",
    responses={200: {"model": RosterListOut, "description": "Every roster of your operator."}},
)
def list_rosters(principal: UploadPrincipal, session: SessionDep) -> JSONResponse:
    """ListRosters (contract §5, §8 Formats)."""
    rows = uploads.list_uploads(session=session, operator=principal.operator)
    return JSONResponse(
        {
            "rosters": [
                {
                    "rosterToken": r.token,
                    "rosterName": r.roster_name,
                    "status": r.status,
                    "submittedAt": iso(r.submitted_at),
                    "updatedAt": iso(r.updated_at),
                }
                for r in rows
            ]
        }
    )
