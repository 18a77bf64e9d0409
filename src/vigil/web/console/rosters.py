"""Rosters pages (contract §5, §6): upload a CSV file, follow its status, read the
feedback against the rows it belongs to, open a chart per schedule, delete.

Built on the upload repository (:mod:`vigil.store.uploads`) and the stored compact
results (:mod:`vigil.results.compact`), so the console shows exactly what GetResults
serves. Rosters are scoped by the user's operator: another operator's token is 404.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import PurePath
from typing import Annotated, Any, cast
from urllib.parse import quote, unquote

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from vigil.contract import ACTIVE, JobStatus
from vigil.fleet import stored as fleet_stored
from vigil.fleet.export_csv import duty_csv
from vigil.fleet.export_pdf import roster_pdf
from vigil.fleet.export_xlsx import roster_xlsx
from vigil.fleet.home_time import home_offsets
from vigil.fleet.records import local_text, utc_text
from vigil.fleet.schedules import SORT_KEYS, select
from vigil.fleet.stored import StoredSummary
from vigil.fleet.summary import duty_row
from vigil.fleet.table import DutyTable, schedule_table
from vigil.results.compact import StoredScores, unpack
from vigil.results.one import OneSchedule, one_schedule
from vigil.results.stored_sleep import schedule_sleep
from vigil.scoring.report import schedule_entry, sleep_json
from vigil.scoring.service import SCALE_CODES
from vigil.settings.bands import RiskBand
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.repo import AlreadyExistsError
from vigil.store.tables import RosterResult, RosterUpload
from vigil.web.console import explorer_cache
from vigil.web.console._prefs import PREFERENCE_CHOICES, preferences
from vigil.web.console._web import PREFIX, Console, PostConsole, UserConsole, safe_next
from vigil.web.console.charts import chart_payload, in_force, risk_band
from vigil.web.console.dashboard import histogram_bars, hour_grid
from vigil.web.console.reviews import chart_reviews, pattern_reviews, top_duty_reviews

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


def latest_scored(console: Console) -> str | None:
    """The token of the operator's newest roster with results, if any."""
    scored = (JobStatus.COMPLETED_SUCCESSFULLY, JobStatus.COMPLETED_WITH_ERRORS)
    for upload in uploads.list_uploads(session=console.db, operator=console.operator):
        if upload.status in scored:
            return upload.token
    return None


def own_upload(console: Console, token: str) -> RosterUpload | None:
    return uploads.get_upload(session=console.db, operator=console.operator, token=token)


def _wake_workers(console: Console) -> None:
    """Nudge the in-process worker pool (``vigil.web.routes.upload``'s) to claim at once."""
    pool = console.runtime.state.upload_pool
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
        max_bytes=console.runtime.settings.max_upload_bytes,
    )


#: one-shot cookie naming the roster just deleted: the list page shows it once.
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
                "progressDone": u.progress_done,
                "progressTotal": u.progress_total,
            }
        )
    response = JSONResponse({"rosters": items}, headers={"Cache-Control": "no-store"})
    return console.finish(response)


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _roster_name(name: str, filename: str | None) -> str:
    """The upload's name: the one typed, else the file's stem, else a UTC time stamp (stored
    cut to 200 characters)."""
    roster_name = name.strip() or PurePath(filename or "").stem.strip()
    if not roster_name:
        roster_name = datetime.now(UTC).strftime("roster-%Y%m%dT%H%M%SZ")
    return roster_name


