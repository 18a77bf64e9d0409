"""The duty explorer's filter columns, built once per stored roster and kept per runtime.

Building them reads the roster's packed duty table (:mod:`vigil.fleet.packed`, stored
when its summary was built) and derives the filter columns
(:func:`vigil.fleet.explorer.explorer_columns`); a roster stored without one decodes its
scale of the scores and joins the stored facts instead (seconds at airline size). They are
kept in a small cache (:class:`ColumnCache`: at most :data:`MAX_ROSTERS` rosters and
:data:`MAX_PER_OPERATOR` per operator, keyed by operator, upload, its last update and
scale, so an overwritten roster is rebuilt and one operator cannot evict all others'),
and :func:`prefetch` starts building them in the background when the roster's dashboard
is shown, so "all duties" opens warm. One build per roster at a time: a request for
columns being built waits for that build instead of starting another.
"""

from __future__ import annotations

import logging
import threading
from typing import NamedTuple

from sqlalchemy.orm import Session

from vigil.fleet import packed
from vigil.fleet import stored as fleet_stored
from vigil.fleet.explorer import ExplorerColumns, explorer_columns
from vigil.fleet.thresholds import Thresholds
from vigil.results.compact import unpack
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.tables import RosterUpload
from vigil.web._build_cache import BuildCache, Key
from vigil.web._runtime import Runtime
from vigil.web.console._web import Console

__all__ = [
    "MAX_PER_OPERATOR",
    "MAX_ROSTERS",
    "ColumnCache",
    "Explored",
    "column_cache",
    "columns_for",
    "prefetch",
]

logger = logging.getLogger(__name__)

#: rosters whose explorer columns are kept (about 40 MB each at 140,000 duties)
MAX_ROSTERS = 4
#: of which one operator holds at most
MAX_PER_OPERATOR = 2
#: how long a request waits for a build already running [s] (then builds itself)
BUILD_WAIT_S = 120.0


class Explored(NamedTuple):
    """A roster's explorer columns and the thresholds its table was built with."""

    columns: ExplorerColumns
    thresholds: Thresholds


class ColumnCache(BuildCache[Explored]):
    """Explorer columns per (operator, upload, last update, scale), bounded in all and
    per operator (module doc)."""

    def __init__(self, limit: int = MAX_ROSTERS, per_operator: int = MAX_PER_OPERATOR) -> None:
        super().__init__(limit, per_operator)


#: guards the first creation of the runtime's cache (two first views at once)
_FIRST_USE = threading.Lock()


def column_cache(runtime: Runtime) -> ColumnCache:
    """The runtime's :class:`ColumnCache` (one per app)."""
    state = runtime.state
    with _FIRST_USE:
        if state.duty_explorer is None:
            state.duty_explorer = ColumnCache()
    cache = state.duty_explorer
    assert isinstance(cache, ColumnCache)
    return cache


def _key(operator_id: int, upload: RosterUpload) -> Key:
    return (operator_id, upload.id, str(upload.updated_at), upload.preferred_scale)


def _build(session: Session, upload: RosterUpload) -> Explored | None:
    packed_blob = results_store.packed_tables(session, upload.id)
    if packed_blob is not None:
        try:
            found = packed.read(packed_blob)
            table = found.table(upload.preferred_scale)
        except (ValueError, KeyError):
            logger.warning("roster %s: its packed tables cannot be read", upload.id)
        else:
            return Explored(explorer_columns(table), found.thresholds)
    result = uploads.get_result(session=session, upload_id=upload.id)
    if result is None:
        return None
    summary = fleet_stored.ensure(session, upload, result)
    scale = upload.preferred_scale
    table = summary.table(unpack(result.scores, (scale,)), scale)
    return Explored(explorer_columns(table), summary.thresholds)


def columns_for(console: Console, upload: RosterUpload) -> Explored | None:
    """The upload's explorer columns (cached; waits for a build in progress), ``None``
    before it has results."""
    key = _key(console.operator_id, upload)
    cache = column_cache(console.runtime)
    found = cache.get(key)
    if found is not None:
        return found
    cache.wait(key, BUILD_WAIT_S)
    found = cache.get(key)
    if found is not None:
        return found
    claimed = cache.claim(key)
    try:
        built = _build(console.db, upload)
        if built is not None:
            cache.put(key, built)
        return built
    finally:
        if claimed is not None:
            cache.release(key)


def prefetch(console: Console, upload: RosterUpload) -> threading.Thread | None:
    """Start building the upload's explorer columns in a background thread (its own
    database session) unless they are cached or being built; the thread, or ``None``."""
    sessions = getattr(console.runtime, "sessions", None)
    if sessions is None or console.user is None:
        return None
    key = _key(console.operator_id, upload)
    cache = column_cache(console.runtime)
    if cache.claim(key) is None:
        return None
    operator, token = console.operator, upload.token

    def run() -> None:
        try:
            with sessions() as session:
                found = uploads.get_upload(session=session, operator=operator, token=token)
                if found is not None and _key(key[0], found) == key:
                    built = _build(session, found)
                    if built is not None:
                        cache.put(key, built)
        except Exception:  # noqa: BLE001 - a prefetch is an optimisation; the page builds
            logger.exception("duty explorer prefetch of roster %s failed", upload.id)
        finally:
            cache.release(key)

    thread = threading.Thread(target=run, name="duty-explorer-prefetch", daemon=True)
    thread.start()
    return thread
