"""The roster summary as stored in ``roster_result.summary_json``, and its packed duty
tables in ``roster_table``.

Computed once, when a roster finishes (:class:`SummaryBuild`, run by the worker where its
chunk tasks ran, the bytes then stored with the scores: :class:`Summaries`; or
:func:`record_summary` in the calling thread), from the stored scores blob (the roster's
scale, and KSS for the tables) and the route facts the chunk tasks read from the roster
(no second parse); a roster without them (older rosters, :func:`ensure`) has its text
parsed once. Both builders are pure functions of the decoded scores and the facts
(:func:`build`, :func:`build_tables`), so they can run in any process. The summary holds
three parts:

- ``summary``: the dashboard's figures on the roster's scale
  (:func:`~vigil.fleet.summary.summarise`);
- ``schedules``: the schedules table, columnar (sorted and filtered per request);
- ``facts``: route, sectors, Fleet, Rank and local offsets of every duty
  (:class:`~vigil.fleet.table.RosterFacts`), so exports and charts never parse again.

A roster finished before this existed gets its summary on first view (:func:`ensure`);
one without packed tables is read from its scores by the console's pages
(:mod:`vigil.fleet.packed` holds the tables' format).
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy.orm import Session

from vigil.domain import DateFormat
from vigil.fleet import packed
from vigil.fleet.summary import schedule_rows, summarise
from vigil.fleet.table import (
    DutyTable,
    RosterFacts,
    RouteFacts,
    duty_table,
    route_facts_of_columns,
    with_offsets,
)
from vigil.fleet.thresholds import DEFAULT_THRESHOLDS, Thresholds
from vigil.results.compact import StoredScores, unpack
from vigil.roster import parse_request
from vigil.store import results as results_store
from vigil.store.operator_settings import roster_settings_version, settings_at
from vigil.store.tables import RosterResult

__all__ = [
    "SUMMARY_VERSION",
    "TABLE_SCALES",
    "TRIP_STYLES",
    "StoredSummary",
    "WORKER_SUMMARIES",
    "Summaries",
    "SummaryBuild",
    "build",
    "build_tables",
    "duty_tables",
    "ensure",
    "ensure_light",
    "facts_of_text",
    "load",
    "record_summary",
    "summary_and_tables",
]

logger = logging.getLogger(__name__)

#: bump when the stored shape changes: older summaries are rebuilt on first view
SUMMARY_VERSION = 3
#: scales packed beside the roster's own (:func:`build_tables`): trips, hot spots and
#: months compared read top of descent in KSS (:mod:`vigil.web.console.roster_views`)
TABLE_SCALES = ("KSS",)
#: airport styles whose trips are packed (the console's default; ICAO users' are built
#: on first view)
TRIP_STYLES = ("iata",)


@dataclass(frozen=True, slots=True)
class StoredSummary:
    """A decoded ``summary_json``."""

    model_version: str
    summary: dict[str, Any]
    schedules: dict[str, list[Any]]
    facts: RosterFacts
    thresholds: Thresholds = DEFAULT_THRESHOLDS  #: levels and bands it is shown with

    @property
    def preset(self) -> str:
        """The parameter preset named in the model version (``1.1.1+ingre2014_5c``)."""
        return self.model_version.partition("+")[2]

    def table(self, stored: StoredScores, scale: str) -> DutyTable:
        """Every duty on ``scale`` (any of the six), from the scores blob and the facts."""
        t = self.thresholds
        return duty_table(stored, self.facts, scale, level=t.level(scale), bands=t.bands)


def build(
    stored: StoredScores,
    *,
    roster_text: str = "",
    date_format: str = "dmy",
    sleep_json: str = "",
    activity_text: str = "",
    scale: str,
    model_version: str,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    facts: RosterFacts | None = None,
    table: DutyTable | None = None,
) -> bytes:
    """``summary_json`` for a finished roster (UTF-8 JSON), with the warning levels and
    risk bands of the settings version it was scored with (``thresholds``).

    ``facts`` are the roster's facts when known (the worker's, from its chunk tasks:
    :func:`record_summary`); otherwise the roster text is parsed for them. ``table`` is
    its duty table on ``scale`` when already built (:func:`duty_tables`).
    """
    if facts is None:
        facts = facts_of_text(stored, roster_text, date_format, sleep_json, activity_text)
    if table is None:
        (table,) = duty_tables(stored, facts, (scale,), thresholds)
    rows = schedule_rows(table)
    return orjson.dumps(
        {
            "version": SUMMARY_VERSION,
            "modelVersion": model_version,
            "summary": summarise(table, rows),
            "schedules": rows,
            "facts": facts.to_json(),
            "thresholds": thresholds.to_json(),
        }
    )


def facts_of_text(
    stored: StoredScores,
    roster_text: str,
    date_format: str = "dmy",
    sleep_json: str = "",
    activity_text: str = "",
) -> RosterFacts:
    """The facts of ``stored``'s duties from the roster's texts (parsed once)."""
    parsed = parse_request(
        roster_text,
        DateFormat(date_format),
        sleep_data=json.loads(sleep_json or "[]"),
        activity_text=activity_text,
    )
    entries = ((entry.reference, len(entry.duties)) for entry in stored.schedules)
    return with_offsets(stored, route_facts_of_columns(entries, parsed.columns))


def load(text: str | bytes | None) -> StoredSummary | None:
    """Decode ``summary_json``; ``None`` when absent or of an older version."""
    if not text:
        return None
    data = orjson.loads(text)
    if not isinstance(data, dict) or data.get("version") != SUMMARY_VERSION:
        return None
    return StoredSummary(
        str(data["modelVersion"]),
        data["summary"],
        data["schedules"],
        RosterFacts.from_json(data["facts"]),
        Thresholds.from_json(data.get("thresholds")),
    )


def thresholds_for(session: Session, upload_id: int) -> Thresholds:
    """The levels and bands of the settings version the upload was scored with."""
    operator = results_store.operator_of(session, upload_id)
    version = roster_settings_version(session=session, upload_id=upload_id)
    found = (
        settings_at(session=session, operator=operator, version=version)
        if operator is not None
        else None
    )
    return (
        DEFAULT_THRESHOLDS if found is None else Thresholds.from_settings(found.settings, version)
    )


def _build_for(
    session: Session, upload: Any, result: RosterResult, stored: StoredScores | None = None
) -> bytes:
    return build(
        stored if stored is not None else unpack(result.scores, (upload.preferred_scale,)),
        roster_text=upload.roster_text,
        date_format=upload.date_format,
        sleep_json=upload.sleep_json,
        activity_text=upload.activity_text,
        scale=upload.preferred_scale,
        model_version=result.model_version,
        thresholds=thresholds_for(session, upload.id),
    )


def duty_tables(
    stored: StoredScores,
    facts: RosterFacts,
    scales: Sequence[str],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> list[DutyTable]:
    """The duty tables on ``scales`` (each that ``stored`` holds) with the levels and
    bands of ``thresholds``."""
    return [
        duty_table(stored, facts, s, level=thresholds.level(s), bands=thresholds.bands)
        for s in dict.fromkeys(scales)
        if s in stored.scales
    ]


def build_tables(
    stored: StoredScores,
    facts: RosterFacts,
    *,
    scale: str,
    model_version: str,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    tables: Sequence[DutyTable] | None = None,
) -> bytes:
    """The roster's packed duty tables (:mod:`vigil.fleet.packed`): on ``scale`` (the
    explorer's) and on :data:`TABLE_SCALES` (trips and months compared read KSS), each
    that ``stored`` holds, with the trips, hot spots and digest of the last of them in
    :data:`TRIP_STYLES`. A pure function of the decoded scores and the facts, like
    :func:`build`, so it runs wherever the summary is built; ``tables`` are those tables
    when already built (:func:`duty_tables`)."""
    if tables is None:
        tables = duty_tables(stored, facts, (scale, *TABLE_SCALES), thresholds)
    bases = facts.base_lists()
    trips = {style: packed.trip_parts(tables[-1], bases, style) for style in TRIP_STYLES}
    return packed.pack(
        tables,
        bases=bases,
        thresholds=thresholds,
        model_version=model_version,
        trips=(tables[-1].scale, trips),
    )


def summary_and_tables(
    stored: StoredScores,
    facts: RosterFacts,
    scale: str,
    model_version: str,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> tuple[bytes, bytes]:
    """``summary_json`` (:func:`build`) and the packed duty tables (:func:`build_tables`),
    each duty table built once for both."""
    tables = duty_tables(stored, facts, (scale, *TABLE_SCALES), thresholds)
    summary = build(
        stored,
        scale=scale,
        model_version=model_version,
        thresholds=thresholds,
        facts=facts,
        table=tables[0],
    )
    packed_tables = build_tables(
        stored, facts, scale=scale, model_version=model_version, thresholds=thresholds,
        tables=tables,
    )  # fmt: skip
    return summary, packed_tables


#: the length prefix of :class:`SummaryBuild`'s blob (the summary's byte count)
_FRAME = struct.Struct("<Q")


def _frame(summary: bytes, tables: bytes) -> bytes:
    """One blob for the worker, which stores bytes it does not read (:class:`Summaries`)."""
    return _FRAME.pack(len(summary)) + summary + tables


def _unframe(blob: bytes) -> tuple[bytes, bytes]:
    (size,) = _FRAME.unpack_from(blob)
    start = _FRAME.size
    return blob[start : start + size], blob[start + size :]


@dataclass(frozen=True, slots=True)
class SummaryBuild:
    """A finished roster's summary build with what the database says about it: a pure,
    picklable function of the stored scores and the chunk tasks' route facts, so the
    worker runs it where the chunk tasks ran (a scoring process, a Dask worker) and only
    stores the bytes it answers (:class:`Summaries`)."""

    scale: str  #: the roster's scale (the only one decoded)
    model_version: str
    thresholds: Thresholds = DEFAULT_THRESHOLDS

    def __call__(self, scores: bytes, routes: Sequence[RouteFacts]) -> bytes:
        """``summary_json`` (:func:`build`) and the packed duty tables
        (:func:`build_tables`), framed as one blob for :meth:`Summaries.store`, from the
        joined scores blob and the chunks' route facts in schedule order (joined here:
        :meth:`RouteFacts.join`)."""
        stored = _unpack_for_tables(scores, self.scale)
        facts = with_offsets(stored, RouteFacts.join(routes))
        summary, tables = summary_and_tables(
            stored, facts, self.scale, self.model_version, self.thresholds
        )
        return _frame(summary, tables)


class Summaries:
    """The worker's summary hook (``Worker(record_summary=...)``; the worker never
    imports fleet): :meth:`prepare` reads what the build needs from the database (the
    thresholds of the settings version the roster was scored with) and answers the pure
    :class:`SummaryBuild`; :meth:`store` saves the bytes it built."""

    def prepare(self, session: Session, job: Any, model_version: str) -> SummaryBuild:
        """The build of ``job``'s summary (``job``: a :class:`vigil.worker.jobs.ClaimedJob`)."""
        return SummaryBuild(job.preferred_scale, model_version, thresholds_for(session, job.id))

    def store(self, session: Session, upload_id: int, summary: bytes) -> None:
        """Save what :class:`SummaryBuild` built: ``summary_json`` with the roster's result,
        and its packed duty tables."""
        text, tables = _unframe(summary)
        results_store.save_summary(session, upload_id, text.decode())
        results_store.save_tables(session, upload_id, tables)


