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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse, Response

from vigil.fleet import stored as fleet_stored
from vigil.fleet.bands import RiskBand, risk_band
from vigil.fleet.records import spreadsheet_safe, utc_text
from vigil.fleet.table import DutyTable
from vigil.store import hazards, uploads
from vigil.store.hazards import DutyIdentity, HazardError, StaleDecisionError, entry_row
from vigil.store.status import JobStatus
from vigil.store.tables import HazardEntry
from vigil.web.console._web import PREFIX, Console, PostConsole, UserConsole, safe_next

__all__ = [
    "CSV_HEADER",
    "Review",
    "SubjectReview",
    "chart_reviews",
    "pattern_reviews",
    "router",
    "top_duty_reviews",
]

router = APIRouter(prefix="/hazards")

#: bands whose duties the dashboard counts as reviewed or open
HIGH_BANDS = ("high", "very-high")
#: the review states a roster's listed duties are filtered by
REVIEW_STATES = ("open", "reviewed")
#: statuses of a roster with stored results
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


@dataclass(frozen=True, slots=True)
class Review:
    """One duty's review control: its identity and the decision in force, if any."""

    duty: DutyIdentity
    label: str
    risk: float | None
    entry: HazardEntry | None

    @property
    def report_s(self) -> int:
        return int(self.duty.report_at.timestamp())

    @property
    def state(self) -> str:
        return "open" if self.entry is None else "reviewed"


@dataclass(frozen=True, slots=True)
class SubjectReview:
    """A named trip or pattern's review control and its decision in force, if any."""

    kind: str
    label: str
    entry: HazardEntry | None

    @property
    def state(self) -> str:
        return "open" if self.entry is None else "reviewed"


#: the dashboard's patterns as hazard-log subjects, per schedule (``{n}``: the run length,
#: ``{h}``: the short-rest bound)
PATTERN_SUBJECTS = {
    "earlyRuns": "{ref}: runs of {n}+ consecutive early starts",
    "nightRuns": "{ref}: runs of {n}+ consecutive nights",
    "shortRests": "{ref}: rests under {h:g} h",
}


def pattern_reviews(console: Console, patterns: dict[str, Any]) -> dict[str, list[SubjectReview]]:
    """The dashboard's pattern rows as pattern subjects (one per schedule and pattern,
    named by its Reference, so the decision shows again where the schedule recurs), each
    with its decision in force; in the rows' order."""
    labels = {
        key: [
            words.format(ref=x["reference"], n=patterns["minRun"], h=patterns["shortRestHours"])
            for x in patterns[key]["top"]
        ]
        for key, words in PATTERN_SUBJECTS.items()
    }
    keyed = {label: hazards.subject_key("pattern", label) for ls in labels.values() for label in ls}
    found = hazards.current_decisions(
        session=console.db, operator=console.operator, kind="pattern", keys=keyed.values()
    )
    return {
        key: [SubjectReview("pattern", label, found.get(keyed[label])) for label in ls]
        for key, ls in labels.items()
    }


def _identity(reference: str, on_s: int, route: str) -> DutyIdentity:
    start, _, end = route.partition("–")
    return DutyIdentity(reference, datetime.fromtimestamp(on_s, UTC), start, end)


def _with_entries(console: Console, items: list[tuple[DutyIdentity, str, Any]]) -> list[Review]:
    found = hazards.current_decisions(
        session=console.db,
        operator=console.operator,
        kind="duty",
        keys=[duty.key for duty, _, _ in items],
    )
    return [
        Review(duty, label, None if risk is None else float(risk), found.get(duty.key))
        for duty, label, risk in items
    ]


def top_duty_reviews(
    console: Console, top: list[dict[str, Any]], bands: tuple[RiskBand, ...]
) -> dict[str, Any]:
    """The dashboard's top duties' reviews (in list order) and how many of those in the
    high and very high bands are reviewed and open."""
    items = [
        (
            _identity(d["reference"], int(d["onUtc"]), d["route"]),
            f"{d['reference']} #{d['duty']} {d['route']}".strip(),
            d["risk"],
        )
        for d in top
    ]
    reviews = _with_entries(console, items)
    high = [
        r
        for r, d in zip(reviews, top, strict=True)
        if (band := risk_band(d["risk"], bands)) is not None and band.css in HIGH_BANDS
    ]
    reviewed = sum(1 for r in high if r.entry is not None)
    return {
        "rows": reviews,
        "high": len(high),
        "reviewed": reviewed,
        "open": len(high) - reviewed,
    }


def chart_reviews(console: Console, table: DutyTable, reference: str) -> list[Review]:
    """A chart page's duties' reviews, in duty order (airports keyed by IATA code, as the
    dashboard's, whatever codes the user shows)."""
    items = []
    for i in range(len(table)):
        s, e = int(table.start[i]), int(table.end[i])
        route = f"{table.airports.label(s)}–{table.airports.label(e)}" if s >= 0 and e >= 0 else ""
        items.append(
            (
                _identity(reference, int(table.on_s[i]), route),
                f"{reference} #{int(table.number[i])} {route}".strip(),
                float(table.risk[i]) if math.isfinite(table.risk[i]) else None,
            )
        )
    return _with_entries(console, items)


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
    light = fleet_stored.light_result(console.db, upload.id)
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
    roster_name = ""
    if roster:
        upload = uploads.get_upload(session=console.db, operator=console.operator, token=roster)
        if upload is None:
            return console.not_found("roster")
        roster_name = upload.roster_name
    duty = None
    if kind == "duty":
        at = _instant(report)
        if not reference or at is None:
            return _page(
                console, error="A duty decision needs its Reference and report time.",
                status_code=400,
            )  # fmt: skip
        duty = DutyIdentity(reference, at, start, end)
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
    except StaleDecisionError as exc:
        console.db.rollback()
        return _page(console, error=f"Nothing recorded: {exc}.", status_code=409)
    except HazardError as exc:
        console.db.rollback()
        return _page(console, error=f"Nothing recorded: {exc}.", status_code=400)
    console.db.commit()
    target = safe_next(back) if back else f"{PREFIX}/hazards?recorded={entry.id}"
    return console.finish(RedirectResponse(target, status_code=303))
