"""The FRMS hazard log: reviewers' decisions on hazardous duties, trips and patterns.

An operator's fatigue risk management system keeps a record of each identified hazard,
who assessed it, the decision taken and why (ICAO Doc 9966, *Manual for the Oversight of
Fatigue Management Approaches*, 2nd ed. 2016: FRMS safety risk management, hazard
identification, risk assessment and mitigation; EASA ORO.FTL.120, the operator's FRMS).
A decision is one of three outcomes: *accept* the risk as it is, *mitigate* it with
controls (the mitigation says which), or *change* the roster.

Keyword-only functions taking a ``Session`` (STYLE §3.12); the caller owns the
transaction. The log is append-only: there is no edit or delete here, and the database
refuses both (migration ``0007_hazard_log``). A changed decision is a new entry that
supersedes the subject's current one, and it must name the entry the reviewer saw, so
two reviewers deciding at once cannot silently replace each other's decision. Every read
is scoped by operator: another operator's entries are never returned.

A duty's subject key is its stable identity (:func:`duty_key`): Reference, report instant
UTC, start and end airport. It is not a roster token or row ID, so a decision is kept
when its roster is overwritten or deleted and shows again wherever the same duty recurs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from vigil.store.tables import HazardEntry, utcnow

__all__ = [
    "DECISIONS",
    "KINDS",
    "STATES",
    "DutyIdentity",
    "HazardError",
    "StaleDecisionError",
    "current_decisions",
    "duty_key",
    "entry_row",
    "history",
    "list_entries",
    "record_decision",
    "subject_key",
    "superseded_ids",
]

#: the decisions a reviewer may record: accept the risk, mitigate it, change the roster
DECISIONS = ("accept", "mitigate", "change")
#: what a decision is about
KINDS = ("duty", "trip", "pattern")
#: entry states: the subject's decision in force, or replaced by a newer entry
STATES = ("current", "superseded")
#: longest reason or mitigation kept [characters]
MAX_TEXT = 4000


class HazardError(ValueError):
    """A decision that cannot be recorded as given; the message says why."""


class StaleDecisionError(HazardError):
    """The subject's decision changed since the reviewer saw it."""


@dataclass(frozen=True, slots=True)
class DutyIdentity:
    """A duty as it recurs across rosters: schedule, report instant and airports."""

    reference: str
    report_at: datetime
    start: str
    end: str

    @property
    def key(self) -> str:
        return duty_key(self.reference, self.report_at, self.start, self.end)


def _utc_text(instant: datetime) -> str:
    if instant.utcoffset() is None:
        raise HazardError("a duty's report instant must be aware UTC")
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def duty_key(reference: str, report_at: datetime, start: str, end: str) -> str:
    """A duty's subject key: ``Reference|report UTC|START|END``.

    Two uploads of the same roster (or a newer month repeating a pairing on the same
    date) give the same key for the same duty; a moved report time or a changed airport
    is a different duty, reviewed afresh.
    """
    return f"{reference}|{_utc_text(report_at)}|{start.strip().upper()}|{end.strip().upper()}"


def subject_key(kind: str, subject: str) -> str:
    """The key of a named trip or pattern: the name with spaces collapsed, case folded."""
    if kind not in KINDS:
        raise HazardError(f"unknown subject kind {kind!r}; one of {', '.join(KINDS)}")
    return " ".join(subject.split()).casefold()


def _current_id(session: Session, operator: str, kind: str, key: str) -> int | None:
    found = session.scalar(
        select(func.max(HazardEntry.id)).where(
            HazardEntry.operator == operator,
            HazardEntry.subject_kind == kind,
            HazardEntry.subject_key == key,
        )
    )
    return None if found is None else int(found)


