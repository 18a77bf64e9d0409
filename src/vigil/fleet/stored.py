"""The roster summary as stored in ``roster_result.summary_json``.

Computed once, when a roster finishes (:class:`SummaryBuild`, run by the worker where its
chunk tasks ran, the bytes then stored with the scores: :class:`Summaries`), from the
stored scores blob (the roster's scale only) and the route facts the chunk tasks read
from the roster (no second parse); a roster without them (older rosters, :func:`ensure`)
has its text parsed once.
It holds three parts:

- ``summary``: the dashboard's figures on the roster's scale
  (:func:`~vigil.fleet.summary.summarise`);
- ``schedules``: the schedules table, columnar (sorted and filtered per request);
- ``facts``: route, sectors, Fleet, Rank and local offsets of every duty
  (:class:`~vigil.fleet.table.RosterFacts`), so exports and charts never parse again.

A roster finished before this existed gets its summary on first view (:func:`ensure`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy.orm import Session

from vigil.domain import DateFormat
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
    "StoredSummary",
    "WORKER_SUMMARIES",
    "Summaries",
    "SummaryBuild",
    "build",
    "ensure",
    "ensure_light",
    "load",
    "record_summary",
]

logger = logging.getLogger(__name__)

#: bump when the stored shape changes: older summaries are rebuilt on first view
SUMMARY_VERSION = 3


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
) -> bytes:
    """``summary_json`` for a finished roster (UTF-8 JSON), with the warning levels and
    risk bands of the settings version it was scored with (``thresholds``).

    ``facts`` are the roster's facts when known (the worker's, from its chunk tasks:
    :func:`record_summary`); otherwise the roster text is parsed for them.
    """
    if facts is None:
        parsed = parse_request(
            roster_text,
            DateFormat(date_format),
            sleep_data=json.loads(sleep_json or "[]"),
            activity_text=activity_text,
        )
        entries = ((entry.reference, len(entry.duties)) for entry in stored.schedules)
        facts = with_offsets(stored, route_facts_of_columns(entries, parsed.columns))
        del parsed
    table = duty_table(stored, facts, scale, level=thresholds.level(scale), bands=thresholds.bands)
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
        """``summary_json`` (:func:`build`) from the joined scores blob and the chunks'
        route facts in schedule order (joined here: :meth:`RouteFacts.join`)."""
        stored = unpack(scores, (self.scale,))
        return build(
            stored,
            scale=self.scale,
            model_version=self.model_version,
            thresholds=self.thresholds,
            facts=with_offsets(stored, RouteFacts.join(routes)),
        )


class Summaries:
    """The worker's summary hook (``Worker(record_summary=...)``; the worker never
    imports fleet): :meth:`prepare` reads what the build needs from the database (the
    thresholds of the settings version the roster was scored with) and answers the pure
    :class:`SummaryBuild`; :meth:`store` saves the bytes it built."""

    def prepare(self, session: Session, job: Any, model_version: str) -> SummaryBuild:
        """The build of ``job``'s summary (``job``: a :class:`vigil.worker.jobs.ClaimedJob`)."""
        return SummaryBuild(job.preferred_scale, model_version, thresholds_for(session, job.id))

    def store(self, session: Session, upload_id: int, summary: bytes) -> None:
        """Save a built ``summary_json`` with the roster's result."""
        results_store.save_summary(session, upload_id, summary.decode())


#: what the service hands its upload workers (:mod:`vigil.web.routes.upload`)
WORKER_SUMMARIES = Summaries()


def record_summary(
    session: Session, job: Any, scores: bytes, status: object, routes: RouteFacts | None = None
) -> None:
    """Build and store the summary of a roster just completed, in this thread (the upload
    worker uses :class:`Summaries` instead, which builds where the chunk tasks ran).

    ``job`` is the :class:`vigil.worker.jobs.ClaimedJob`; nothing happens when ``status``
    is ``None`` (lease lost). With ``routes`` (what the chunk tasks read from the roster:
    :attr:`vigil.worker.roster_job.ScoredRoster.routes`), the roster is not parsed again
    and only the summary's scale is decoded from ``scores``. A failure here is logged and
    leaves the summary to be built on first view: it never fails the roster.
    """
    if status is None:
        return
    try:
        facts = None
        if routes is not None:
            stored = unpack(scores, (job.preferred_scale,))
            facts = with_offsets(stored, routes)
        else:
            stored = unpack(scores, (job.preferred_scale,))
        text = build(
            stored,
            roster_text=job.roster_text,
            date_format=job.date_format,
            sleep_json=json.dumps(job.sleep_data),
            activity_text=job.activity_text,
            scale=job.preferred_scale,
            model_version=results_store.model_version(session, job.id),
            thresholds=thresholds_for(session, job.id),
            facts=facts,
        )
        results_store.save_summary(session, job.id, text.decode())
    except Exception:  # noqa: BLE001 - the summary is derived data; rebuilt on first view
        logger.exception("roster %s: building its summary failed", job.id)


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
