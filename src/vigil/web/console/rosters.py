"""Rosters pages (contract §5, §6): upload a CSV file, follow its status, read the
feedback against the rows it belongs to, open a chart per schedule, delete.

Built on the upload repository (:mod:`vigil.store.uploads`) and the stored compact
results (:mod:`vigil.worker.compact`), so the console shows exactly what GetResults
serves. Rosters are scoped by the user's operator: another operator's token is 404.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Annotated, Any
from urllib.parse import quote, unquote

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse, Response

from vigil.domain import DateFormat
from vigil.roster import parse_request
from vigil.scoring.report import schedule_entry
from vigil.scoring.service import (
    SCALE_CODES,
    resolve_preset,
    sleep_for,
    sleep_json,
)
from vigil.store import uploads
from vigil.store.repo import AlreadyExistsError
from vigil.store.status import ACTIVE, JobStatus
from vigil.store.tables import RosterUpload
from vigil.web.console._web import PREFIX, Console, PostConsole, UserConsole
from vigil.web.console.charts import chart_payload
from vigil.worker.compact import StoredScores, unpack

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/rosters")

#: schedules listed per page of a roster's detail page (ours)
PAGE_SIZE = 100
#: roster lines with errors shown on the feedback table (the rest are counted)
MAX_ERROR_ROWS = 500

STATUS_TEXT: dict[str, tuple[str, str]] = {
    JobStatus.QUEUED: ("queued", "busy"),
    JobStatus.PROCESSING: ("processing…", "busy"),
    JobStatus.COMPLETED_SUCCESSFULLY: ("completed", "ok"),
    JobStatus.COMPLETED_WITH_ERRORS: ("completed with errors", "warn"),
    JobStatus.FAILED: ("failed", "bad"),
}
_LINE_BREAK = re.compile(r"\r\n|\n|\r")


def status_view(status: str) -> tuple[str, str]:
    """``(words, css class)`` of a contract §5 status."""
    return STATUS_TEXT.get(status, (status, ""))


def stamp(instant: datetime | None) -> str:
    if instant is None:
        return ""
    return instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def count_for(console: Console) -> int:
    """How many rosters the user's operator has (the overview page)."""
    return len(uploads.list_uploads(session=console.db, operator=console.operator))


def own_upload(console: Console, token: str) -> RosterUpload | None:
    return uploads.get_upload(session=console.db, operator=console.operator, token=token)


def _wake_workers(console: Console) -> None:
    """Nudge the in-process worker pool (``vigil.web.routes.upload``'s) to claim at once."""
    pool = getattr(console.request.app.state, "upload_pool", None)
    if pool is not None:
        pool.wake()


def _list_page(
    console: Console, *, error: str | None = None, notice: str | None = None, status_code: int = 200
) -> Response:
    rows = [
        {
            "upload": u,
            "status": status_view(u.status),
            "submitted": stamp(u.submitted_at),
            "updated": stamp(u.updated_at),
        }
        for u in uploads.list_uploads(session=console.db, operator=console.operator)
    ]
    return console.render(
        "rosters.html",
        status_code=status_code,
        rows=rows,
        scales=SCALE_CODES,
        error=error,
        notice=notice,
        active=ACTIVE,
    )


#: one-shot cookie naming the roster just deleted (issue 13): the list page shows it once.
#: The name never travels in the URL, so a link cannot make the page say anything.
DELETED_COOKIE = "vigil_deleted"
_ROSTERS_PATH = f"{PREFIX}/rosters"


@router.get("")
def list_rosters(console: UserConsole, request: Request) -> Response:
    deleted = request.cookies.get(DELETED_COOKIE)
    notice = f"Roster {unquote(deleted)} deleted." if deleted else None
    response = _list_page(console, notice=notice)
    if deleted:
        response.delete_cookie(DELETED_COOKIE, path=_ROSTERS_PATH)
    return response


@router.get("/status")
def roster_status(console: UserConsole) -> Response:
    """Statuses as JSON, for the list page's poller (same shape as ListRosters, plus words)."""
    items = []
    for u in uploads.list_uploads(session=console.db, operator=console.operator):
        words, css = status_view(u.status)
        items.append(
            {
                "rosterToken": u.token,
                "rosterName": u.roster_name,
                "status": u.status,
                "statusText": words,
                "statusClass": css,
                "updatedAt": stamp(u.updated_at),
            }
        )
    response = JSONResponse({"rosters": items}, headers={"Cache-Control": "no-store"})
    return console.finish(response)


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