def record_decision(
    *,
    session: Session,
    operator: str,
    kind: str,
    label: str,
    decision: str,
    reason: str,
    recorded_by: str,
    mitigation: str = "",
    duty: DutyIdentity | None = None,
    roster_name: str = "",
    risk: float | None = None,
    seen: int | None = None,
    now: datetime | None = None,
) -> HazardEntry:
    """Add a decision to the operator's log and return it.

    Parameters
    ----------
    kind : str
        ``duty`` (then ``duty`` gives its identity), ``trip`` or ``pattern`` (named by
        ``label``).
    decision : str
        One of :data:`DECISIONS`; ``mitigate`` needs a ``mitigation``.
    reason : str
        Why (required).
    seen : int, optional
        The entry in force the reviewer saw (``None``: none). If the subject's current
        entry is another one, :class:`StaleDecisionError`: nothing is replaced unseen.
    """
    reason, mitigation = _checked_texts(decision, reason, mitigation)
    key, label = _subject(kind, " ".join(label.split()), duty)
    entry = HazardEntry(
        operator=operator,
        subject_kind=kind,
        subject_key=key,
        subject_label=label,
        **_duty_columns(duty),
        roster_name=roster_name[:200],
        risk=risk,
        decision=decision,
        reason=reason,
        mitigation=mitigation,
        recorded_by=recorded_by[:200],
        recorded_at=now or utcnow(),
        supersedes_id=_entry_seen(session, operator, kind, key, seen),
    )
    _add(session, entry)
    return entry


def _entry_seen(
    session: Session, operator: str, kind: str, key: str, seen: int | None
) -> int | None:
    """The subject's entry in force, which must be the one the reviewer saw
    (:class:`StaleDecisionError` otherwise: nothing is replaced unseen)."""
    current = _current_id(session, operator, kind, key)
    if current != seen:
        raise StaleDecisionError(
            "this subject's decision changed since the page was loaded "
            f"(entry #{current} is in force now); reload and review again"
            if current is not None
            else "the entry this decision would replace is not in force"
        )
    return current


def _duty_columns(duty: DutyIdentity | None) -> dict[str, Any]:
    """The duty's own columns of an entry (blank for a trip or a pattern)."""
    if duty is None:
        return {"reference": "", "report_at": None, "start_airport": "", "end_airport": ""}
    return {
        "reference": duty.reference[:200],
        "report_at": duty.report_at,
        "start_airport": duty.start.strip().upper()[:16],
        "end_airport": duty.end.strip().upper()[:16],
    }


def _add(session: Session, entry: HazardEntry) -> None:
    """Insert the entry now; :class:`StaleDecisionError` when another reviewer's decision
    on the same subject landed first (one first entry and one successor per entry)."""
    session.add(entry)
    try:
        session.flush()
    except IntegrityError as exc:
        raise StaleDecisionError(
            "another decision on this subject was recorded at the same moment; "
            "reload and review again (roll back this transaction)"
        ) from exc


def _checked_texts(decision: str, reason: str, mitigation: str) -> tuple[str, str]:
    """The reason and mitigation, stripped; a :class:`HazardError` naming what is wrong
    with the decision or its texts."""
    reason, mitigation = reason.strip(), mitigation.strip()
    if decision not in DECISIONS:
        raise HazardError(f"unknown decision {decision!r}; one of {', '.join(DECISIONS)}")
    if not reason:
        raise HazardError("a decision needs a reason")
    if decision == "mitigate" and not mitigation:
        raise HazardError("a 'mitigate' decision needs the mitigation")
    if len(reason) > MAX_TEXT or len(mitigation) > MAX_TEXT:
        raise HazardError(f"reason and mitigation are at most {MAX_TEXT} characters")
    return reason, mitigation


def _subject(kind: str, label: str, duty: DutyIdentity | None) -> tuple[str, str]:
    """The subject's key and label (a duty's label defaults to its Reference and route);
    a :class:`HazardError` when the subject is unnamed or too long."""
    if kind == "duty":
        if duty is None or not duty.reference:
            raise HazardError("a duty decision needs the duty's Reference and report time")
        key = duty.key
        label = label or f"{duty.reference} {duty.start}–{duty.end}"
    else:
        key = subject_key(kind, label)
        if not key:
            raise HazardError(f"name the {kind} the decision is about")
    if len(key) > 400 or len(label) > 400:
        raise HazardError("the subject is longer than 400 characters")
    return key, label


