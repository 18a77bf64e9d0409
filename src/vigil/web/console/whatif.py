"""What-if and rest planning on a schedule's chart (``docs/console.md``).

Pages and JSON endpoints under ``/console/rosters/{token}/whatif``:

* ``GET …/whatif?schedule=REF&scale=KSS``: the what-if page. The stored scores are drawn as
  they are; the draft starts from the schedule's stored rows (:mod:`.whatif_draft`).
* ``POST …/whatif/score``: score a draft through the service's own path
  (:func:`vigil.scoring.service.score`, what ProcessFatigueRisk runs) under the settings
  version the roster's stored scores were computed with, and answer the chart payload, the
  data errors and the exact RosterData / SleepData that were scored.
* ``POST …/whatif/plan``: plan the in-flight rest of one augmented duty of the draft with
  :func:`vigil.planner.plan_rest` (what ``POST /api/Planner/InflightRest`` runs), the other
  pilots read from the stored roster; answers the plan, each pilot's current rest, and the
  draft scored with the proposal applied.

Drafts live in the browser only: the server keeps nothing between requests and never writes
the upload. Every endpoint first looks the roster up by the user's operator, so another
operator's roster or schedule answers 404, exactly like a missing one. The JSON endpoints
take the session's CSRF token in ``X-CSRF-Token`` and only ``application/json`` bodies.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, Header, HTTPException
from fastapi.responses import JSONResponse, Response

from vigil.domain import CrewComposition, DateFormat, Period, Schedule
from vigil.planner import PilotBreak, PlanError, PlanRequest, plan_rest
from vigil.results.one import one_schedule, schedules_with_duty
from vigil.roster import ParsedRoster
from vigil.scoring.context import ScoringContext
from vigil.scoring.report import schedule_entry
from vigil.scoring.rest import rest_windows
from vigil.scoring.service import SCALE_CODES, score, sleep_for, sleep_json
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.tables import RosterUpload
from vigil.web.console import _session as cookies
from vigil.web.console._web import Console, UserConsole
from vigil.web.console.charts import chart_payload
from vigil.web.console.whatif_draft import (
    Draft,
    crew_of,
    draft_of,
    roster_text,
    rows_of,
    sleep_data,
)
from vigil.web.console.whatif_wire import (
    DraftError,
    DraftIn,
    PlanIn,
    draft_json,
    epoch_ms,
    to_draft,
)
from vigil.web.operator_context import context_of_upload
from vigil.web.problems import problem

router = APIRouter(prefix="/rosters")


def check_csrf(
    console: UserConsole, x_csrf_token: Annotated[str | None, Header()] = None
) -> Console:
    """A signed-in console whose JSON request carries the session's CSRF token (else 403)."""
    if not cookies.csrf_ok(console.session, x_csrf_token):
        raise HTTPException(403, "The X-CSRF-Token header is missing or stale; reload the page.")
    content_type = console.request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise HTTPException(415, "Send the draft as application/json.")
    return console


JsonConsole = Annotated[Console, Depends(check_csrf)]


def _own(console: Console, token: str) -> RosterUpload | None:
    return uploads.get_upload(session=console.db, operator=console.operator, token=token)


def _stored_sleep(upload: RosterUpload, references: Sequence[str]) -> list[dict[str, Any]]:
    """The upload's given SleepData records of ``references``."""
    try:
        records = json.loads(upload.sleep_json or "[]")
    except ValueError:
        return []
    wanted = set(references)
    return [
        r
        for r in records
        if isinstance(r, dict)
        if str(next((v for k, v in r.items() if str(k).lower() == "schedulename"), "")) in wanted
    ]


def _has_schedule(console: Console, upload: RosterUpload, reference: str) -> bool:
    """Whether the upload's roster has rows of ``reference``, remembered per roster token
    (a token's rows never change: a replaced roster gets a new token). Read only after the
    operator-scoped look-up of the upload, so it answers nothing across operators. A
    Reference not yet known is looked for in the roster's text
    (:func:`.whatif_draft.rows_of`: the lines holding it, not the whole roster read as
    CSV)."""
    known = console.runtime.state.whatif_references
    found = known.get(upload.token) or frozenset()
    if reference in found:
        return True
    if not reference or not rows_of(upload.roster_text, [reference])[1]:
        return False
    known.put(upload.token, found | {reference})
    return True


