"""A roster's trips and hot spots in the console (``/console/rosters/{token}/trips``).

One page: the trips (:mod:`vigil.fleet.trips`) with the most hazardous duties first,
paged and searchable by Reference or pattern, each linking to its crew member's chart
at the trip's worst duty; and the hot spots (:mod:`vigil.fleet.hot_spots`) by duty
route, home-base report hour and trip pattern, worst first. ``trips.json`` serves the same
page's figures as JSON (console session, like the roster status poller). Everything is
read from the roster's cached view (:mod:`.roster_views`), built once per roster.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from vigil.fleet.trip_rows import trip_order, trip_row
from vigil.settings.bands import risk_band
from vigil.web.console._web import PREFIX, Console, UserConsole
from vigil.web.console.reviews import subject_reviews
from vigil.web.console.roster_views import RosterView, ViewError, load_view
from vigil.web.problems import problem

__all__ = ["HOT_ROWS", "PAGE_SIZE", "router", "trip_subject"]

router = APIRouter(prefix="/rosters")

#: trips per page
PAGE_SIZE = 50
#: groups shown per hot-spot ranking on the page (the JSON has them all)
HOT_ROWS = 25
#: longest search text
MAX_QUERY = 200


def _style(console: Console) -> str:
    """The user's airport codes (IATA or ICAO), as on the chart pages."""
    try:
        stored = json.loads(console.user.preferences_json or "{}") if console.user else {}
    except ValueError:
        stored = {}
    found = stored.get("airports") if isinstance(stored, dict) else None
    return found if found in ("iata", "icao") else "iata"


def _page(view: RosterView, page: int, q: str) -> dict[str, Any]:
    t, trips = view.table, view.trips
    order = trip_order(t, trips, q)
    pages = max(1, -(-order.size // PAGE_SIZE))
    page = max(1, min(page, pages))
    rows = []
    for k in order[(page - 1) * PAGE_SIZE : page * PAGE_SIZE].tolist():
        row = trip_row(t, trips, int(k), view.style)
        css, words = _band(row["maxRisk"], t.bands)
        rows.append(row | {"band": css, "bandText": words})
    return {"rows": rows, "matched": int(order.size), "page": page, "pages": pages, "q": q}


def trip_subject(row: dict[str, Any]) -> str:
    """A trip as a hazard-log subject: crew member, pattern and first report (UTC), so
    the decision shows again where the same trip recurs (the roster replaced)."""
    return f"{row['reference']}: trip {row['pattern']} reporting {row['reportUtc']}"


def _band(value: float | None, bands: Any) -> tuple[str, str]:
    band = risk_band(value, bands)
    return ("", "") if band is None else (band.css, band.words)


@router.get("/{token}/trips")
def trips_page(console: UserConsole, token: str, page: int = 1, q: str = "") -> Response:
    """The roster's trips, most hazardous first, and its hot spots."""
    try:
        view = load_view(console, token, _style(console))
    except ViewError as exc:
        if exc.status == 404:
            return console.not_found("roster")
        return console.render("trips.html", status_code=exc.status, error=exc.message, token=token)
    t = view.table
    hot = view.hot
    table = _page(view, page, q[:MAX_QUERY])
    patterns = hot["pattern"][:HOT_ROWS]
    back = f"{PREFIX}/rosters/{token}/trips?page={table['page']}&q={quote(table['q'])}"
    return console.render(
        "trips.html",
        token=token,
        view=view,
        table=table,
        hot={k: hot[k][:HOT_ROWS] for k in ("route", "reportHour", "pattern")},
        trip_reviews=subject_reviews(console, "trip", [trip_subject(x) for x in table["rows"]]),
        pattern_reviews=subject_reviews(console, "pattern", [g["key"] for g in patterns]),
        back=back,
        hot_counts={k: len(hot[k]) for k in ("route", "reportHour", "pattern")},
        min_duties=hot["minDuties"],
        upper_bands=hot["upperBands"],
        bands=t.bands,
        trip_count=len(view.trips),
        duty_count=len(t),
        band_of=lambda v: _band(v, t.bands),
        error=None,
    )


@router.get("/{token}/trips.json")
def trips_json(console: UserConsole, token: str, page: int = 1, q: str = "") -> Response:
    """The trips page's figures as JSON: a page of trips and every hot-spot group."""
    try:
        view = load_view(console, token, _style(console))
    except ViewError as exc:
        return console.finish(problem(exc.status, exc.message))
    body = {
        "roster": {"token": view.token, "name": view.name, "modelVersion": view.model_version},
        "bands": [b.words for b in view.table.bands],
        "trips": _page(view, page, q[:MAX_QUERY]) | {"pageSize": PAGE_SIZE},
        "hotSpots": view.hot,
    }
    return console.finish(
        Response(
            orjson.dumps(body), media_type="application/json", headers={"Cache-Control": "no-store"}
        )
    )
