"""The duty explorer page: every duty of a scored roster, server-side paged, sorted and
filtered (:mod:`vigil.fleet.explorer`), each with what drives its risk, and the CSV of
exactly the filtered view.

``/console/rosters/{token}/duties`` and ``…/duties.csv`` read the same parameters.
Rosters are the user's operator's only (:func:`vigil.web.console.rosters.own_upload`:
another operator's token is a 404). Bad parameters are a 400 page naming the parameter and
what it accepts, never a 500.

The filter columns of a roster are built once (decoding the roster's scale of its scores
and joining the stored facts, :func:`vigil.fleet.explorer.explorer_columns`) and kept in a
small per-runtime cache (:class:`ColumnCache`): at most :data:`MAX_ROSTERS` rosters and
:data:`MAX_PER_OPERATOR` per operator, keyed by the upload, its last update and the scale,
so an overwritten roster is rebuilt and one operator cannot evict all others'.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, NamedTuple
from urllib.parse import urlencode

from fastapi import APIRouter
from fastapi.responses import Response, StreamingResponse

from vigil.fleet import stored as fleet_stored
from vigil.fleet.explorer import (
    CREW_TYPES,
    SORTS,
    DutyQuery,
    ExplorerColumns,
    QueryError,
    explorer_columns,
    explorer_csv,
    explorer_row,
    parse_query,
    select,
)
from vigil.fleet.table import DUTY_KINDS
from vigil.fleet.thresholds import Thresholds
from vigil.results.compact import unpack
from vigil.scoring.duty_risk import REASONS
from vigil.store import uploads
from vigil.store.tables import RosterUpload
from vigil.web.console._prefs import preferences
from vigil.web.console._web import PREFIX, Console, UserConsole
from vigil.web.console.charts import in_force

__all__ = ["MAX_PER_OPERATOR", "MAX_ROSTERS", "ColumnCache", "router"]

router = APIRouter(prefix="/rosters")

#: rosters whose explorer columns are kept (about 40 MB each at 140,000 duties)
MAX_ROSTERS = 4
#: of which one operator holds at most
MAX_PER_OPERATOR = 2


class Explored(NamedTuple):
    """A roster's explorer columns and the thresholds its table was built with."""

    columns: ExplorerColumns
    thresholds: Thresholds


class ColumnCache:
    """Explorer columns per (operator, upload, last update, scale), least recently used
    first out, bounded in all and per operator (module doc)."""

    def __init__(self, limit: int = MAX_ROSTERS, per_operator: int = MAX_PER_OPERATOR) -> None:
        self.limit = limit
        self.per_operator = per_operator
        self._items: OrderedDict[tuple[Any, ...], Explored] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> Explored | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], columns: Explored) -> None:
        with self._lock:
            # an older build of the same roster (before an overwrite) goes first
            for old in [k for k in self._items if k[:2] == key[:2] and k != key]:
                del self._items[old]
            self._items[key] = columns
            self._items.move_to_end(key)
            own = [k for k in self._items if k[0] == key[0]]
            while len(own) > self.per_operator:
                del self._items[own.pop(0)]
            while len(self._items) > self.limit:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


def column_cache(console: Console) -> ColumnCache:
    """The runtime's :class:`ColumnCache` (one per app)."""
    cache = console.runtime.cache.get("duty_explorer")
    if cache is None:
        cache = console.runtime.cache.setdefault("duty_explorer", ColumnCache())
    assert isinstance(cache, ColumnCache)
    return cache


def columns_for(console: Console, upload: RosterUpload) -> Explored | None:
    """The upload's explorer columns (cached), ``None`` before it has results."""
    scale = upload.preferred_scale
    key = (console.operator_id, upload.id, str(upload.updated_at), scale)
    cache = column_cache(console)
    found = cache.get(key)
    if found is not None:
        return found
    result = uploads.get_result(session=console.db, upload_id=upload.id)
    if result is None:
        return None
    summary = fleet_stored.ensure(console.db, upload, result)
    table = summary.table(unpack(result.scores, (scale,)), scale)
    built = Explored(explorer_columns(table), summary.thresholds)
    cache.put(key, built)
    return built