def score_draft(
    draft: Draft, date_format: DateFormat, scale: str, context: ScoringContext
) -> dict[str, Any]:
    """Score a draft as ProcessFatigueRisk would score its RosterData and SleepData, under
    ``context`` (the settings version the roster's stored scores were computed with).

    Returns the chart payload (``None`` when the draft's rows have data errors), the
    errors (``row|schedule|message``), the scorer's rest windows per duty, the exact
    ``rosterData`` and ``sleepData`` scored, the model version and the settings version.
    """
    text = roster_text([draft], date_format)
    records = sleep_data([draft])
    report = score(
        context.request(
            text,
            date_format=date_format,
            scale=scale,
            sleep_data=records,
            risk=True,
            include_sleep=True,
        )
    )
    entries = cast(list[dict[str, Any]], report.to_envelope()["scheduleScores"])
    payload = chart_payload(entries[0], scale) if entries else None
    rests: list[list[list[int]]] = []
    if payload is not None:
        parsed = context.parse(text, date_format, sleep_data=records)
        rests = [
            [[epoch_ms(w.start), epoch_ms(w.end)] for w in rest_windows(d, context.parameters)]
            for d in parsed.schedules[0].duties
        ]
    return {
        "payload": payload,
        "errors": list(report.errors),
        "rests": rests,
        "rosterData": text,
        "sleepData": records,
        "dateFormat": date_format.value,
        "modelVersion": report.model_version,
        "settingsVersion": report.settings_version,
    }


def _timed(started: float, body: dict[str, Any]) -> JSONResponse:
    ms = (time.perf_counter() - started) * 1000
    body["serverMs"] = round(ms, 1)
    return JSONResponse(
        body, headers={"Cache-Control": "no-store", "Server-Timing": f"whatif;dur={ms:.1f}"}
    )


def _bad_draft(exc: DraftError) -> JSONResponse:
    return problem(400, str(exc), errors=[{"property": exc.prop, "message": str(exc)}])


def _scale(code: str) -> str | None:
    upper = code.upper()
    return upper if upper in SCALE_CODES else None


def _parse_rows(
    upload: RosterUpload, references: Sequence[str], context: ScoringContext
) -> ParsedRoster | None:
    """The stored roster's schedules ``references`` alone, parsed as the scorer reads them
    (with their SleepData and ActivityData); ``None`` when the roster has no row of them.

    Only their rows are handed to the parser (:func:`.whatif_draft.rows_of`): a page
    costs its schedule, not the roster's size. A schedule's duties depend on its own rows
    only, so they parse as in the whole roster.
    """
    header, lines = rows_of(upload.roster_text, references)
    if not lines:
        return None
    activity = ""
    if upload.activity_text.strip():
        head, rows = rows_of(upload.activity_text, references)
        activity = "\r\n".join([head, *rows] if head is not None else rows)
    return context.parse(
        "\r\n".join([header, *lines] if header is not None else lines),
        DateFormat(upload.date_format),
        sleep_data=_stored_sleep(upload, references),
        activity_text=activity,
    )


def _crew(
    console: Console, upload: RosterUpload, mine: Schedule, context: ScoringContext
) -> dict[int, list[str]]:
    """:func:`.whatif_draft.crew_of` for ``mine``'s augmented duties, reading only the rows
    of the schedules the stored scores index has on duty at exactly the same times (the
    candidates; airports are checked by :func:`crew_of` on their parsed rows)."""
    augmented = (CrewComposition.THREE_PILOTS, CrewComposition.FOUR_PILOTS)
    spans = {
        (int(d.on_duty.timestamp()), int(d.off_duty.timestamp()))
        for d in mine.duties
        if d.crew_composition in augmented
    }
    if not spans:
        return {}
    reader = results_store.scores_reader(console.db, upload.id)
    others = [r for r in schedules_with_duty(reader, spans) if r != mine.reference]
    parsed = _parse_rows(upload, [mine.reference, *others], context) if others else None
    return crew_of(parsed.schedules if parsed is not None else [mine], mine.reference)


def _crew_json(
    console: Console, upload: RosterUpload, mine: Schedule, context: ScoringContext
) -> dict[str, dict[str, Any]]:
    """The crew of each of ``mine``'s augmented duties (:func:`_crew`), by duty index, with
    the duty's crew size."""
    return {
        str(i): {
            "size": int(mine.duties[i].crew_composition),
            "crew": refs,
        }
        for i, refs in _crew(console, upload, mine, context).items()
    }