def _store_upload(
    console: PostConsole,
    roster_name: str,
    roster_text: str,
    activity_text: str,
    date_format: str,
    scale: str,
    overwrite: bool,
) -> Response:
    """Store the upload and wake the workers, then back to the list; the list page with
    the reason when the operator's queue is full (429) or the name is taken (409)."""
    try:
        upload = uploads.create_upload(
            session=console.db,
            operator=console.operator,
            roster_name=roster_name[:200],
            roster_text=roster_text,
            activity_text=activity_text,
            date_format=date_format,
            preferred_scale=scale,
            overwrite=overwrite,
            max_unfinished=console.runtime.settings.max_queued_per_operator,
        )
    except uploads.QueueFullError as exc:  # the same quota as UploadRoster's
        response = _list_page(console, error=str(exc), status_code=429)
        response.headers["Retry-After"] = "60"
        return response
    except AlreadyExistsError:
        error = f"A roster named {roster_name!r} exists; tick “replace” to overwrite it."
        return _list_page(console, error=error, status_code=409)
    console.db.commit()
    logger.info("console upload %s by %s", upload.id, console.operator)
    _wake_workers(console)
    return console.finish(RedirectResponse(f"{PREFIX}/rosters", status_code=303))


@router.post("")
def upload_roster(
    console: PostConsole,
    roster: Annotated[UploadFile | None, File()] = None,
    activity: Annotated[UploadFile | None, File()] = None,
    name: Annotated[str, Form()] = "",
    date_format: Annotated[str, Form()] = "dmy",
    scale: Annotated[str, Form()] = "KSS",
    overwrite: Annotated[bool, Form()] = False,
) -> Response:
    """Store the file as an upload (UploadRoster's path) and go back to the list.

    Every refusal is the list page with the reason (never JSON): the fields are checked
    here rather than by the framework's validation.
    """
    if roster is None or not roster.filename:
        return _list_page(console, error="Choose a RosterData CSV file.", status_code=400)
    if len(name) > 200:
        return _list_page(console, error="The name is longer than 200 characters.", status_code=400)
    roster_text = _decode(roster.file.read())
    activity_text = _decode(activity.file.read()) if activity is not None else ""
    if roster_text is None or activity_text is None:
        return _list_page(console, error="Files must be UTF-8 text (CSV).", status_code=400)
    if not roster_text.strip():
        return _list_page(console, error="The roster file is empty.", status_code=400)
    if date_format not in ("dmy", "mdy") or scale.upper() not in SCALE_CODES:
        return _list_page(console, error="Unknown date format or scale.", status_code=400)
    roster_name = _roster_name(name, roster.filename)
    return _store_upload(
        console, roster_name, roster_text, activity_text, date_format, scale.upper(), overwrite
    )


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


def _summary(console: Console, upload: RosterUpload) -> tuple[RosterResult, StoredSummary] | None:
    """The roster's stored result and summary (built on first view for older rosters)."""
    result = uploads.get_result(session=console.db, upload_id=upload.id)
    if result is None:
        return None
    return result, fleet_stored.ensure(console.db, upload, result)


