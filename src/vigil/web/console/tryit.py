""" "Try it": paste a roster, pick a scale, see the chart (contract §6).

Scored in process through :func:`vigil.scoring.service.score` (the one scoring path,
STYLE §3.9) with risk and sleep under the operator's current settings, exactly as
ProcessFatigueRisk with ``includeSleep`` would; the page names the ``settingsVersion``.
Nothing is stored. The synchronous row limit of the scoring API applies.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import APIRouter, Form
from fastapi.responses import Response

from vigil.contract import row_count
from vigil.domain import DateFormat
from vigil.scoring.service import SCALE_CODES, ScoringError, TooMuchWork, score
from vigil.web.console._web import Console, PostConsole, UserConsole
from vigil.web.console.charts import envelope_payloads
from vigil.web.operator_context import context_for

router = APIRouter(prefix="/try")

#: charts embedded in one answer (ours: the page stays light; errors are all listed)
MAX_CHARTS = 20

EXAMPLE = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,2\r\n"
    "P1,03/03/2026,18:00,JFK,04/03/2026,06:30,LHR,LHR,2\r\n"
    "P1,06/03/2026,22:00,LHR,07/03/2026,07:00,LHR,LHR,1\r\n"
)


def _page(console: Console, status_code: int = 200, **context: object) -> Response:
    context.setdefault("roster", EXAMPLE)
    context.setdefault("date_format", "dmy")
    context.setdefault("scale", "KSS")
    context.setdefault("charts", [])
    context.setdefault("errors", [])
    context.setdefault("problem", None)
    context.setdefault("scored", False)
    context.setdefault("hidden", 0)
    context.setdefault("settings_version", None)
    return console.render("try.html", status_code=status_code, scales=SCALE_CODES, **context)


@router.get("")
def try_form(console: UserConsole) -> Response:
    return _page(console)


@router.post("")
def try_score(
    console: PostConsole,
    roster: Annotated[str, Form()] = "",
    date_format: Annotated[str, Form()] = "dmy",
    scale: Annotated[str, Form()] = "KSS",
) -> Response:
    """Score the pasted roster and draw every schedule (up to :data:`MAX_CHARTS`)."""
    form = {"roster": roster, "date_format": date_format, "scale": scale}
    limit = console.runtime.settings.sync_row_limit
    if row_count(roster) > limit:
        problem = f"The roster has more than {limit} rows; upload it on the Rosters page."
        return _page(console, 413, problem=problem, **form)
    if not roster.strip():
        return _page(console, 400, problem="Paste a roster first.", **form)
    try:
        fmt = DateFormat(date_format.lower())
        context = context_for(console.runtime, console.operator)
        request = context.request(
            roster, date_format=fmt, scale=scale, risk=True, include_sleep=True
        )
        report = score(request, max_crew_days=console.runtime.settings.sync_max_crew_days)
        report = dataclasses.replace(report, explain=True)  # each duty says what drives it
    except (ValueError, ScoringError) as exc:
        return _page(console, 400, problem=str(exc), **form)
    except TooMuchWork as exc:
        problem = (
            f"The roster needs too much work to score here ({exc}); upload it on the Rosters page."
        )
        return _page(console, 413, problem=problem, **form)
    charts = envelope_payloads(report.to_envelope())
    return _page(
        console,
        200,
        charts=charts[:MAX_CHARTS],
        hidden=max(0, len(charts) - MAX_CHARTS),
        errors=list(report.errors),
        scored=True,
        settings_version=report.settings_version,
        **form,
    )