def _page_scale(asked: str, preferred: str, stored: Sequence[str]) -> str:
    """The scale the page shows: the one asked for if stored, else the roster's preferred."""
    code = _scale(asked) or preferred
    return code if code in stored else preferred


@router.get("/{token}/whatif")
def whatif_page(console: UserConsole, token: str, schedule: str = "", scale: str = "") -> Response:
    """The what-if page of one schedule: stored scores, and a draft to edit."""
    upload = _own(console, token)
    if upload is None:
        return console.not_found("roster")
    light = results_store.light_result(console.db, upload.id)
    if light is None:
        return console.not_found("result (the roster is not processed yet)")
    # this schedule's stored scores alone: the other schedules' bytes are not decoded
    one = one_schedule(results_store.scores_reader(console.db, upload.id), schedule, locate=False)
    if one is None:
        return console.not_found("schedule")
    stored = one.stored
    code = _page_scale(scale, upload.preferred_scale, stored.scales)
    result = next(iter(stored.schedule_results(code)))
    date_format = DateFormat(upload.date_format)
    context = context_of_upload(console.db, upload.id)
    parsed = _parse_rows(upload, [schedule], context)
    found = parsed.schedules if parsed is not None else ()
    mine: Schedule | None = next((s for s in found if s.reference == schedule), None)
    if mine is None:
        return console.not_found("schedule")
    entry = schedule_entry(result, code, risk=True, arrays=False)
    entry["sleep"] = [sleep_json(e) for e in sleep_for([mine], context.parameters)[0]]
    data = {
        "token": upload.token,
        "rosterName": upload.roster_name,
        "schedule": schedule,
        "scale": code,
        "dateFormat": date_format.value,
        "stored": chart_payload(entry, code),
        "draft": draft_json(draft_of(replace(mine, activities=()))),
        "crew": _crew_json(console, upload, mine, context),
        "activities": len(mine.activities),
        "storedModel": light.model_version,
        "settingsVersion": context.settings_version,
    }
    return console.render(
        "whatif.html",
        upload=upload,
        schedule=schedule,
        scale=code,
        scales=stored.scales,
        data=data,
        model_version=light.model_version,
    )


@router.post("/{token}/whatif/score")
def whatif_score(console: JsonConsole, token: str, body: DraftIn) -> Response:
    """Score a draft (same path as ProcessFatigueRisk); nothing is stored."""
    started = time.perf_counter()
    upload = _own(console, token)
    if upload is None or not _has_schedule(console, upload, body.schedule):
        return problem(404, "No such roster or schedule.")
    scale = _scale(body.scale)
    if scale is None:
        return problem(
            400,
            f"scale must be one of {', '.join(SCALE_CODES)}",
            errors=[{"property": "scale", "message": "unknown scale"}],
        )
    try:
        draft = to_draft(body)
    except DraftError as exc:
        return _bad_draft(exc)
    context = context_of_upload(console.db, upload.id)
    return _timed(started, score_draft(draft, DateFormat(upload.date_format), scale, context))


def _crew_drafts(
    upload: RosterUpload, others: Sequence[str], context: ScoringContext
) -> tuple[list[Draft], list[str]]:
    """The other pilots' drafts from the stored roster, and the References not found."""
    date_format = DateFormat(upload.date_format)
    header, lines = rows_of(upload.roster_text, others)
    text = "\r\n".join([header, *lines] if header is not None else lines)
    parsed = None
    if lines:
        parsed = context.parse(text, date_format, sleep_data=_stored_sleep(upload, others))
    found = {s.reference: s for s in parsed.schedules} if parsed is not None else {}
    missing = [r for r in others if r not in found]
    return [draft_of(found[r]) for r in others if r in found], missing


def _current_rest(
    crew_text: str,
    records: Sequence[Mapping[str, object]],
    date_format: DateFormat,
    at: datetime,
    context: ScoringContext,
) -> list[dict[str, Any]]:
    """Each crew member's rest windows in the planned duty as the scorer places them now."""
    params = context.parameters
    parsed = context.parse(crew_text, date_format, sleep_data=records)
    out = []
    for schedule in parsed.schedules:
        duty = next((d for d in schedule.duties if d.on_duty <= at < d.off_duty), None)
        windows = rest_windows(duty, params) if duty is not None else ()
        out.append(
            {
                "reference": schedule.reference,
                "windows": [[epoch_ms(w.start), epoch_ms(w.end)] for w in windows],
            }
        )
    return out