#: what the service hands its upload workers (:mod:`vigil.web.routes.upload`)
WORKER_SUMMARIES = Summaries()


def record_summary(
    session: Session, job: Any, scores: bytes, status: object, routes: RouteFacts | None = None
) -> None:
    """Build and store the summary of a roster just completed, and its packed duty tables
    (:func:`summary_and_tables`), in this thread (the upload worker uses :class:`Summaries`
    instead, which builds where the chunk tasks ran).

    ``job`` is the :class:`vigil.worker.jobs.ClaimedJob`; nothing happens when ``status``
    is ``None`` (lease lost). With ``routes`` (what the chunk tasks read from the roster:
    :attr:`vigil.worker.roster_job.ScoredRoster.routes`), the roster is not parsed again;
    only the summary's scale and :data:`TABLE_SCALES` are decoded from ``scores``. A
    failure here is logged and leaves the summary to be built on first view: it never
    fails the roster.
    """
    if status is None:
        return
    try:
        version = results_store.model_version(session, job.id)
        thresholds = thresholds_for(session, job.id)
        stored = _unpack_for_tables(scores, job.preferred_scale)
        if routes is not None:
            facts = with_offsets(stored, routes)
        else:
            sleep = json.dumps(job.sleep_data)
            facts = facts_of_text(
                stored, job.roster_text, job.date_format, sleep, job.activity_text
            )
        text, packed_tables = summary_and_tables(
            stored, facts, job.preferred_scale, version, thresholds
        )
        results_store.save_summary(session, job.id, text.decode())
        results_store.save_tables(session, job.id, packed_tables)
    except Exception:  # noqa: BLE001 - the summary is derived data; rebuilt on first view
        logger.exception("roster %s: building its summary failed", job.id)


def _unpack_for_tables(scores: bytes, scale: str) -> StoredScores:
    """The scores on ``scale`` and :data:`TABLE_SCALES` (those stored), decoded once."""
    try:
        return unpack(scores, tuple(dict.fromkeys((scale, *TABLE_SCALES))))
    except ValueError:  # a blob holding the roster's own scale only
        return unpack(scores, (scale,))


def ensure(
    session: Session, upload: Any, result: RosterResult, stored: StoredScores | None = None
) -> StoredSummary:
    """The stored summary of ``upload``; built and stored first if missing or outdated."""
    found = load(result.summary_json)
    if found is not None:
        return found
    text = _build_for(session, upload, result, stored).decode()
    results_store.save_summary(session, upload.id, text)
    session.commit()
    loaded = load(text)
    assert loaded is not None
    return loaded


def ensure_light(session: Session, upload: Any, light: results_store.LightResult) -> StoredSummary:
    """:func:`ensure` from a :class:`LightResult` (reads the scores only to build)."""
    found = load(light.summary_json)
    if found is not None:
        return found
    result = session.get(RosterResult, light.upload_id)
    assert result is not None
    return ensure(session, upload, result)