@router.post("")
def upload_roster(
    console: PostConsole,
    roster: Annotated[UploadFile, File()],
    activity: Annotated[UploadFile | None, File()] = None,
    name: Annotated[str, Form(max_length=200)] = "",
    date_format: Annotated[str, Form()] = "dmy",
    scale: Annotated[str, Form()] = "KSS",
    overwrite: Annotated[bool, Form()] = False,
) -> Response:
    """Store the file as an upload (UploadRoster's path) and go back to the list."""
    roster_text = _decode(roster.file.read())
    activity_text = _decode(activity.file.read()) if activity is not None else ""
    if roster_text is None or activity_text is None:
        return _list_page(console, error="Files must be UTF-8 text (CSV).", status_code=400)
    if not roster_text.strip():
        return _list_page(console, error="The roster file is empty.", status_code=400)
    if date_format not in ("dmy", "mdy") or scale.upper() not in SCALE_CODES:
        return _list_page(console, error="Unknown date format or scale.", status_code=400)
    roster_name = name.strip() or PurePath(roster.filename or "").stem.strip()
    if not roster_name:
        roster_name = datetime.now(UTC).strftime("roster-%Y%m%dT%H%M%SZ")
    try:
        upload = uploads.create_upload(
            session=console.db,
            operator=console.operator,
            roster_name=roster_name[:200],
            roster_text=roster_text,
            activity_text=activity_text,
            date_format=date_format,
            preferred_scale=scale.upper(),
            overwrite=overwrite,
        )
    except AlreadyExistsError:
        error = f"A roster named {roster_name!r} exists; tick “replace” to overwrite it."
        return _list_page(console, error=error, status_code=409)
    console.db.commit()
    logger.info("console upload %s by %s", upload.id, console.operator)
    _wake_workers(console)
    return console.finish(RedirectResponse(f"{PREFIX}/rosters", status_code=303))


@dataclass
class ErrorRow:
    """Feedback errors of one row of the uploaded data, with the row's text."""

    source: str  # "RosterData", "ActivityData", "SleepData"
    row: int
    text: str
    messages: list[tuple[str, str]]  # (schedule, message)


def feedback_rows(
    errors: list[str], roster_text: str, activity_text: str, sleep_text: str
) -> tuple[list[ErrorRow], list[tuple[str, str, str]]]:
    """Group ``row|schedule|message`` strings (contract §4, §5.1, §3.2) by their row.

    Returns the rows (with the text of that line) in order and the errors that name
    no row of the data (kept as ``(row, schedule, message)``).
    """
    roster_lines = _LINE_BREAK.split(roster_text)
    activity_lines = _LINE_BREAK.split(activity_text)
    try:
        sleep_records = json.loads(sleep_text or "[]")
    except ValueError:
        sleep_records = []
    grouped: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
    loose: list[tuple[str, str, str]] = []
    for error in errors:
        row, _, rest = error.partition("|")
        schedule, _, message = rest.partition("|")
        key: tuple[str, int] | None = None
        if row.isdigit() and 1 <= int(row) <= len(roster_lines):
            key = ("RosterData", int(row))
        elif row.startswith("ActivityData:") and row[13:].isdigit():
            key = ("ActivityData", int(row[13:]))
        elif (m := re.fullmatch(r"SleepData\[(\d+)\]", row)) is not None:
            key = ("SleepData", int(m.group(1)))
        if key is None:
            loose.append((row, schedule, message))
        else:
            grouped[key].append((schedule, message))
    rows: list[ErrorRow] = []
    order = {"RosterData": 0, "ActivityData": 1, "SleepData": 2}
    for (source, number), messages in sorted(
        grouped.items(), key=lambda i: (order[i[0][0]], i[0][1])
    ):
        if source == "RosterData":
            text = roster_lines[number - 1]
        elif source == "ActivityData":
            text = activity_lines[number - 1] if number <= len(activity_lines) else ""
        else:
            records = sleep_records if isinstance(sleep_records, list) else []
            text = json.dumps(records[number]) if number < len(records) else ""
        rows.append(ErrorRow(source, number, text, messages))
    return rows, loose


def _stored(console: Console, upload: RosterUpload) -> tuple[StoredScores | None, list[str], str]:
    result = uploads.get_result(session=console.db, upload_id=upload.id)
    if result is None:
        return None, [], ""
    errors = [str(e) for e in json.loads(result.errors_json or "[]")]
    return unpack(result.scores), errors, result.model_version