def _params(console: Console) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in console.request.query_params.multi_items():
        out.setdefault(name, []).append(value)
    return out


def _link(base: str, params: dict[str, str | list[str]]) -> str:
    return f"{base}?{urlencode(params, doseq=True)}" if params else base


def _own(console: Console, token: str) -> RosterUpload | None:
    return uploads.get_upload(session=console.db, operator=console.operator, token=token)


def _style(console: Console) -> str:
    return preferences(console).get("airports", "iata")


@router.get("/{token}/duties")
def duty_explorer(console: UserConsole, token: str) -> Response:
    """Every duty of the roster: filtered, sorted and paged on the server."""
    upload = _own(console, token)
    if upload is None:
        return console.not_found("roster")
    found = columns_for(console, upload)
    if found is None:
        return console.not_found("result (the roster is not processed yet)")
    base_path = f"{PREFIX}/rosters/{upload.token}/duties"
    try:
        query = parse_query(_params(console), [b.css for b in found.columns.table.bands])
    except QueryError as exc:
        return _page(console, upload, found, DutyQuery(), base_path, error=exc, status=400)
    return _page(console, upload, found, query, base_path)


def _page(
    console: Console,
    upload: RosterUpload,
    found: Explored,
    query: DutyQuery,
    base_path: str,
    *,
    error: QueryError | None = None,
    status: int = 200,
) -> Response:
    columns = found.columns
    t = columns.table
    style = _style(console)
    picked = select(columns, query)
    rows = [explorer_row(columns, i, home_time=query.home_time, style=style) for i in picked.rows]
    chart = f"{PREFIX}/rosters/{upload.token}/chart"
    for row in rows:
        row["chart"] = (
            _link(chart, {"schedule": row["reference"], "scale": t.scale, "duty": str(row["duty"])})
            + f"#duty-{row['duty']}"
        )
    sorts = {
        key: _link(
            base_path,
            query.params(
                sort=key,
                descending=not (query.sort == key and query.descending),
                page=1,
            ),
        )
        for key in SORTS
    }
    return console.render(
        "duties.html",
        status_code=status,
        upload=upload,
        query=query,
        error=error,
        rows=rows,
        matched=picked.matched,
        total=len(t),
        page=picked.page,
        pages=picked.pages,
        prev=_link(base_path, query.params(page=picked.page - 1)) if picked.page > 1 else "",
        next=_link(base_path, query.params(page=picked.page + 1))
        if picked.page < picked.pages
        else "",
        sorts=sorts,
        export=_link(f"{base_path}.csv", query.params(page=1)),
        bands=t.bands,
        bases=columns.bases,
        fleets=[f for f in columns.fleets if f],
        ranks=[r for r in columns.ranks if r],
        kinds=DUTY_KINDS,
        crews=CREW_TYPES,
        reasons=REASONS,
        explained=t.drivers is not None,
        scale=t.scale,
        in_force=in_force(found.thresholds, t.scale),
    )


@router.get("/{token}/duties.csv")
def duty_explorer_csv(console: UserConsole, token: str) -> Response:
    """The duties of the view, every page, as CSV (the same parameters as the page)."""
    upload = _own(console, token)
    if upload is None:
        return console.not_found("roster")
    found = columns_for(console, upload)
    if found is None:
        return console.not_found("result (the roster is not processed yet)")
    try:
        query = parse_query(_params(console), [b.css for b in found.columns.table.bands])
    except QueryError as exc:
        base_path = f"{PREFIX}/rosters/{upload.token}/duties"
        return _page(console, upload, found, DutyQuery(), base_path, error=exc, status=400)
    name = f"vigil-duties-{upload.token[:12]}.csv"
    response = StreamingResponse(
        explorer_csv(found.columns, query, _style(console)),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
        },
    )
    return console.finish(response)
