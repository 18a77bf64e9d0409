"""The hazard log in the console: review a duty, trip or pattern, read and export the log.

A reviewer records a decision (accept, mitigate, change), the reason and the mitigation
from the dashboard's top duties, a duty's chart page or the log page itself (trips and
patterns, named freely). The log is the operator's audit record
(:mod:`vigil.store.hazards`): entries are only added, a changed decision supersedes the
one in force, and the page shows both. Duties are matched by their stable identity
(Reference, report instant UTC, start and end airport), so a decision shows again on any
roster, newer or re-uploaded, where the same duty recurs.

Every form is a CSRF-checked POST like the console's others; the export is CSV with every
text cell made formula-safe (:func:`vigil.fleet.records.spreadsheet_safe`).
"""

from __future__ import annotations

import csv
import io
import math
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse, Response

from vigil.contract import JobStatus
from vigil.fleet import stored as fleet_stored
from vigil.fleet.records import spreadsheet_safe, utc_text
from vigil.settings.bands import risk_band
from vigil.store import hazards, uploads
from vigil.store import results as results_store
from vigil.store.hazards import DutyIdentity, HazardError, StaleDecisionError, entry_row
from vigil.web.console._web import PREFIX, Console, PostConsole, UserConsole, safe_next
from vigil.web.console.reviews import (
    top_duty_reviews,
)

__all__ = ["CSV_HEADER", "router"]

router = APIRouter(prefix="/hazards")

#: review states the log's duty list filters by
REVIEW_STATES = ("open", "reviewed")
_SCORED = (JobStatus.COMPLETED_SUCCESSFULLY, JobStatus.COMPLETED_WITH_ERRORS)
CSV_HEADER = (
    "Entry",
    "Recorded (UTC)",
    "Recorded by",
    "Kind",
    "Subject",
    "Reference",
    "Report (UTC)",
    "Start",
    "End",
    "Roster",
    "Risk",
    "Decision",
    "Reason",
    "Mitigation",
    "Supersedes",
    "Superseded by",
    "State",
)


def to_review(console: Console, token: str, review: str) -> dict[str, Any] | None:
    """A scored roster's top duties with their review state, filtered ``open`` or
    ``reviewed`` (blank: both): the roster ``token``, or the newest scored one."""
    scored = [
        u
        for u in uploads.list_uploads(session=console.db, operator=console.operator)
        if u.status in _SCORED
    ]
    upload = next((u for u in scored if u.token == token), scored[0] if scored else None)
    if upload is None:
        return None
    light = results_store.light_result(console.db, upload.id)
    if light is None:
        return None
    summary = fleet_stored.ensure_light(console.db, upload, light)
    bands = summary.thresholds.bands
    top = summary.summary["topDuties"]
    reviews = top_duty_reviews(console, top, bands)
    rows = []
    for duty, rv in zip(top, reviews["rows"], strict=True):
        if review in REVIEW_STATES and rv.state != review:
            continue
        band = risk_band(duty["risk"], bands)
        rows.append(
            {
                "duty": duty,
                "review": rv,
                "band": "" if band is None else band.css,
                "bandText": "" if band is None else band.words,
            }
        )
    return {
        "upload": upload,
        "rosters": scored,
        "rows": rows,
        "listed": len(top),
        "counts": reviews,
        "review": review if review in REVIEW_STATES else "",
    }


def _filters(decision: str, state: str, kind: str) -> tuple[str, str, str]:
    """Unknown filter values are dropped (the page shows every entry for them)."""
    return (
        decision if decision in hazards.DECISIONS else "",
        state if state in hazards.STATES else "",
        kind if kind in hazards.KINDS else "",
    )


def _page(
    console: Console,
    *,
    decision: str = "",
    state: str = "",
    kind: str = "",
    roster: str = "",
    review: str = "",
    error: str | None = None,
    notice: str | None = None,
    status_code: int = 200,
) -> Response:
    decision, state, kind = _filters(decision, state, kind)
    entries, replaced = hazards.list_entries(
        session=console.db, operator=console.operator, decision=decision, state=state, kind=kind
    )
    return console.render(
        "hazards.html",
        status_code=status_code,
        rows=[
            entry_row(e, replaced)
            | {"reportS": None if e.report_at is None else int(e.report_at.timestamp())}
            for e in entries
        ],
        decision=decision,
        state=state,
        kind=kind,
        decisions=hazards.DECISIONS,
        kinds=hazards.KINDS,
        pending=to_review(console, roster, review),
        review_states=REVIEW_STATES,
        utc=utc_text,
        error=error,
        notice=notice,
    )


@router.get("")
def hazard_log(
    console: UserConsole,
    decision: str = "",
    state: str = "",
    kind: str = "",
    roster: str = "",
    review: str = "",
    recorded: int | None = None,
) -> Response:
    """The operator's hazard log, newest first, filtered by decision, state and kind;
    and a scored roster's top duties, filtered open or reviewed."""
    notice = f"Decision recorded as entry #{recorded}." if recorded is not None else None
    return _page(
        console,
        decision=decision,
        state=state,
        kind=kind,
        roster=roster,
        review=review,
        notice=notice,
    )