def _schedule_page(
    summary: StoredSummary, sort: str, order: str, fleet: str, rank: str, q: str, page: int
) -> dict[str, Any]:
    rows = summary.schedules
    descending = order != "asc"
    picked = select(
        rows, sort=sort, descending=descending, fleet=fleet, rank=rank, query=q, offset=0, limit=0
    )
    pages = max(1, -(-picked.matched // PAGE_SIZE))
    page = max(1, min(page, pages))
    picked = select(
        rows,
        sort=sort,
        descending=descending,
        fleet=fleet,
        rank=rank,
        query=q,
        offset=(page - 1) * PAGE_SIZE,
        limit=PAGE_SIZE,
    )
    items = []
    for i in picked.positions:
        risk = rows["maxRisk"][i]
        css, words = risk_band(risk, summary.thresholds.bands)
        items.append({k: rows[k][i] for k in rows} | {"band": css, "bandText": words})
    return {
        "items": items,
        "matched": picked.matched,
        "page": page,
        "pages": pages,
        "fleets": picked.fleets,
        "ranks": picked.ranks,
        "sort": sort if sort in SORT_KEYS else "risk",
        "order": "asc" if not descending else "desc",
        "fleet": fleet,
        "rank": rank,
        "q": q,
    }


def _dashboard(
    console: UserConsole, upload: RosterUpload, summary: StoredSummary, table: dict[str, Any]
) -> dict[str, Any]:
    """The roster page's dashboard: the summary, its histograms, report-hour grid and
    reviews, and the page of its schedules table (``table``)."""
    s = summary.summary
    return {
        "summary": s,
        "preset": summary.preset,
        "risk_hist": histogram_bars(s["riskHistogram"], bands=summary.thresholds.bands),
        "peak_hist": histogram_bars(s["peakHistogram"], bands=False),
        "grid": hour_grid(s["hotSpots"]["reportHour"]),
        "table": table,
        "band_of": partial(risk_band, in_force=summary.thresholds.bands),
        "in_force": in_force(summary.thresholds, upload.preferred_scale),
        "schedule_total": len(summary.schedules["reference"]),
        "utc": utc_text,
        "reviews": top_duty_reviews(console, s["topDuties"], summary.thresholds.bands),
        "pattern_reviews": pattern_reviews(console, s["patterns"]),
        "back": f"{PREFIX}/rosters/{upload.token}",
    }


@router.get("/{token}")
def roster_detail(
    console: UserConsole,
    token: str,
    page: int = 1,
    sort: str = "risk",
    order: str = "desc",
    fleet: str = "",
    rank: str = "",
    q: str = "",
) -> Response:
    """The roster's dashboard, feedback against rows, and its schedules table
    (sorted by peak, highest risk or time above warning; filtered by Fleet and Rank;
    searched by Reference)."""
    upload = own_upload(console, token)
    if upload is None:
        return console.not_found("roster")
    result = results_store.light_result(console.db, upload.id)
    errors = [str(e) for e in json.loads(result.errors_json or "[]")] if result else []
    rows, loose = (
        feedback_rows(errors, upload.roster_text, upload.activity_text, upload.sleep_json)
        if errors
        else ([], [])
    )
    summary = fleet_stored.ensure_light(console.db, upload, result) if result else None
    context: dict[str, Any] = {}
    if summary is not None:
        table = _schedule_page(summary, sort, order, fleet, rank, q, page)
        context = _dashboard(console, upload, summary, table)
    response = console.render(
        "roster.html",
        upload=upload,
        status=status_view(upload.status),
        submitted=stamp(upload.submitted_at),
        updated=stamp(upload.updated_at),
        error_rows=rows[:MAX_ERROR_ROWS],
        more_error_rows=max(0, len(rows) - MAX_ERROR_ROWS),
        loose=loose,
        error_count=len(errors),
        model_version=result.model_version if result else "",
        scales=SCALE_CODES,
        **context,
    )
    if summary is not None:  # once the page is rendered: "all duties" then opens warm
        explorer_cache.prefetch(console, upload)
    return response


#: export formats: media type and file suffix
EXPORTS = {
    "csv": ("text/csv; charset=utf-8", "csv"),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "pdf": ("application/pdf", "pdf"),
}


def _file_name(upload: RosterUpload, suffix: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", upload.roster_name).strip("._") or "roster"
    return f"vigil-{stem[:80]}.{suffix}"


def _export_table(
    console: Console, upload: RosterUpload, result: RosterResult, summary: StoredSummary
) -> tuple[StoredScores, DutyTable]:
    """The roster's scores on its scale and its duty table, decoded once per roster and
    process for its exports (only the roster's scale is decoded; the runtime keeps the
    last two). Looked up after the operator-scoped read of the upload, by its token (a
    replaced roster gets a new one)."""
    scale = upload.preferred_scale
    key = (upload.token, scale)
    kept = console.runtime.state.export_tables
    found = kept.get(key)
    if found is not None:
        return cast(tuple[StoredScores, DutyTable], found)
    stored = unpack(result.scores, (scale,))
    built = (stored, summary.table(stored, scale))
    kept.put(key, built)
    return built


@router.get("/{token}/export.{kind}")
def roster_export(console: UserConsole, token: str, kind: str) -> Response:
    """The roster as CSV (per duty), XLSX (duties, schedules, hot spots) or PDF report."""
    upload = own_upload(console, token)
    if upload is None or kind not in EXPORTS:
        return console.not_found("roster")
    found = _summary(console, upload)
    if found is None:
        return console.not_found("result (the roster is not processed yet)")
    result, summary = found
    stored, table = _export_table(console, upload, result, summary)
    style = preferences(console).get("airports", "iata")
    media, suffix = EXPORTS[kind]
    headers = {
        "Content-Disposition": f'attachment; filename="{_file_name(upload, suffix)}"',
        # the console's progress bar counts the CSV's rows against this (fleet.js)
        "X-Vigil-Duties": str(len(table)),
    }
    response: Response
    if kind == "csv":
        response = StreamingResponse(duty_csv(table, style), media_type=media, headers=headers)
    elif kind == "xlsx":
        body = roster_xlsx(
            table,
            summary.summary,
            summary.schedules,
            model_version=summary.model_version,
            preset=summary.preset,
            airport_style=style,
        )
        response = Response(body, media_type=media, headers=headers)
    else:
        body = roster_pdf(
            table,
            stored,
            summary.summary,
            summary.schedules,
            roster_name=upload.roster_name,
            model_version=summary.model_version,
            preset=summary.preset,
        )
        response = Response(body, media_type=media, headers=headers)
    response.headers["Cache-Control"] = "no-store"
    return console.finish(response)


@router.post("/preferences")
def save_preferences(
    console: PostConsole,
    time: Annotated[str, Form()] = "utc",
    airports: Annotated[str, Form()] = "iata",
    back: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    """Remember the chart options (time axis, airport codes) for this user."""
    if console.user is None:  # pragma: no cover - PostConsole requires a user
        return console.not_found()
    try:
        current = json.loads(console.user.preferences_json or "{}")
    except ValueError:
        current = {}
    if not isinstance(current, dict):
        current = {}
    if time in PREFERENCE_CHOICES["time"]:
        current["time"] = time
    if airports in PREFERENCE_CHOICES["airports"]:
        current["airports"] = airports
    console.user.preferences_json = json.dumps(current)
    console.db.commit()
    return console.finish(RedirectResponse(safe_next(back), status_code=303))


@router.get("/{token}/chart")
def roster_chart(
    console: UserConsole, token: str, schedule: str = "", scale: str = "", duty: str = ""
) -> Response:
    """The chart of one schedule of an uploaded roster, on any of the six scales; with
    ``duty`` (its number in the schedule) the chart opens on three days centred on it.

    Reads only stored results: the scores blob, the sleep stored with it and
    the roster facts of the summary (route, sectors, local offsets); never re-parses or
    re-scores the roster.
    """
    upload = own_upload(console, token)
    if upload is None:
        return console.not_found("roster")
    result = results_store.light_result(console.db, upload.id, sleep=True)
    if result is None:
        return console.not_found("result (the roster is not processed yet)")
    summary = fleet_stored.ensure_light(console.db, upload, result)
    one = _one_stored(console, upload, summary, schedule)
    if one is None:
        return console.not_found("schedule")
    stored = one.stored
    code = scale.upper() if scale.upper() in stored.scales else upload.preferred_scale
    entry = schedule_entry(next(iter(stored.schedule_results(code))), code, risk=True, arrays=False)
    entry["sleep"] = stored_sleep(result, schedule)
    prefs = preferences(console)
    limits = summary.thresholds
    payload = chart_payload(entry, code, warnings=limits.warnings(code), in_force=limits.bands)
    table = _chart_table(one, summary, code)
    home = table.home[0]
    _add_home_time(payload, table, prefs["time"])
    anchor = _anchor(payload, duty)
    return console.render(
        "chart.html",
        upload=upload,
        payload=payload,
        scale=code,
        scales=stored.scales,
        schedule=schedule,
        model_version=result.model_version,
        preset=summary.preset,
        in_force=in_force(limits, code),
        duties=_chart_duties(table, prefs["airports"], limits.bands),
        prefs=prefs,
        home=table.airports.label(home, prefs["airports"]) if home >= 0 else "",
        fleet=table.fleet[0],
        rank=table.rank[0],
        back=str(console.request.url.path) + "?" + str(console.request.url.query),
        reviews=chart_reviews(console, table, schedule),
        anchor=anchor,
    )


def _one_stored(
    console: Console, upload: RosterUpload, summary: StoredSummary, schedule: str
) -> OneSchedule | None:
    """``schedule``'s stored scores alone (:func:`vigil.results.one.one_schedule`), found
    where the summary's facts put them (its position, first row and first duty) when they
    know, else looked up; ``None`` when the roster has no such schedule."""
    facts = summary.facts
    refs = summary.schedules["reference"]
    where = None
    if facts.row_offset and schedule in refs:
        at = refs.index(schedule)
        where = (at, facts.row_offset[at], facts.first_duty[at])
    return one_schedule(results_store.scores_reader(console.db, upload.id), schedule, where)


def _chart_table(one: OneSchedule, summary: StoredSummary, code: str) -> DutyTable:
    """The schedule's duty table on scale ``code`` under the thresholds in force."""
    limits = summary.thresholds
    return schedule_table(
        one.stored,
        summary.facts,
        one.position,
        code,
        first_duty=one.first_duty,
        level=limits.level(code),
        bands=limits.bands,
    )


def _anchor(payload: dict[str, Any], duty: str) -> int:
    """The duty number (from 1) the chart script centres its window on, set in ``payload``;
    0 (none) unless ``duty`` is the number of one of the chart's duties."""
    anchor = int(duty) if duty.isdigit() and 1 <= int(duty) <= len(payload["duties"]) else 0
    if anchor:
        payload["anchor"] = anchor
    return anchor


def _add_home_time(payload: dict[str, Any], table: DutyTable, time_axis: str) -> None:
    """The chart's home-base time: its UTC offset at the first duty, the home zone's
    offsets over the chart's span (:func:`_home_offsets`), and the time axis chosen."""
    home = table.home[0]
    payload["homeOffsetMin"] = int(table.home_offset[0]) if len(table) else 0
    payload["homeOffsets"] = _home_offsets(payload, table.airports.zone[home] if home >= 0 else "")
    payload["timeAxis"] = time_axis


def _chart_duties(
    table: DutyTable, airport_style: str, bands: tuple[RiskBand, ...]
) -> list[dict[str, Any]]:
    """The chart page's table of the schedule's duties: :func:`vigil.fleet.summary.duty_row`
    with report and off times in UTC and local time and the risk band."""
    duties = [duty_row(table, i, airport_style) | {"index": i + 1} for i in range(len(table))]
    for row in duties:
        row["reportLocal"] = local_text(row["onUtc"], row["startOffsetMin"])
        row["offLocal"] = local_text(row["offUtc"], row["endOffsetMin"])
        row["reportUtc"] = utc_text(row["onUtc"])
        row["offUtc_"] = utc_text(row["offUtc"])
        row["bandCss"], row["bandText"] = risk_band(row["risk"], bands)
    return duties


def _home_offsets(payload: dict[str, Any], zone: str) -> list[list[int]]:
    """The home zone's UTC offsets over the chart's span (a day either side of its
    duties and sleep), so each instant shows in its own home-base time."""
    instants = [d["on"] for d in payload["duties"]] + [d["off"] for d in payload["duties"]]
    instants += [s["start"] for s in payload["sleep"]] + [s["end"] for s in payload["sleep"]]
    if not instants:
        return [[0, 0]]
    day_s = 86400
    return home_offsets(zone, min(instants) // 1000 - day_s, max(instants) // 1000 + day_s)


def stored_sleep(result: results_store.LightResult, reference: str) -> list[dict[str, object]]:
    """The sleep one schedule's scores rest on, as stored with the results;
    empty for a roster processed before sleep was stored."""
    if result.sleep is None:
        return []
    return [sleep_json(e.episode()) for e in schedule_sleep(result.sleep, reference)]


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