@router.get("/{token}")
def roster_detail(console: UserConsole, token: str, page: int = 1) -> Response:
    """Status, feedback against rows, and the schedules (with chart links) of one roster."""
    upload = own_upload(console, token)
    if upload is None:
        return console.not_found("roster")
    stored, errors, model_version = _stored(console, upload)
    rows, loose = feedback_rows(errors, upload.roster_text, upload.activity_text, upload.sleep_json)
    schedules: list[dict[str, Any]] = []
    total = 0
    if stored is not None:
        total = len(stored.schedules)
        page = max(1, min(page, max(1, -(-total // PAGE_SIZE))))
        lo = (page - 1) * PAGE_SIZE
        column = stored.scales.index(upload.preferred_scale)
        offset = sum(s.interval_count for s in stored.schedules[:lo])
        for reference, n, duties in stored.schedules[lo : lo + PAGE_SIZE]:
            values = stored.matrix[offset : offset + n, column]
            offset += n
            risks = [d.risk for d in duties if d.risk is not None]
            schedules.append(
                {
                    "reference": reference,
                    "duties": len(duties),
                    "intervals": n,
                    "peak": round(float(values.max()), 3) if n else None,
                    "max_risk": max(risks) if risks else None,
                }
            )
    return console.render(
        "roster.html",
        upload=upload,
        status=status_view(upload.status),
        submitted=stamp(upload.submitted_at),
        updated=stamp(upload.updated_at),
        error_rows=rows[:MAX_ERROR_ROWS],
        more_error_rows=max(0, len(rows) - MAX_ERROR_ROWS),
        loose=loose,
        error_count=len(errors),
        schedules=schedules,
        schedule_total=total,
        page=page,
        pages=max(1, -(-total // PAGE_SIZE)),
        model_version=model_version,
        scales=SCALE_CODES,
    )


def schedule_sleep(upload: RosterUpload, reference: str) -> list[dict[str, object]]:
    """The sleep one schedule's scores rest on, recomputed from the stored roster.

    Stored results keep scores, duties and risk but not the sleep episodes, so the chart
    re-derives them with the service's own :func:`~vigil.scoring.service.sleep_for`
    (deterministic: the same episodes the worker used). Ours: costs one parse of the
    roster per chart view.
    """
    try:
        parsed = parse_request(
            upload.roster_text,
            DateFormat(upload.date_format),
            sleep_data=json.loads(upload.sleep_json or "[]"),
            activity_text=upload.activity_text,
        )
    except ValueError:
        return []
    found = [s for s in parsed.schedules if s.reference == reference]
    if not found:
        return []
    episodes = sleep_for(found, resolve_preset("ingre2014_5c"))[0]
    return [sleep_json(e) for e in episodes]


@router.get("/{token}/chart")
def roster_chart(console: UserConsole, token: str, schedule: str = "", scale: str = "") -> Response:
    """The chart of one schedule of an uploaded roster, on any of the six scales."""
    upload = own_upload(console, token)
    if upload is None:
        return console.not_found("roster")
    stored, _errors, model_version = _stored(console, upload)
    if stored is None:
        return console.not_found("result (the roster is not processed yet)")
    code = scale.upper() if scale.upper() in stored.scales else upload.preferred_scale
    result = next((r for r in stored.schedule_results(code) if r.reference == schedule), None)
    if result is None:
        return console.not_found("schedule")
    entry = schedule_entry(result, code, risk=True, arrays=False)
    entry["sleep"] = schedule_sleep(upload, schedule)
    payload = chart_payload(entry, code)
    return console.render(
        "chart.html",
        upload=upload,
        payload=payload,
        scale=code,
        scales=stored.scales,
        schedule=schedule,
        model_version=model_version,
    )


@router.post("/{token}/delete")
def delete_roster(console: PostConsole, token: str) -> Response:
    """Delete the roster and its results (seed §4.6 step 3); its token becomes 404."""
    upload = own_upload(console, token)
    if upload is None:
        return console.not_found("roster")
    name = upload.roster_name
    uploads.delete_upload(session=console.db, operator=console.operator, token=token)
    console.db.commit()
    response = RedirectResponse(_ROSTERS_PATH, status_code=303)
    response.set_cookie(
        DELETED_COOKIE,
        quote(name),
        max_age=60,
        path=_ROSTERS_PATH,
        httponly=True,
        samesite="strict",
        secure=console.runtime.settings.public_base_url.startswith("https://"),
    )
    return console.finish(response)