def current_decisions(
    *, session: Session, operator: str, kind: str, keys: Iterable[str]
) -> dict[str, HazardEntry]:
    """The decision in force per subject key (keys with none are absent)."""
    wanted = sorted(set(keys))
    out: dict[str, HazardEntry] = {}
    for at in range(0, len(wanted), 500):  # bound the IN list
        chunk = wanted[at : at + 500]
        newest = (
            select(func.max(HazardEntry.id))
            .where(
                HazardEntry.operator == operator,
                HazardEntry.subject_kind == kind,
                HazardEntry.subject_key.in_(chunk),
            )
            .group_by(HazardEntry.subject_key)
        )
        for entry in session.scalars(select(HazardEntry).where(HazardEntry.id.in_(newest))):
            out[entry.subject_key] = entry
    return out


def history(*, session: Session, operator: str, kind: str, key: str) -> Sequence[HazardEntry]:
    """Every entry of one subject, newest (the one in force) first."""
    return session.scalars(
        select(HazardEntry)
        .where(
            HazardEntry.operator == operator,
            HazardEntry.subject_kind == kind,
            HazardEntry.subject_key == key,
        )
        .order_by(HazardEntry.id.desc())
    ).all()


def superseded_ids(*, session: Session, operator: str) -> dict[int, int]:
    """``{entry: the entry that superseded it}`` for the operator's replaced entries."""
    rows = session.execute(
        select(HazardEntry.supersedes_id, HazardEntry.id).where(
            HazardEntry.operator == operator, HazardEntry.supersedes_id.is_not(None)
        )
    ).all()
    return {int(old): int(new) for old, new in rows if old is not None}


def list_entries(
    *,
    session: Session,
    operator: str,
    decision: str = "",
    state: str = "",
    kind: str = "",
) -> tuple[list[HazardEntry], dict[int, int]]:
    """The operator's entries, newest first, filtered by decision, state and kind (blank:
    any), with :func:`superseded_ids` (which entry replaced which)."""
    for value, allowed, name in ((decision, DECISIONS, "decision"), (state, STATES, "state")):
        if value and value not in allowed:
            raise HazardError(f"unknown {name} {value!r}; one of {', '.join(allowed)}")
    if kind and kind not in KINDS:
        raise HazardError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    query = select(HazardEntry).where(HazardEntry.operator == operator)
    if decision:
        query = query.where(HazardEntry.decision == decision)
    if kind:
        query = query.where(HazardEntry.subject_kind == kind)
    entries = list(session.scalars(query.order_by(HazardEntry.id.desc())).all())
    replaced = superseded_ids(session=session, operator=operator)
    if state == "current":
        entries = [e for e in entries if e.id not in replaced]
    elif state == "superseded":
        entries = [e for e in entries if e.id in replaced]
    return entries, replaced


def _stamp(instant: datetime | None) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` (the API's instant form), or ``""``."""
    return "" if instant is None else instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_row(entry: HazardEntry, replaced: dict[int, int]) -> dict[str, Any]:
    """An entry as the page, the CSV and the API show it."""
    return {
        "entryId": entry.id,
        "recordedAt": _stamp(entry.recorded_at),
        "recordedBy": entry.recorded_by,
        "subjectKind": entry.subject_kind,
        "subject": entry.subject_label,
        "reference": entry.reference,
        "reportAt": _stamp(entry.report_at),
        "startAirport": entry.start_airport,
        "endAirport": entry.end_airport,
        "rosterName": entry.roster_name,
        "risk": entry.risk,
        "decision": entry.decision,
        "reason": entry.reason,
        "mitigation": entry.mitigation,
        "supersedes": entry.supersedes_id,
        "supersededBy": replaced.get(entry.id),
        "inForce": entry.id not in replaced,
    }
