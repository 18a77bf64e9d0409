"""Benchmark: re-score a what-if draft of a 28-day schedule (goal <= 300 ms).

Run ``.venv/bin/python benchmarks/bench_whatif.py [--repeat N] [--crew N] [--json]``.

What the console's ``POST …/whatif/score`` does per change, minus the database look-up of
the roster: check the schedule is one of the stored roster's (a Reference set built once per
roster and server process, over ``--crew`` pilots, and cached), read the wire draft, write
it as RosterData + SleepData and score it through :func:`vigil.scoring.service.score` with
risk and sleep, build the chart payload and the scorer's rest windows
(:func:`vigil.web.console.whatif.score_draft`).
Each pilot flies 28 days of short-haul duties, a 14.5-hour augmented LHR-SIN duty and the
return. Three drafts: unedited (predicted sleep), one sleep moved (all sleep then given),
the long haul two hours longer. Also the console's plan-rest action: the planner over the
four pilots (:func:`vigil.planner.plan_rest`) plus the preview score of the draft with the
proposal applied. JIT warmed first; figures are medians of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from vigil.domain import DateFormat, Period
from vigil.planner import PlanRequest, plan_rest
from vigil.roster import parse_request
from vigil.web.console.whatif import score_draft
from vigil.web.console.whatif_draft import draft_of, references_of, rows_of
from vigil.web.console.whatif_wire import DraftIn, draft_json, to_draft

HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,HomeBase,"
    "TimeReference,CrewComposition,SleepCount,SleepOrder"
)
ON = datetime(2026, 3, 29, 20, 0, tzinfo=UTC)
CREW = ("CA", "FO", "CB", "FB")


def roster(references: list[str], days: int = 28) -> str:
    """28 days of 07:00-15:00Z LHR-CDG (5 on, 2 off), the long haul and the return."""
    lines = [HEADER]
    off = ON + timedelta(hours=14.5)
    back = ON + timedelta(days=2, hours=2)
    for i, ref in enumerate(references):
        order = 2 if i % 4 < 2 else 1
        for k in range(days):
            when = ON - timedelta(days=days - k)
            if k % 7 < 5 and when.date() < (ON - timedelta(days=1)).date():
                d = when.strftime("%d/%m/%Y")
                lines.append(f"{ref},{d},07:00,LHR,{d},15:00,CDG,LHR,0,2,0,1")
        lines.append(
            f"{ref},{ON:%d/%m/%Y},20:00,LHR,{off:%d/%m/%Y},{off:%H:%M},SIN,LHR,0,4,1,{order}"
        )
        end = back + timedelta(hours=14)
        lines.append(
            f"{ref},{back:%d/%m/%Y},{back:%H:%M},SIN,{end:%d/%m/%Y},{end:%H:%M},LHR,LHR,0,4,1,{order}"
        )
    return "\r\n".join(lines)


def median_ms(run: Callable[[], object], repeat: int) -> float:
    run()  # warm-up (JIT, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--crew", type=int, default=1000, help="pilots in the stored roster")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = [*CREW, *(f"X{k:04d}" for k in range(max(0, args.crew - len(CREW))))]
    stored = roster(names)
    crew_text = roster(list(CREW))
    schedule = next(s for s in parse_request(crew_text, "dmy").schedules if s.reference == "CB")
    base = draft_json(draft_of(schedule))
    references = references_of(stored)
    first = score_draft(to_draft(DraftIn(**base)), DateFormat.DMY, "KSS")
    assert first["payload"] is not None and not first["errors"]
    moved = dict(base, sleep=[[s["start"], s["end"]] for s in first["payload"]["sleep"]])
    on_ms = int(ON.timestamp() * 1000)
    k = max(i for i, s in enumerate(moved["sleep"]) if s[1] <= on_ms - 3600_000)
    moved["sleep"][k] = [moved["sleep"][k][0] + 2 * 3600_000, moved["sleep"][k][1] + 2 * 3600_000]
    longer = json.loads(json.dumps(base))
    lh = next(i for i, d in enumerate(longer["duties"]) if d["on"] == on_ms)
    longer["duties"][lh]["off"] += 2 * 3600_000

    def rescore(wire: dict[str, object]) -> Callable[[], object]:
        def run() -> object:
            assert "CB" in references  # the tenant check, cached per roster token
            body = score_draft(to_draft(DraftIn(**wire, scale="KSS")), DateFormat.DMY, "KSS")
            assert body["payload"] is not None
            return body

        return run

    figures = {
        "unedited_ms": median_ms(rescore(base), args.repeat),
        "sleep_moved_ms": median_ms(rescore(moved), args.repeat),
        "duty_longer_ms": median_ms(rescore(longer), args.repeat),
        "references_ms": median_ms(lambda: references_of(stored), max(3, args.repeat // 3)),
        "crew_rows_ms": median_ms(lambda: rows_of(stored, list(CREW)), args.repeat),
    }
    intervals = len(first["payload"]["v"])

    def plan() -> object:
        result = plan_rest(PlanRequest(crew_text, ON, CREW, CREW[:2]))
        brk = next(b for b in result.proposal.breaks if b.reference == "CB")
        draft = to_draft(DraftIn(**base, scale="KSS"))
        duties = list(draft.duties)
        duties[lh] = replace(duties[lh], rests=(Period(brk.start, brk.end),))
        return score_draft(replace(draft, duties=tuple(duties)), DateFormat.DMY, "KSS")

    figures["plan_ms"] = median_ms(plan, max(3, args.repeat // 3))
    load = os.getloadavg()[0]
    duties = len(base["duties"])  # type: ignore[arg-type]
    print(
        f"what-if re-score, 28-d schedule ({duties} duties, {intervals} intervals), "
        f"stored roster of {len(names)} pilots ({stored.count(chr(10)) + 1} rows):"
    )
    print(f"  unedited draft (predicted sleep): {figures['unedited_ms']:.1f} ms")
    print(f"  one sleep moved (given sleep):    {figures['sleep_moved_ms']:.1f} ms")
    print(f"  long haul 2 h longer:             {figures['duty_longer_ms']:.1f} ms")
    print(
        f"  once per stored roster and process, its References: {figures['references_ms']:.1f} ms"
    )
    print(f"  plan rest: the crew's rows of the stored roster: {figures['crew_rows_ms']:.1f} ms")
    print(f"console plan rest (planner + preview), 4 pilots: {figures['plan_ms']:.0f} ms per duty")
    print(f"load average (1 min): {load:.2f}")
    if args.json:
        out = {key: round(value, 1) for key, value in figures.items()}
        out.update(intervals=intervals, pilots=len(names), repeat=args.repeat, load=round(load, 2))
        print(json.dumps(out))


if __name__ == "__main__":
    main()
