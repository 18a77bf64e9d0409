"""Fleet view at airline size: 10,000 crew × 28 days.

1. Generates ``generate_airline_roster(crew, days)`` and scores it the way the worker does
   (:func:`vigil.worker.run.score_roster`, local processes), once: the scores and sleep
   blobs are cached in ``~/.cache/vigil/bench-fleet`` (keyed by crew, days, seed and
   model version), since scoring is not what this measures.
2. In a fresh process (so its peak RSS is the server's, not the scorer's): stores the
   upload and its result in SQLite as the worker does, times the summary hook
   (:func:`vigil.fleet.stored.record_summary`, once per roster), then serves the embedded
   app in-process (Starlette's TestClient, a signed-in console user) and times, each
   median of ``--repeat`` requests: the dashboard page, a schedule's chart, the schedules
   table sorted by time above warning and filtered by Fleet, the XLSX and the PDF.

Budgets: dashboard ≤ 2 s, chart ≤ 0.5 s, sorted table ≤ 1 s, XLSX ≤ 10 s,
PDF ≤ 20 s, peak RSS ≤ 1.5 GiB. Timings on a shared machine vary with load: the load
average is printed next to them.

    .venv/bin/python benchmarks/bench_fleet.py [--crew 10000 --days 28 --repeat 3]
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _month_store import (
    app_settings,
    fresh_store,
    month_parser,
    read_month,
    run_child,
    sign_in,
    store_month,
)

BUDGETS = {"dashboard": 2.0, "chart": 0.5, "sorted_table": 1.0, "xlsx": 10.0, "pdf": 20.0}
RSS_BUDGET_MIB = 1536.0
SEED = 16


def cache_dir(crew: int, days: int, seed: int = SEED, name: str = "bench-fleet") -> Path:
    from vigil.model import MODEL_VERSION

    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "vigil"
    return root / name / f"{crew}x{days}-s{seed}-{MODEL_VERSION}"


def prepare(crew: int, days: int, seed: int = SEED, name: str = "bench-fleet") -> Path:
    """Roster text, scores and sleep blobs of ``generate_airline_roster(crew, days, seed)``,
    scored as an upload stores them (cached under ``name``; also bench_results.py's)."""
    folder = cache_dir(crew, days, seed, name)
    if (folder / "scores.bin").exists():
        return folder
    from vigil.domain import DateFormat
    from vigil.roster.synthetic import generate_airline_roster
    from vigil.scoring.service import SCALE_CODES, ScoreRequest
    from vigil.worker.run import score_roster
    from vigil.worker.scorers import ProcessScorer

    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    text = generate_airline_roster(crew, days, seed)
    request = ScoreRequest(
        roster_text=text,
        date_format=DateFormat.DMY,
        scale="KSS",
        risk=True,
        extra_scales=tuple(s for s in SCALE_CODES if s != "KSS"),
    )
    scorer = ProcessScorer(os.cpu_count() or 1)
    try:
        scored = score_roster(request, chunk_size=500, local=scorer)
    finally:
        scorer.close()
    (folder / "roster.csv").write_text(text, encoding="utf-8")
    (folder / "sleep.bin").write_bytes(scored.sleep or b"")
    (folder / "meta.json").write_text(json.dumps({"model_version": scored.model_version}))
    (folder / "scores.bin").write_bytes(scored.scores)
    print(f"prepared {crew} crew × {days} d in {time.perf_counter() - started:.0f} s", flush=True)
    return folder


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed(fn: Any, repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def measure(folder: Path, repeat: int) -> dict[str, Any]:
    import re

    from fastapi.testclient import TestClient

    from vigil.web.app import create_app

    out: dict[str, Any] = {}
    with fresh_store() as store:
        month = read_month(folder)
        token, summary_s = store_month(store, month)
        out["summary_at_finish_s"] = round(summary_s, 2)
        del month
        with TestClient(create_app(app_settings(store))) as client:
            sign_in(client)
            base = f"/console/rosters/{token}"

            def get(path: str, **params: str) -> Any:
                response = client.get(path, params=params)
                assert response.status_code == 200, (path, response.status_code)
                return response

            out["dashboard_s"], page = timed(lambda: get(base), repeat)
            refs = re.findall(r'<tr data-schedule="([^"]+)" data-risk', page.text)
            middle = refs[len(refs) // 2]
            out["chart_s"], _ = timed(lambda: get(f"{base}/chart", schedule=middle), repeat)
            out["sorted_table_s"], _ = timed(
                lambda: get(base, sort="above", order="desc", fleet="A320"), repeat
            )
            out["xlsx_s"], xlsx = timed(lambda: get(f"{base}/export.xlsx"), 1)
            out["pdf_s"], pdf = timed(lambda: get(f"{base}/export.pdf"), 1)
            out["csv_s"], csv_ = timed(lambda: get(f"{base}/export.csv"), 1)
            out["sizes_mib"] = {
                "xlsx": round(len(xlsx.content) / 2**20, 1),
                "pdf": round(len(pdf.content) / 2**20, 2),
                "csv": round(len(csv_.content) / 2**20, 1),
            }
    out["peak_rss_mib"] = round(peak_rss_mib())
    return out


def main() -> None:
    parser = month_parser(__doc__, 3)
    args = parser.parse_args()
    if args.measure:  # the child: a fresh process for an honest peak RSS
        result = measure(cache_dir(args.crew, args.days), args.repeat)
        print(json.dumps(result))
        return
    prepare(args.crew, args.days)
    result = run_child(__file__, {"crew": args.crew, "days": args.days, "repeat": args.repeat})
    load = os.getloadavg()
    print(f"fleet view, {args.crew} crew × {args.days} d (load average {load[0]:.2f})")
    print(f"  summary computed once at finish: {result['summary_at_finish_s']:.2f} s")
    for key, budget in BUDGETS.items():
        value = result[f"{key}_s"]
        mark = "ok" if value <= budget else "OVER"
        print(f"  {key:<13} {value:7.2f} s   budget {budget:5.1f} s  {mark}")
    print(f"  csv           {result['csv_s']:7.2f} s   sizes {result['sizes_mib']} MiB")
    rss = result["peak_rss_mib"]
    print(f"  peak RSS      {rss:7.0f} MiB budget {RSS_BUDGET_MIB:.0f} MiB "
          f"{'ok' if rss <= RSS_BUDGET_MIB else 'OVER'}")  # fmt: skip


if __name__ == "__main__":
    main()
