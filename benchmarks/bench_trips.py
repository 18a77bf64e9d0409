"""Trips, hot spots and months compared at airline size: 10,000 crew × 28 days.

Reuses bench_fleet.py's cached month (:func:`bench_fleet.prepare`, scored once and kept
under ``~/.cache/vigil/bench-fleet``). Prints medians of ``--repeat`` runs:

1. the pure steps on the month's duty table: decoding the KSS scores, the duty table,
   grouping the trips (:func:`vigil.fleet.trips.group_trips`), the hot spots, the digest
   and the comparison of two digests;
2. the console, in process (Starlette's TestClient, a signed-in user, the month stored
   twice as two rosters in SQLite, each with its summary and packed tables as the worker
   stores them): the trips page and the compare page the first time, right after the
   rosters finished and without the dashboard (the views kept in memory emptied before
   each run: the cold figures; and from a new server each run: the restart figures),
   then warm, the trips JSON, the compare JSON and CSV once both views are built.

Budgets (issue 31): trips + hot spots page ≤ 0.5 s warm, compare ≤ 1 s; the first view
of either ≤ 0.5 s. The comparison
runs on the month against itself (every pairing matched: the largest join). Timings on a
shared machine vary with load: the load average is printed with them.

    .venv/bin/python benchmarks/bench_trips.py [--crew 10000 --days 28 --repeat 5]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_fleet as fleet  # noqa: E402
from _month_store import (  # noqa: E402
    app_settings,
    fresh_store,
    month_parser,
    new_server_view,
    read_month,
    sign_in,
    store_month,
)

BUDGETS = {
    "trips_page_warm": 0.5,
    "trips_json_warm": 0.5,
    "compare_page_warm": 1.0,
    "trips_page_cold": 0.5,
    "compare_page_cold": 0.5,
    "trips_page_restart": 0.5,
    "compare_page_restart": 0.5,
}


def pure_steps(folder: Path, repeat: int) -> dict[str, Any]:
    from vigil.fleet.compare import compare, digest
    from vigil.fleet.hot_spots import hot_spots
    from vigil.fleet.table import duty_table
    from vigil.fleet.trips import group_trips
    from vigil.results.compact import unpack

    scores = (folder / "scores.bin").read_bytes()
    out: dict[str, Any] = {}
    out["unpack_kss_s"], stored = fleet.timed(lambda: unpack(scores, ("KSS",)), repeat)
    facts = _facts(folder, stored)
    out["duty_table_s"], table = fleet.timed(lambda: duty_table(stored, facts, "KSS"), repeat)
    out["duties"] = len(table)
    bases = facts.base_lists()
    out["group_trips_s"], trips = fleet.timed(lambda: group_trips(table, bases), repeat)
    out["trips"] = len(trips)
    out["hot_spots_s"], _ = fleet.timed(lambda: hot_spots(table, trips), repeat)
    out["digest_s"], d = fleet.timed(lambda: digest(table, trips), repeat)
    out["compare_s"], found = fleet.timed(lambda: compare(d, d), repeat)
    out["patterns"] = len(trips.patterns)
    out["pairing_duties"] = found["pairings"]["matched"]
    return out


def _facts(folder: Path, stored: Any) -> Any:
    """The month's roster facts, from the roster text (what the worker gathers)."""
    from vigil.domain import DateFormat
    from vigil.fleet.table import roster_facts
    from vigil.roster import parse_request

    text = (folder / "roster.csv").read_text(encoding="utf-8")
    parsed = parse_request(text, DateFormat.DMY, sleep_data=[])
    return roster_facts(stored, parsed.schedules)


def console_steps(folder: Path, repeat: int) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from vigil.web.app import create_app

    out: dict[str, Any] = {}
    with fresh_store() as store:
        month = read_month(folder)
        tokens = [store_month(store, month, name)[0] for name in ("february", "march")]
        del month
        with TestClient(create_app(app_settings(store))) as client:
            sign_in(client)
            a, b = tokens

            def get(path: str, **params: str) -> Any:
                response = client.get(path, params=params)
                assert response.status_code == 200, (path, response.status_code)
                return response

            state = client.app.state.vigil.state  # type: ignore[attr-defined]

            def cold(path: str, **params: str) -> Any:
                state.roster_views = None  # the views kept in memory: none
                return get(path, **params)

            out["trips_page_cold_s"], out["trips_page_cold_cpu_s"] = timed_cpu(
                lambda: cold(f"/console/rosters/{a}/trips"), repeat
            )
            out["compare_page_cold_s"], out["compare_page_cold_cpu_s"] = timed_cpu(
                lambda: cold("/console/compare", a=a, b=b), repeat
            )
            get(f"/console/rosters/{a}/trips")
            out["trips_page_warm_s"], _ = fleet.timed(
                lambda: get(f"/console/rosters/{a}/trips"), repeat
            )
            out["trips_page_search_s"], _ = fleet.timed(
                lambda: get(f"/console/rosters/{a}/trips", q="JFK", page="2"), repeat
            )
            out["trips_json_warm_s"], _ = fleet.timed(
                lambda: get(f"/console/rosters/{a}/trips.json"), repeat
            )
            out["compare_page_warm_s"], page = fleet.timed(
                lambda: get("/console/compare", a=a, b=b), repeat
            )
            out["compare_json_warm_s"], body = fleet.timed(
                lambda: get("/console/compare.json", a=a, b=b), repeat
            )
            out["compare_csv_warm_s"], csv_ = fleet.timed(
                lambda: get("/console/compare.csv", a=a, b=b), repeat
            )
            out["compare_json_mib"] = round(len(body.content) / 2**20, 1)
            out["compare_csv_mib"] = round(len(csv_.content) / 2**20, 1)
            del page
        for name, path, params in (
            ("trips_page_restart_s", f"/console/rosters/{a}/trips", {}),
            ("compare_page_restart_s", "/console/compare", {"a": a, "b": b}),
        ):
            out[name], out[f"{name.removesuffix('_s')}_cpu_s"] = new_server_view(
                store, path, params, repeat
            )
    out["peak_rss_mib"] = round(fleet.peak_rss_mib())
    return out


def timed_cpu(fn: Any, repeat: int) -> tuple[float, float]:
    """Medians of ``repeat`` calls: wall time and the process's CPU time."""
    times, cpu = [], []
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    parser = month_parser(__doc__, 5, child=False)
    args = parser.parse_args()
    folder = fleet.prepare(args.crew, args.days)
    started = time.perf_counter()
    pure = pure_steps(folder, args.repeat)
    console = console_steps(folder, args.repeat)
    load = os.getloadavg()
    print(
        f"trips, hot spots, months compared: {args.crew} crew × {args.days} d, "
        f"{pure['duties']:,} duties, {pure['trips']:,} trips, {pure['patterns']:,} patterns "
        f"(load average {load[0]:.2f}; medians of {args.repeat})"
    )
    for key, value in pure.items():
        if key.endswith("_s"):
            print(f"  {key:<22} {value:7.3f} s")
    print(f"  pairing duties matched {pure['pairing_duties']:,}")
    for key, value in console.items():
        if key.endswith("_s"):
            budget = BUDGETS.get(key.removesuffix("_s"))
            mark = (
                ""
                if budget is None
                else f"  budget {budget:.1f} s {'ok' if value <= budget else 'OVER'}"
            )
            print(f"  {key:<22} {value:7.3f} s{mark}")
    print(f"  compare JSON {console['compare_json_mib']} MiB, CSV {console['compare_csv_mib']} MiB")
    print(f"  peak RSS {console['peak_rss_mib']} MiB; all in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
