"""The duty explorer at airline size: 10,000 crew × 28 days (about 140,000 duties).

Reuses bench_fleet.py's scored month (:func:`bench_fleet.prepare`, cached under
``~/.cache/vigil/bench-fleet``; scored once, not what this measures). In a fresh process:
stores the upload and its result in SQLite as the worker does (with the summary hook),
serves the embedded app in-process (Starlette's TestClient, a signed-in console user) and
prints the median of ``--repeat`` requests of:

- ``cold``: the first view of the roster's duties right after it finished, without the
  dashboard (read its packed duty table, build the filter columns), with the per-runtime
  cache emptied before each run (wall median; CPU mean of as many more runs), and from a
  new server (app) each run (wall and CPU medians);
- the same first view opened right after the dashboard, and 5 s after it (the dashboard
  starts building the columns in the background: what the officer waits for then);
- warm views: another page, a sort by report time, the officer's filter (high and very
  high night duties at one home base), a route search, a "driven by" filter;
- the CSV of the officer's filtered view.

Budget (issue: "duty explorer page, sort and filter ≤ 0.5 s") for each warm view and
the first view. Timings
on a shared machine vary with load: the load average is printed next to them.

    .venv/bin/python benchmarks/bench_explorer.py [--crew 10000 --days 28 --repeat 5]
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _month_store import (  # noqa: E402
    app_settings,
    fresh_store,
    month_parser,
    new_server_view,
    read_month,
    run_child,
    sign_in,
    store_month,
)
from bench_fleet import cache_dir, peak_rss_mib, prepare, timed  # noqa: E402

WARM_BUDGET_S = 0.5


def measure(folder: Path, repeat: int) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from vigil.results.compact import unpack
    from vigil.web.app import create_app

    month = read_month(folder)
    out: dict[str, Any] = {"explained": unpack(month.scores, ("KSS",)).drivers is not None}
    with fresh_store() as store:
        token, _ = store_month(store, month)
        del month
        app = create_app(app_settings(store))
        with TestClient(app) as client:
            sign_in(client)
            duties = f"/console/rosters/{token}/duties"
            runtime = app.state.vigil

            def get(path: str, params: Any = None) -> Any:
                response = client.get(path, params=params)
                assert response.status_code == 200, (path, response.status_code)
                return response

            def cold() -> Any:
                runtime.state.duty_explorer = None
                return get(duties)

            out["cold_s"], page = timed(cold, repeat)
            cpu_started = time.process_time()
            for _ in range(repeat):
                cold()
            out["cold_cpu_s"] = (time.process_time() - cpu_started) / repeat
            out["restart_s"], out["restart_cpu_s"] = new_server_view(store, duties, {}, repeat)

            def after_dashboard(pause: float) -> tuple[float, float]:
                """The dashboard (which starts building the columns in the background),
                then the explorer ``pause`` s later: both pages' times."""
                runtime.state.duty_explorer = None
                started = time.perf_counter()
                get(f"/console/rosters/{token}")
                shown = time.perf_counter() - started
                time.sleep(pause)
                started = time.perf_counter()
                get(duties)
                return shown, time.perf_counter() - started

            for pause in (0.0, 5.0, 10.0):
                runs = [after_dashboard(pause) for _ in range(repeat)]
                out[f"after_dashboard_{pause:g}s"] = statistics.median(w for _, w in runs)
                out[f"dashboard_{pause:g}s"] = statistics.median(d for d, _ in runs)
            total = int(re.search(r'data-total="(\d+)"', page.text).group(1))  # type: ignore[union-attr]
            base = re.findall(r'data-base="([^"]*)"', page.text)[0]
            officer = [("band", "high"), ("band", "very-high"), ("kind", "night"), ("base", base)]
            views = {
                "page_2": [("page", "2")],
                "sort_report": [("sort", "report"), ("order", "asc"), ("page", "40")],
                "filter_high_night_base": officer,
                "search_route": [("q", "JFK")],
                "driven_by_night": [("driver", "night"), ("sort", "tod")],
            }
            out["duties"] = total
            out["warm"] = {}
            for name, params in views.items():
                seconds, answer = timed(lambda p=params: get(duties, p), repeat)
                matched = re.search(r'data-matched="(\d+)"', answer.text)
                out["warm"][name] = (round(seconds, 3), int(matched.group(1)) if matched else -1)
            out["csv_s"], csv_ = timed(lambda: get(f"{duties}.csv", officer), repeat)
            out["csv_rows"] = csv_.text.count("\n") - 1
    out["peak_rss_mib"] = round(peak_rss_mib())
    return out


def main() -> None:
    parser = month_parser(__doc__, 5)
    args = parser.parse_args()
    if args.measure:  # the child: a fresh process for an honest peak RSS
        print(json.dumps(measure(cache_dir(args.crew, args.days), args.repeat)))
        return
    prepare(args.crew, args.days)
    result = run_child(__file__, {"crew": args.crew, "days": args.days, "repeat": args.repeat})
    load = os.getloadavg()
    print(f"duty explorer, {args.crew} crew × {args.days} d, {result['duties']:,} duties "
          f"(load average {load[0]:.2f}; medians of {args.repeat})")  # fmt: skip
    if not result["explained"]:
        print("  note: the cached month was scored before risk drivers were stored;")
        print("  'driven by' matches nothing and reasons read 'not stored' (same work)")
    for key, words in (("cold", "cache emptied"), ("restart", "new server")):
        wall, cpu = result[f"{key}_s"], result[f"{key}_cpu_s"]
        mark = "ok" if wall <= WARM_BUDGET_S else "OVER"
        print(f"  first view, {words:<14} {wall:7.3f} s  ({cpu:.3f} CPU-s)  "
              f"budget {WARM_BUDGET_S} s {mark}")  # fmt: skip
    for pause in ("0", "5", "10"):
        wait, shown = result[f"after_dashboard_{pause}s"], result[f"dashboard_{pause}s"]
        print(f"  {pause} s after the dashboard    {wait:7.3f} s"
              f"  (dashboard itself {shown:.3f} s, prefetching)")  # fmt: skip
    for name, (seconds, matched) in result["warm"].items():
        mark = "ok" if seconds <= WARM_BUDGET_S else "OVER"
        print(f"  {name:<26} {seconds:7.3f} s  {matched:>7,} matched  "
              f"budget {WARM_BUDGET_S} s {mark}")  # fmt: skip
    print(f"  csv of the filtered view   {result['csv_s']:7.3f} s  {result['csv_rows']:,} rows")
    print(f"  peak RSS                   {result['peak_rss_mib']:7.0f} MiB")


if __name__ == "__main__":
    main()
