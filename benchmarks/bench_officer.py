"""The safety officer's screens at airline size (10,000 crew × 28 days), against their goals.

1. Reuses ``bench_fleet.py``'s cached month (:func:`bench_fleet.prepare`: the roster text,
   its scores and sleep blobs as the worker stores them) and adds, once, beside it: the
   chunk tasks' route facts (what a worker hands the summary) and a study group's crew
   ratings (``--study`` crew, 4 ratings per duty, :func:`vigil.calibration.simulate_observations`).
2. In a fresh process: a real store (SQLite in a temporary directory) and the real app
   (Starlette's TestClient, in process, kernels warmed as ``vigil serve`` does, a signed-in
   console user). Each of ``--repeat`` rounds uploads the month anew, claims it and finishes
   it through the worker's own store step (:meth:`vigil.worker.run.Worker._store` with the
   cached result: scoring is not measured here), then at once opens:

   - the dashboard (the first view the moment the roster reads as finished);
   - the what-if page of a different schedule each round (one with an augmented duty);
   - the calibration report page of a fresh observation set (the report is cached per
     set: each round's is a first report), and its KSS plot;
   - the CSV, XLSX and PDF exports: time to the first byte and to the last.

Figures are medians over the rounds. Timings on a shared machine vary with load: the load
average is printed next to them.

    .venv/bin/python benchmarks/bench_officer.py [--crew 10000 --days 28 --repeat 3]
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

import bench_fleet as fleet
from _month_store import (
    app_settings,
    fresh_store,
    month_parser,
    read_month,
    run_child,
    sign_in,
    upload_and_claim,
)

#: what the issue measured before, and the goal [s]
SCREENS: dict[str, tuple[str, float | None]] = {
    "dashboard at completion": ("13.5-15.2 s", 2.0),
    "what-if page": ("6 s (15 s first)", 1.0),
    "first calibration report": ("18.2 s", 3.0),
    "CSV export": ("6.5 s", 3.0),
    "XLSX export": ("15.2 s", None),
    "PDF export": ("10.8 s", None),
}
STUDY_SEED = 1


def prepare_extras(folder: Path, study: int) -> None:
    """Route facts of the stored schedules and the study group's ratings (cached)."""
    routes_file = folder / "routes.json"
    ratings_file = folder / f"ratings-{study}.csv"
    if routes_file.exists() and ratings_file.exists():
        return
    from vigil.calibration import simulate_observations
    from vigil.results.compact import unpack
    from vigil.results.routes import route_facts, route_facts_of_columns
    from vigil.roster.subset import only_schedules
    from vigil.scoring.context import DEFAULT_CONTEXT

    text = (folder / "roster.csv").read_text(encoding="utf-8")
    stored = unpack((folder / "scores.bin").read_bytes(), ("KSS",))
    entries = [(e.reference, len(e.duties)) for e in stored.schedules]
    if not routes_file.exists():
        parsed = DEFAULT_CONTEXT.parse(text, "dmy")
        routes = (
            route_facts_of_columns(entries, parsed.columns)
            if parsed.columns is not None
            else route_facts(entries, parsed.schedules)
        )
        routes_file.write_text(json.dumps(dataclasses.asdict(routes)))
    if not ratings_file.exists():
        group = [ref for ref, _ in entries[:: max(1, len(entries) // study)]][:study]
        ratings = simulate_observations(only_schedules(text, group), seed=STUDY_SEED, bias=0.5)
        ratings_file.write_text(ratings, encoding="utf-8")


def _routes(folder: Path) -> Any:
    from vigil.results.routes import Airports, RouteFacts

    data = json.loads((folder / "routes.json").read_text())
    return RouteFacts(**{**data, "airports": Airports(**data["airports"])})


def _augmented(stored: Any, text: str, wanted: int) -> list[str]:
    """``wanted`` References, spread over the roster, of pilots with an augmented duty
    (CrewComposition 3 or 4; in-flight rest alone also marks cabin crew)."""
    import csv

    from vigil.web.console.whatif_draft import rows_of

    rested = [e.reference for e in stored.schedules if any(d.rest for d in e.duties)]
    header, _ = rows_of(text, [])
    column = next(csv.reader([header or ""])).index("CrewComposition")
    found: list[str] = []
    for ref in rested[:: max(1, len(rested) // (wanted * 8))]:
        _, lines = rows_of(text, [ref])
        if any(row[column] in ("3", "4") for row in csv.reader(lines)):
            found.append(ref)
        if len(found) == wanted:
            break
    return found


def measure(folder: Path, study: int, repeat: int) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from vigil.fleet.stored import record_summary
    from vigil.results.compact import unpack
    from vigil.store import operator_settings
    from vigil.web.app import create_app
    from vigil.worker import jobs
    from vigil.worker.roster_job import ScoredRoster
    from vigil.worker.run import Worker
    from vigil.worker.summaries import Summariser

    month = read_month(folder)
    text, scores = month.text, month.scores
    ratings = (folder / f"ratings-{study}.csv").read_text(encoding="utf-8")
    stored = unpack(scores, ("KSS",))
    references = stored.references
    picks = _augmented(stored, text, repeat)
    count = len(references)
    del stored
    scored = ScoredRoster([], scores, month.model_version, count, month.sleep, _routes(folder))
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    out: dict[str, Any] = {"schedules": count, "ratings": ratings.count("\n")}

    def note(key: str, seconds: float, cpu_s: float | None = None) -> None:
        times.setdefault(key, []).append(seconds)
        if cpu_s is not None:
            cpu.setdefault(key, []).append(cpu_s)

    with fresh_store() as store:
        sessions = store.sessions
        settings = app_settings(store, warm_start=True)
        summaries = Summariser()
        worker = Worker(sessions, record_summary=record_summary, summaries=summaries)
        with TestClient(create_app(settings)) as client:
            sign_in(client)
            for round_ in range(repeat):
                token, job = upload_and_claim(store, text, f"month {round_}")
                upload_id = job.id
                started, cpu_started = time.perf_counter(), time.process_time()
                status = worker._store(job, scored, lost=False)  # noqa: SLF001 - the worker's step
                note("finish", time.perf_counter() - started, time.process_time() - cpu_started)
                assert status == jobs.JobStatus.COMPLETED_SUCCESSFULLY
                base = f"/console/rosters/{token}"

                def get(path: str, **params: str) -> Any:
                    started, cpu_started = time.perf_counter(), time.process_time()
                    response = client.get(path, params=params)
                    assert response.status_code == 200, (path, response.status_code)
                    return (
                        time.perf_counter() - started,
                        response,
                        time.process_time() - cpu_started,
                    )

                seconds, page, cpu_s = get(base)
                note("dashboard at completion", seconds, cpu_s)
                assert 'data-schedule="' in page.text
                note("dashboard warm", get(base)[0])
                seconds, page, cpu_s = get(f"{base}/whatif", schedule=picks[round_])
                note("what-if page", seconds, cpu_s)
                found = re.search(r'id="whatif-data">(.*?)</script>', page.text, re.S)
                csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
                assert found and csrf
                data = json.loads(found.group(1))
                assert data["crew"], "no augmented duty"
                started, cpu_started = time.perf_counter(), time.process_time()
                answer = client.post(
                    f"{base}/whatif/score",
                    json={**data["draft"], "scale": "KSS"},
                    headers={"X-CSRF-Token": csrf.group(1)},
                )
                assert answer.status_code == 200 and answer.json()["payload"], answer.text[:200]
                note(
                    "what-if first re-score",
                    time.perf_counter() - started,
                    time.process_time() - cpu_started,
                )
                with sessions.begin() as session:
                    obs = operator_settings.create_observation_set(
                        session=session, operator="acme", upload_id=upload_id,
                        name=f"study {round_}", observations_csv=ratings, created_by="officer",
                    )  # fmt: skip
                    obs_token = obs.token
                seconds, page, cpu_s = get(f"/console/calibration/{obs_token}")
                note("first calibration report", seconds, cpu_s)
                note("calibration plot", get(f"/console/calibration/{obs_token}/plot-KSS.svg")[0])
                for kind in ("csv", "xlsx", "pdf"):
                    started, cpu_started = time.perf_counter(), time.process_time()
                    size, first = 0, None
                    with client.stream("GET", f"{base}/export.{kind}") as response:
                        assert response.status_code == 200
                        for piece in response.iter_bytes():
                            if first is None:
                                first = time.perf_counter() - started
                            size += len(piece)
                    note(
                        f"{kind.upper()} export",
                        time.perf_counter() - started,
                        time.process_time() - cpu_started,
                    )
                    note(f"{kind.upper()} first byte", first or 0.0)
                    out[f"{kind}_mib"] = round(size / 2**20, 1)
        summaries.close()
    out["medians"] = {k: round(statistics.median(v), 3) for k, v in times.items()}
    out["cpu"] = {k: round(statistics.median(v), 3) for k, v in cpu.items()}
    out["runs"] = {k: [round(x, 3) for x in v] for k, v in times.items()}
    out["peak_rss_mib"] = round(fleet.peak_rss_mib())
    return out


def main() -> None:
    parser = month_parser(__doc__, 3)
    parser.add_argument("--study", type=int, default=600, help="crew who rated (calibration)")
    args = parser.parse_args()
    folder = fleet.cache_dir(args.crew, args.days)
    if args.measure:  # the child: a fresh process, as a server's
        print(json.dumps(measure(folder, args.study, args.repeat)))
        return
    fleet.prepare(args.crew, args.days)
    prepare_extras(folder, args.study)
    result = run_child(__file__, {n: getattr(args, n) for n in ("crew", "days", "study", "repeat")})
    m = result["medians"]
    load = os.getloadavg()
    print(
        f"the officer's screens, {args.crew} crew × {args.days} d ({result['schedules']} "
        f"schedules), study group {args.study} crew ({result['ratings']:,} ratings); "
        f"medians of {args.repeat} rounds; load average {load[0]:.2f} {load[1]:.2f}"
    )
    print(f"  {'screen':<26} {'before':>17} {'now':>9} {'CPU':>9} {'goal':>8}  met")
    for screen, (before, goal) in SCREENS.items():
        value, cpu_s = m[screen], result["cpu"][screen]
        mark = "-" if goal is None else ("yes" if value <= goal else "NO")
        goal_text = "-" if goal is None else f"≤ {goal:g} s"
        print(f"  {screen:<26} {before:>17} {value:7.2f} s {cpu_s:7.2f} s {goal_text:>8}  {mark}")
    print("  (now: wall-clock median; CPU: the process's CPU seconds, less sensitive to load)")
    print(
        f"  what-if first re-score of the page's draft: {m['what-if first re-score']:.2f} s "
        f"(CPU {result['cpu']['what-if first re-score']:.2f} s)"
    )
    print(
        f"  finish (result and summary stored): {m['finish']:.2f} s "
        f"(CPU {result['cpu']['finish']:.2f} s); dashboard warm "
        f"{m['dashboard warm']:.2f} s; calibration plot {m['calibration plot']:.2f} s"
    )
    print(
        "  first byte: "
        + ", ".join(f"{k} {m[f'{k} first byte']:.2f} s" for k in ("CSV", "XLSX", "PDF"))
        + f"; sizes CSV {result['csv_mib']} / XLSX {result['xlsx_mib']} / "
        f"PDF {result['pdf_mib']} MiB; peak RSS {result['peak_rss_mib']} MiB"
    )
    print("  runs: " + json.dumps(result["runs"]))


if __name__ == "__main__":
    main()
