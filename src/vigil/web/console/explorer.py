"""The duty explorer page: every duty of a scored roster, server-side paged, sorted and
filtered (:mod:`vigil.fleet.explorer`), each with what drives its risk, and the CSV of
exactly the filtered view.

``/console/rosters/{token}/duties`` and ``…/duties.csv`` read the same parameters.
Rosters are the user's operator's only (:func:`vigil.web.console.rosters.own_upload`:
another operator's token is a 404). Bad parameters are a 400 page naming the parameter and
what it accepts, never a 500.

The filter columns of a roster are built once and kept per runtime
(:mod:`vigil.web.console.explorer_cache`; the dashboard starts building them).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter
from fastapi.responses import Response, StreamingResponse

from vigil.fleet.explorer import (
    CREW_TYPES,
    SORTS,
    DutyQuery,
    ExplorerColumns,
    QueryError,
    Selection,
    explorer_csv,
    explorer_row,
    ordered,
    parse_query,
    select,
)
from vigil.fleet.table import DUTY_KINDS
from vigil.scoring.duty_risk import REASONS
from vigil.store import uploads
from vigil.store.tables import RosterUpload
from vigil.web.console._prefs import preferences
from vigil.web.console._web import PREFIX, Console, UserConsole
from vigil.web.console.charts import in_force
from vigil.web.console.explorer_cache import Explored, columns_for

__all__ = ["duty_explorer", "duty_explorer_csv", "router"]

router = APIRouter(prefix="/rosters")


def _params(console: Console) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in console.request.query_params.multi_items():
        out.setdefault(name, []).append(value)
    return out


def _link(base: str, params: dict[str, str | list[str]]) -> str:
    return f"{base}?{urlencode(params, doseq=True)}" if params else base


def _own(console: Console, token: str) -> RosterUpload | None:
    return uploads.get_upload(session=console.db, operator=console.operator, token=token)


def _opened(console: Console, token: str) -> tuple[RosterUpload, Explored] | Response:
    """The operator's roster of ``token`` and its explorer columns, or the page that says
    why there are none (another operator's roster reads as unknown)."""
    upload = _own(console, token)
    if upload is None:
        return console.not_found("roster")
    found = columns_for(console, upload)
    if found is None:
        return console.not_found("result (the roster is not processed yet)")
    return upload, found


def _style(console: Console) -> str:
    return preferences(console).get("airports", "iata")


@router.get("/{token}/duties")
def duty_explorer(console: UserConsole, token: str) -> Response:
    """Every duty of the roster: filtered, sorted and paged on the server."""
    opened = _opened(console, token)
    if isinstance(opened, Response):
        return opened
    upload, found = opened
    base_path = f"{PREFIX}/rosters/{upload.token}/duties"
    try:
        query = parse_query(_params(console), [b.css for b in found.columns.table.bands])
    except QueryError as exc:
        return _page(console, upload, found, DutyQuery(), base_path, error=exc, status=400)
    return _page(console, upload, found, query, base_path)


def _rows(
    console: Console,
    upload: RosterUpload,
    columns: ExplorerColumns,
    query: DutyQuery,
    picked: Selection,
) -> list[dict[str, Any]]:
    """The page's duties as table rows, each with a link to its duty on the roster chart."""
    t = columns.table
    style = _style(console)
    rows = [explorer_row(columns, i, home_time=query.home_time, style=style) for i in picked.rows]
    chart = f"{PREFIX}/rosters/{upload.token}/chart"
    for row in rows:
        row["chart"] = (
            _link(chart, {"schedule": row["reference"], "scale": t.scale, "duty": str(row["duty"])})
            + f"#duty-{row['duty']}"
        )
    return rows


def _links(query: DutyQuery, picked: Selection, base_path: str) -> dict[str, Any]:
    """The page's links: previous and next page (empty at either end), each column's sort
    (the sorted column's flips its order; back to page 1) and the CSV export."""
    page = picked.page
    return {
        "prev": _link(base_path, query.params(page=page - 1)) if page > 1 else "",
        "next": _link(base_path, query.params(page=page + 1)) if page < picked.pages else "",
        "sorts": {
            key: _link(
                base_path,
                query.params(
                    sort=key,
                    descending=not (query.sort == key and query.descending),
                    page=1,
                ),
            )
            for key in SORTS
        },
        "export": _link(f"{base_path}.csv", query.params(page=1)),
    }


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
    picked = select(columns, query)
    return console.render(
        "duties.html",
        status_code=status,
        upload=upload,
        query=query,
        error=error,
        rows=_rows(console, upload, columns, query, picked),
        matched=picked.matched,
        total=len(t),
        page=picked.page,
        pages=picked.pages,
        **_links(query, picked, base_path),
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
    """The duties of the view, every page, as CSV (the same parameters as the page), with
    their number in ``X-Vigil-Duties`` before the rows stream."""
    opened = _opened(console, token)
    if isinstance(opened, Response):
        return opened
    upload, found = opened
    try:
        query = parse_query(_params(console), [b.css for b in found.columns.table.bands])
    except QueryError as exc:
        base_path = f"{PREFIX}/rosters/{upload.token}/duties"
        return _page(console, upload, found, DutyQuery(), base_path, error=exc, status=400)
    name = f"vigil-duties-{upload.token[:12]}.csv"
    rows = ordered(found.columns, query)
    response = StreamingResponse(
        explorer_csv(found.columns, query, _style(console), rows),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
            # the console's progress bar counts the CSV's rows against this (fleet.js)
            "X-Vigil-Duties": str(rows.size),
        },
    )
    return console.finish(response)