def hazard_csv(rows: list[dict[str, Any]]) -> str:
    """The log as CSV text; text cells formula-safe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for r in rows:
        state = "in force" if r["inForce"] else "superseded"
        cells: list[object] = [
            r["entryId"],
            r["recordedAt"],
            r["recordedBy"],
            r["subjectKind"],
            r["subject"],
            r["reference"],
            r["reportAt"],
            r["startAirport"],
            r["endAirport"],
            r["rosterName"],
            "" if r["risk"] is None else round(r["risk"], 3),
            r["decision"],
            r["reason"],
            r["mitigation"],
            r["supersedes"] or "",
            r["supersededBy"] or "",
            state,
        ]
        writer.writerow([spreadsheet_safe(c) if isinstance(c, str) else c for c in cells])
    return buffer.getvalue()


@router.get("/export.csv")
def hazard_export(
    console: UserConsole, decision: str = "", state: str = "", kind: str = ""
) -> Response:
    """The log as filtered on the page, as CSV."""
    decision, state, kind = _filters(decision, state, kind)
    entries, replaced = hazards.list_entries(
        session=console.db, operator=console.operator, decision=decision, state=state, kind=kind
    )
    body = hazard_csv([entry_row(e, replaced) for e in entries])
    stamp_now = datetime.now(UTC).strftime("%Y%m%d")
    response = Response(
        body.encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="vigil-hazard-log-{stamp_now}.csv"',
            "Cache-Control": "no-store",
        },
    )
    return console.finish(response)


def _whole(text: str) -> int | None:
    try:
        return int(text) if text.strip() else None
    except ValueError:
        return None


def _instant(text: str) -> datetime | None:
    """Seconds since the epoch as aware UTC; ``None`` if not a representable instant."""
    seconds = _whole(text)
    try:
        return None if seconds is None else datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _risk(text: str) -> float | None:
    try:
        value = float(text) if text.strip() else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def _roster_name(console: Console, token: str) -> str | None:
    """The name of the operator's roster ``token`` (``""`` without one; ``None``: no such
    roster)."""
    if not token:
        return ""
    upload = uploads.get_upload(session=console.db, operator=console.operator, token=token)
    return upload.roster_name if upload is not None else None


_DUTY_NEEDS = "A duty decision needs its Reference and report time."


def _duty_identity(reference: str, report: str, start: str, end: str) -> DutyIdentity | None:
    """The duty a decision is about; ``None`` without its Reference or a valid report time."""
    at = _instant(report)
    if not reference or at is None:
        return None
    return DutyIdentity(reference, at, start, end)


def _refusal(console: Console, exc: HazardError) -> Response:
    """The log page with why nothing was recorded (the session rolled back): 409 when the
    decision changed meanwhile, else 400."""
    console.db.rollback()
    status = 409 if isinstance(exc, StaleDecisionError) else 400
    return _page(console, error=f"Nothing recorded: {exc}.", status_code=status)


@router.post("")
def record(
    console: PostConsole,
    kind: Annotated[str, Form(max_length=16)] = "duty",
    label: Annotated[str, Form(max_length=400)] = "",
    reference: Annotated[str, Form(max_length=200)] = "",
    report: Annotated[str, Form(max_length=20)] = "",
    start: Annotated[str, Form(max_length=16)] = "",
    end: Annotated[str, Form(max_length=16)] = "",
    roster: Annotated[str, Form(max_length=100)] = "",
    risk: Annotated[str, Form(max_length=30)] = "",
    decision: Annotated[str, Form(max_length=16)] = "",
    reason: Annotated[str, Form(max_length=hazards.MAX_TEXT)] = "",
    mitigation: Annotated[str, Form(max_length=hazards.MAX_TEXT)] = "",
    seen: Annotated[str, Form(max_length=20)] = "",
    back: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    """Record a decision, superseding the one in force that the reviewer saw (``seen``).

    A refused decision (no reason, unknown decision, a mitigation missing, or a decision
    changed meanwhile by someone else) is the log page with the reason and nothing stored.
    """
    assert console.user is not None
    roster_name = _roster_name(console, roster)
    if roster_name is None:
        return console.not_found("roster")
    duty = None
    if kind == "duty":
        duty = _duty_identity(reference, report, start, end)
        if duty is None:
            return _page(console, error=_DUTY_NEEDS, status_code=400)
    try:
        entry = hazards.record_decision(
            session=console.db,
            operator=console.operator,
            kind=kind,
            label=label,
            decision=decision,
            reason=reason,
            mitigation=mitigation,
            recorded_by=console.user.username,
            duty=duty,
            roster_name=roster_name,
            risk=_risk(risk),
            seen=_whole(seen),
        )
    except HazardError as exc:
        return _refusal(console, exc)
    console.db.commit()
    target = safe_next(back) if back else f"{PREFIX}/hazards?recorded={entry.id}"
    return console.finish(RedirectResponse(target, status_code=303))