def _plan_problem(body: PlanIn, draft: Draft) -> JSONResponse | None:
    """A 400 problem when the request does not fit the draft: no such duty, References
    without the draft's schedule, or a placeholder that is not one of the other References."""
    ref = body.draft.schedule
    if body.duty >= len(draft.duties):
        return problem(
            400,
            "duty is not an index of the draft's duties",
            errors=[{"property": "duty", "message": "no such duty"}],
        )
    if ref not in body.references:
        return problem(
            400,
            f"References must include the draft's schedule {ref!r}",
            errors=[{"property": "References", "message": "the draft's schedule is missing"}],
        )
    if not set(body.placeholders) <= set(body.references) - {ref}:
        return problem(
            400,
            "placeholders must be other References of the crew",
            errors=[{"property": "placeholders", "message": "not one of the other References"}],
        )
    return None


def _in_order(crew: list[Draft], references: Sequence[str]) -> list[Draft]:
    """The crew's drafts in the order of ``references``."""
    order = {r: i for i, r in enumerate(references)}
    return sorted(crew, key=lambda d: order.get(d.schedule, 0))


def _plan_request(
    body: PlanIn,
    text: str,
    on: datetime,
    date_format: DateFormat,
    records: Sequence[Mapping[str, object]],
    context: ScoringContext,
) -> PlanRequest:
    """The planner's request for the crew's roster ``text``: the duty reporting at ``on``."""
    return PlanRequest(
        roster_text=text,
        duty=on,
        references=tuple(body.references),
        landing=tuple(body.landing),
        date_format=date_format,
        sleep_data=records,
        context=context,
        placeholders=tuple(set(body.placeholders)),
    )


def _with_break(draft: Draft, index: int, brk: PilotBreak) -> Draft:
    """The draft with duty ``index``'s rest set to the planned break."""
    planned = replace(draft.duties[index], rests=(Period(brk.start, brk.end),))
    return replace(draft, duties=(*draft.duties[:index], planned, *draft.duties[index + 1 :]))


def _break_text(ref: str, brk: PilotBreak) -> str:
    """The draft's pilot's break in words, with its last-hour KSS."""
    hours = (brk.end - brk.start).total_seconds() / 3600
    return (
        f"{ref} takes break {brk.number}, {brk.start:%H:%M}\u2013{brk.end:%H:%M}Z "
        f"({hours:.2f} h); last-hour KSS {brk.last_hour_kss:.1f}"
    )


@router.post("/{token}/whatif/plan")
def whatif_plan(console: JsonConsole, token: str, body: PlanIn) -> Response:
    """Plan the rest of one augmented duty of the draft (same code as the planner API)."""
    started = time.perf_counter()
    upload = _own(console, token)
    ref = body.draft.schedule
    if upload is None or not _has_schedule(console, upload, ref):
        return problem(404, "No such roster or schedule.")
    try:
        draft = to_draft(body.draft)
    except DraftError as exc:
        return _bad_draft(exc)
    bad = _plan_problem(body, draft)
    if bad is not None:
        return bad
    stand_ins = set(body.placeholders)
    others = [r for r in dict.fromkeys(body.references) if r != ref and r not in stand_ins]
    context = context_of_upload(console.db, upload.id)
    mates, missing = _crew_drafts(upload, others, context)
    if missing:
        return problem(404, f"No such schedule in this roster: {missing[0]}.")
    date_format = DateFormat(upload.date_format)
    crew = _in_order([draft, *mates], body.references)
    text = roster_text(crew, date_format)
    records = sleep_data(crew)
    duty = draft.duties[body.duty]
    try:
        plan = plan_rest(_plan_request(body, text, duty.on, date_format, records, context))
    except PlanError as exc:
        return problem(400, str(exc), errors=[{"property": exc.prop, "message": str(exc)}])
    brk = next(b for b in plan.proposal.breaks if b.reference == ref)
    scale = _scale(body.draft.scale) or "KSS"
    preview = score_draft(_with_break(draft, body.duty, brk), date_format, scale, context)
    return _timed(
        started,
        {
            "plan": plan.to_dict(),
            "summary": plan.summary,
            "mine": _break_text(ref, brk),
            "rests": [[epoch_ms(brk.start), epoch_ms(brk.end)]],
            "duty": body.duty,
            "now": _current_rest(text, records, date_format, duty.on, context),
            "preview": preview,
        },
    )
