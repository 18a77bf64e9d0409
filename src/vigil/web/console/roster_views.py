"""A scored roster's duties, trips and hot spots, built once and kept in memory.

The trips page and the months-compared page read the same thing: the roster's
:class:`~vigil.fleet.table.DutyTable` on KSS (top of descent is read in KSS, whatever the
roster's preferred scale), its trips (:func:`vigil.fleet.trips.group_trips`) and hot spots
(:func:`vigil.fleet.hot_spots.hot_spots`), built by one function
(:func:`vigil.fleet.packed.trip_parts`). The table, and the trips in the default airport
style, are read from the roster's packed tables (:mod:`vigil.fleet.packed`, stored with
its summary); a roster stored without them decodes the scores blob and groups its trips
instead (a second or more at airline size). A built view is kept per operator in a
:class:`~vigil.web._report_cache.ReportCache` weighed by duties: one operator's months
never push out another's while it is within its share. The key holds the roster token
(new on every overwrite) and its last update, so a replaced or rescored roster is never
served stale.

:func:`load_view` is also where a roster is refused: unknown or another operator's
(:class:`ViewError` 404: the two look alike), or not scored yet (409).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, cast

from vigil.contract import JobStatus
from vigil.fleet import packed
from vigil.fleet import stored as fleet_stored
from vigil.fleet.compare import Digest
from vigil.fleet.table import DutyTable
from vigil.fleet.trips import Trips
from vigil.results.compact import unpack
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.tables import RosterUpload
from vigil.web._report_cache import ReportCache
from vigil.web.console._web import Console

__all__ = ["RosterView", "ViewError", "load_view", "scored_rosters"]

logger = logging.getLogger(__name__)

#: duties kept per operator and in all: a 10,000-crew month is about 135,000 duties and
#: 45 MB of view, so an operator keeps two such months (a comparison) and the process
#: four, about 180 MB
PER_OPERATOR_DUTIES = 300_000
TOTAL_DUTIES = 600_000
#: the scale top of descent is read on (the issue's "top-of-descent KSS")
VIEW_SCALE = "KSS"
SCORED = (JobStatus.COMPLETED_SUCCESSFULLY, JobStatus.COMPLETED_WITH_ERRORS)


class ViewError(Exception):
    """A roster that cannot be shown: ``status`` (404, 409) and the words for it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class RosterView:
    """One scored roster's duty table, trips and hot spots (airport codes in ``style``)."""

    token: str
    name: str
    table: DutyTable
    trips: Trips
    hot: dict[str, Any]
    digest: Digest  #: the figures months are compared by (:mod:`vigil.fleet.compare`)
    style: str
    model_version: str


def _cache(console: Console) -> ReportCache[RosterView]:
    state = console.runtime.state
    if state.roster_views is None:
        state.roster_views = ReportCache[RosterView](
            per_operator=PER_OPERATOR_DUTIES, total=TOTAL_DUTIES
        )
    return cast("ReportCache[RosterView]", state.roster_views)


def scored_rosters(console: Console) -> list[RosterUpload]:
    """The operator's rosters with results, newest first (the pickers)."""
    return [
        u
        for u in uploads.list_uploads(session=console.db, operator=console.operator)
        if u.status in SCORED
    ]


def _packed_view(console: Console, upload: RosterUpload, style: str) -> RosterView | None:
    """The view from the roster's packed tables (:mod:`vigil.fleet.packed`), its trips
    too when packed in ``style``; ``None`` when it has none that can be read."""
    blob = results_store.packed_tables(console.db, upload.id)
    if blob is None:
        return None
    try:
        found = packed.read(blob)
        scale = VIEW_SCALE if VIEW_SCALE in found.scales else upload.preferred_scale
        table = found.table(scale)
        parts = found.trip_parts(scale, style)
    except (ValueError, KeyError):
        logger.warning("roster %s: its packed tables cannot be read", upload.id)
        return None
    if parts is None:
        parts = packed.trip_parts(table, found.bases, style)
    return _view(upload, table, parts, style, found.model_version)


def _view(
    upload: RosterUpload, table: DutyTable, parts: packed.TripParts, style: str, version: str
) -> RosterView:
    return RosterView(
        token=upload.token,
        name=upload.roster_name,
        table=table,
        trips=parts.trips,
        hot=parts.hot,
        digest=parts.digest,
        style=style,
        model_version=version,
    )


def _build(console: Console, upload: RosterUpload, style: str) -> RosterView:
    found = _packed_view(console, upload, style)
    if found is not None:
        return found
    result = uploads.get_result(session=console.db, upload_id=upload.id)
    if result is None:
        raise ViewError(409, f"Roster {upload.roster_name!r} has no results yet.")
    summary = fleet_stored.ensure(console.db, upload, result)
    try:
        stored = unpack(result.scores, (VIEW_SCALE,))
        scale = VIEW_SCALE
    except ValueError:  # a roster stored with its preferred scale only
        stored = unpack(result.scores, (upload.preferred_scale,))
        scale = upload.preferred_scale
    table = summary.table(stored, scale)
    del stored
    parts = packed.trip_parts(table, summary.facts.base_lists(), style)
    return _view(upload, table, parts, style, summary.model_version)


def load_view(console: Console, token: str, style: str = "iata") -> RosterView:
    """The view of the operator's roster ``token`` (built on first use, then cached).

    Raises
    ------
    ViewError
        404 for no such roster of this operator; 409 while it is not scored.
    """
    upload = uploads.get_upload(session=console.db, operator=console.operator, token=token)
    if upload is None:
        raise ViewError(404, "No such roster.")
    if upload.status not in SCORED:
        raise ViewError(409, f"Roster {upload.roster_name!r} is not scored yet ({upload.status}).")
    cache = _cache(console)
    key = (upload.token, upload.updated_at.isoformat() if upload.updated_at else "", style)
    found = cache.get(console.operator, key)
    if found is None:
        found = _build(console, upload, style)
        cache.put(console.operator, key, found, weight=len(found.table))
    return found
