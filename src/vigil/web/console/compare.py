"""Two months compared in the console (``/console/compare?a=…&b=…``).

Pick two scored rosters of the operator (A: the earlier or planned one, B: the later or
flown one); the page shows what got better or worse (:func:`vigil.fleet.compare.compare`:
bands, routes, bases, patterns and the pairings that recur, duty by duty). The same
figures are served as JSON (``/console/compare.json``, console session: the data of the
page, like the roster status poller's) and as CSV (``/console/compare.csv``).

Refusals are specific and never a 500: a missing choice or the same roster twice (400),
no such roster of this operator (404: another operator's roster looks exactly like a
missing one), a roster not scored yet (409).
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from fastapi import APIRouter
from fastapi.responses import Response, StreamingResponse

from vigil.fleet.compare import compare, compare_csv
from vigil.web.console._web import Console, UserConsole
from vigil.web.console.roster_views import RosterView, ViewError, load_view, scored_rosters
from vigil.web.problems import problem

__all__ = ["router"]

router = APIRouter()

#: rows per route, base and pattern list on the page (the JSON and CSV have them all)
PAGE_ROWS = 25
#: longest roster token accepted (tokens are far shorter)
MAX_TOKEN = 100


def _pair(console: Console, a: str, b: str) -> tuple[RosterView, RosterView]:
    """Both rosters' views, or the :class:`ViewError` saying why not."""
    if not a or not b:
        raise ViewError(400, "Pick two rosters to compare (a and b).")
    if len(a) > MAX_TOKEN or len(b) > MAX_TOKEN:
        raise ViewError(404, "No such roster.")
    if a == b:
        raise ViewError(400, "Pick two different rosters: A and B are the same.")
    return load_view(console, a), load_view(console, b)


def _result(a: RosterView, b: RosterView, limit: int | None = None) -> dict[str, Any]:
    found = compare(a.digest, b.digest, limit=limit)
    found["a"] = {"token": a.token, "name": a.name, "modelVersion": a.model_version}
    found["b"] = {"token": b.token, "name": b.name, "modelVersion": b.model_version}
    return found


@router.get("/compare")
def compare_page(console: UserConsole, a: str = "", b: str = "") -> Response:
    """The two pickers and, once both are chosen, the comparison."""
    rosters = scored_rosters(console)
    context: dict[str, Any] = {
        "rosters": rosters,
        "a": a,
        "b": b,
        "result": None,
        "error": None,
    }
    if not a or not b:
        # preselect the missing side (B the newest, A the newest other); compare on asking
        tokens = [u.token for u in rosters]
        context["b"] = b or next(iter(t for t in tokens if t != a), "")
        context["a"] = a or next(iter(t for t in tokens if t != context["b"]), "")
        return console.render("compare.html", **context)
    try:
        context["result"] = _result(*_pair(console, a, b), limit=PAGE_ROWS)
    except ViewError as exc:
        context["error"] = exc.message
        return console.render("compare.html", status_code=exc.status, **context)
    return console.render("compare.html", **context)


@router.get("/compare.json")
def compare_json(console: UserConsole, a: str = "", b: str = "") -> Response:
    """The comparison as JSON; errors as problem+json with the same statuses."""
    try:
        found = _result(*_pair(console, a, b))
    except ViewError as exc:
        return console.finish(problem(exc.status, exc.message))
    return console.finish(
        Response(
            orjson.dumps(found),
            media_type="application/json",
            headers={"Cache-Control": "no-store"},
        )
    )


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:60] or "roster"


@router.get("/compare.csv")
def compare_export(console: UserConsole, a: str = "", b: str = "") -> Response:
    """The comparison as CSV: every band, route, base, pattern and matched pairing duty."""
    try:
        va, vb = _pair(console, a, b)
    except ViewError as exc:
        return console.finish(problem(exc.status, exc.message))
    name = f"vigil-compare-{_file_stem(va.name)}-{_file_stem(vb.name)}.csv"
    response = StreamingResponse(
        compare_csv(_result(va, vb)),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
        },
    )
    return console.finish(response)
