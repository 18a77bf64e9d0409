"""Every benchmark of the project in one command, and one table.

Runs each ``benchmarks/bench_*.py`` as a child process, one after another (they would
compete for the cores otherwise), reads its figures — its one-line JSON where the
script has ``--json``, else its printed lines — and prints one Markdown table:
name, workload, figure, goal. A benchmark that fails or times out shows that in its row
and makes the exit status 1; the others still run.

    .venv/bin/python benchmarks/run_all.py              # full sizes (about 15-20 min)
    .venv/bin/python benchmarks/run_all.py --quick      # small sizes (about 3-4 min)
    .venv/bin/python benchmarks/run_all.py --only api,load --json

The table starts with the date and the machine (CPU model, cores, memory, Python) so it
can be pasted into the README as it is.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

Figures = tuple[str, str]  # (workload, figure)


@dataclass(frozen=True)
class Bench:
    """One benchmark script: how to run it (full and quick) and read its figures."""

    name: str
    script: str
    args: tuple[str, ...]
    quick: tuple[str, ...]
    goal: str
    read: Callable[[str], Figures]
    json: bool = False
    env: tuple[tuple[str, str], ...] = ()


def _find(pattern: str, text: str) -> re.Match[str]:
    found = re.search(pattern, text, re.MULTILINE)
    if found is None:
        raise ValueError(f"no match for {pattern!r}")
    return found


def _last_json(text: str) -> dict[str, Any]:
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            return dict(json.loads(line))
    raise ValueError("no JSON line in the output")


def read_roster(out: str) -> Figures:
    head = _find(r"^roster: (\d+) crew x (\d+) days = (\d+) rows", out)
    best = _find(r"^best warm run: ([\d.]+) s wall, ([\d,]+) rows/s", out)
    return (
        f"parse {head[1]} crew x {head[2]} d ({int(head[3]):,} rows)",
        f"{best[1]} s ({best[2]} rows/s)",
    )


def read_model(out: str) -> Figures:
    head = _find(r"^crew=(\d+) days=(\d+) step=([\d.]+) min samples=([\d,]+)", out)
    best = _find(r"^steady state, best of 3: ([\d.]+) s", out)
    rate = _find(r"samples/s", out)
    samples = _find(r"([\d,]+) samples/s", out[rate.start() - 40 :])
    return (
        f"alertness {head[1]} crew x {head[2]} d, {head[3]}-min steps, 1 thread",
        f"{float(best[1]):.2f} s ({samples[1]} samples/s)",
    )


def read_sleep(out: str) -> Figures:
    head = _find(r"^schedules (\d+), duties (\d+), crew-days (\d+)", out)
    total = _find(r"^predict_sleep end to end\s+([\d.]+) s\s+([\d,]+) crew-days/s", out)
    return (
        f"predict sleep, {head[1]} crew ({int(head[2]):,} duties), 1 thread",
        f"{total[1]} s ({total[2]} crew-days/s)",
    )


def read_score(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"vigil score, {r['workload']}",
        f"given sleep {r['given_s']} s / {r['given_peak_mib']} MiB; "
        f"predicted {r['predicted_s']} s / {r['predicted_peak_mib']} MiB",
    )


def read_api(out: str) -> Figures:
    r = _last_json(out)
    top = max(r["levels"], key=lambda level: level["concurrency"])
    return (
        f"ProcessFatigue, 28-d single crew, {top['concurrency']} clients, serve --workers 2",
        f"{top['rps']:.0f} req/s, p50 {top['p50_ms']:.0f} ms, p99 {top['p99_ms']:.0f} ms, "
        f"{top['errors']} errors",
    )


def read_jwks(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"JWKS, {r['clients']} anonymous clients, {r['published_keys']} keys, "
        f"serve --workers {r['workers']}",
        f"{r['jwks_rps']:.0f} req/s; /healthz median {r['healthz_p50_ms']:.1f} ms, "
        f"max {r['healthz_max_ms']:.0f} ms; {r['errors']} errors",
    )


def read_upload(out: str) -> Figures:
    head = _find(r"^roster: (\d+) crew x (\d+) days, (\d+) rows", out)
    modes = re.findall(
        r"^\s*(\w+): (\w+) ready\s+([\d.]+) s .*?server peak RSS (\d+) MiB", out, re.MULTILINE
    )
    if not modes:
        raise ValueError("no mode line")
    figure = "; ".join(f"{m}: {s} s, {rss} MiB" for m, _status, s, rss in modes)
    return f"upload -> results ready, {head[1]} crew x {head[2]} d ({int(head[3]):,} rows)", figure


def read_load(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"locust {r['users']} users x {r['seconds']:.0f} s: token, ProcessFatigue(Risk), "
        "upload, GetResults",
        f"{r['requests']:,} requests, {r['errors']} errors, {r['rps']} req/s, "
        f"p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms",
    )


def read_upload_dos(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"{r['clients']} anonymous x {r['mib']} MiB UploadRoster, vigil serve",
        f"RSS +{r['growth_mib']:.1f} MiB (median of {len(r['runs'])} runs)",
    )


def read_planner(out: str) -> Figures:
    r = _last_json(out)
    return (
        "plan in-flight rest, 28-d history, 14.5 h duty (median)",
        f"4 pilots {r['four_ms']:.0f} ms/duty ({r['four_splits']} splits); "
        f"3 pilots {r['three_ms']:.0f} ms/duty ({r['three_splits']} splits)",
    )


def read_fuzz(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"Hypothesis, {r['workload']}",
        f"{r['examples']:,} examples, {r['failures']} failures; "
        f"worst 8x input -> {r['worst_growth_per_8x']}x time",
    )


def read_integrators(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"first call after /readyz: {r['warm_workload']}; GetResults scores: {r['workload']}",
        f"first call {r['first_call_s']} s (ready {r['ready_s']} s after a cold start); "
        f"scores identity {r['identity_mb']} MB {r['identity_s']} s, "
        f"gzip {r['gzip_mb']} MB {r['gzip_s']} s, br {r['br_mb']} MB {r['br_s']} s, "
        f"zstd {r['zstd_mb']} MB {r['zstd_s']} s",
    )


def read_fleet(out: str) -> Figures:
    head = _find(r"^fleet view, (\d+) crew × (\d+) d", out)
    times = dict(re.findall(r"^\s+(\w+)\s+([\d.]+) s\s+budget", out, re.MULTILINE))
    rss = _find(r"^\s+peak RSS\s+(\d+) MiB", out)
    return (
        f"fleet view, {head[1]} crew x {head[2]} d (stored upload, SQLite)",
        f"dashboard {times['dashboard']} s, chart {times['chart']} s, "
        f"sorted table {times['sorted_table']} s, XLSX {times['xlsx']} s, "
        f"PDF {times['pdf']} s; peak {rss[1]} MiB",
    )


def read_officer(out: str) -> Figures:
    head = _find(r"^the officer's screens, (\d+) crew × (\d+) d", out)
    wall = {
        name: _find(rf"^  {name}\s.*?\s([\d.]+) s\s+[\d.]+ s\s+(?:≤|-)", out)[1]
        for name in (
            "dashboard at completion",
            "what-if page",
            "first calibration report",
            "CSV export",
            "XLSX export",
            "PDF export",
        )
    }
    return (
        f"officer's screens, {head[1]} crew x {head[2]} d (stored upload, SQLite, app in process)",
        ", ".join(f"{name} {value} s" for name, value in wall.items()),
    )


def read_whatif(out: str) -> Figures:
    r = _last_json(out)
    return (
        f"what-if re-score, 28-d schedule ({r['intervals']} intervals), "
        f"{r['pilots']}-pilot stored roster",
        f"{r['unedited_ms']} ms unedited, {r['sleep_moved_ms']} ms sleep moved; "
        f"console plan rest {r['plan_ms']:.0f} ms",
    )


BENCHES: tuple[Bench, ...] = (
    Bench(
        "roster",
        "bench_roster.py",
        (),
        ("--crew", "1000", "--repeat", "2"),
        "<= 3 s for 10k crew x 28 d (one core)",
        read_roster,
    ),
    Bench(
        "model",
        "bench_model.py",
        (),
        ("--crew", "1000"),
        "~1 s for 10k crew x 35 d (docs/model.md)",
        read_model,
        env=(("NUMBA_NUM_THREADS", "1"),),
    ),
    Bench(
        "sleep",
        "bench_sleep.py",
        (),
        ("1000", "28"),
        "<= 3 s for 10k crew x 28 d (one core)",
        read_sleep,
    ),
    Bench(
        "score",
        "bench_score.py",
        ("--json",),
        ("--json", "--crew", "1000"),
        "given sleep <= 10 s and < 2 GiB for 10k x 28 d",
        read_score,
        json=True,
    ),
    Bench(
        "api",
        "bench_api.py",
        ("--json",),
        ("--json", "--seconds", "3"),
        ">= 200 req/s, p99 < 100 ms at 50 clients",
        read_api,
        json=True,
    ),
    Bench(
        "jwks",
        "bench_jwks.py",
        ("--json",),
        ("--json", "--seconds", "3", "--runs", "1"),
        ">= 200 req/s, /healthz median < 50 ms (8 anonymous clients)",
        read_jwks,
        json=True,
    ),
    Bench(
        "upload",
        "bench_upload.py",
        (),
        ("--crew", "1000", "--modes", "local"),
        "results ready; no loss (docs/upload.md)",
        read_upload,
    ),
    Bench(
        "load",
        "bench_load.py",
        ("--json",),
        ("--json", "--seconds", "15"),
        "zero errors (50 users, 60 s)",
        read_load,
        json=True,
    ),
    Bench(
        "upload_dos",
        "bench_upload_dos.py",
        ("--json",),
        ("--json", "--runs", "1"),
        "RSS within 100 MiB of idle",
        read_upload_dos,
        json=True,
    ),
    Bench(
        "integrators",
        "bench_integrators.py",
        ("--json",),
        ("--json", "--crew", "1000"),
        "first call after /readyz <= 1 s (300 crew); scores compressed",
        read_integrators,
        json=True,
    ),
    Bench(
        "fuzz",
        "bench_fuzz.py",
        ("--json",),
        ("--json", "--seconds", "30"),
        "no failure; 8x input < 16x time",
        read_fuzz,
        json=True,
    ),
    Bench(
        "planner",
        "bench_planner.py",
        ("--json",),
        ("--json", "--repeat", "3"),
        "<= 200 ms per duty for 4 pilots",
        read_planner,
        json=True,
    ),
    Bench(
        "whatif",
        "bench_whatif.py",
        ("--json",),
        ("--json", "--repeat", "3", "--crew", "200"),
        "<= 300 ms per re-score",
        read_whatif,
        json=True,
    ),
    Bench(
        "fleet",
        "bench_fleet.py",
        (),
        ("--crew", "1000", "--repeat", "1"),
        "dashboard <= 2 s, chart <= 0.5 s, table <= 1 s, XLSX <= 10 s, PDF <= 20 s, "
        "<= 1.5 GiB (10k crew)",
        read_fleet,
    ),
    Bench(
        "officer",
        "bench_officer.py",
        (),
        ("--crew", "1000", "--study", "100", "--repeat", "1"),
        "dashboard at completion <= 2 s, what-if <= 1 s, calibration <= 3 s, CSV <= 3 s (10k crew)",
        read_officer,
    ),
)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(
            int(line.split()[1]) // 2**20
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
    except (OSError, StopIteration):
        mem = 0
    return (
        f"{cpu}, {os.cpu_count()} cores, {mem} GiB, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}"
    )


def run(bench: Bench, *, quick: bool, timeout: float) -> dict[str, Any]:
    args = bench.quick if quick else bench.args
    env = {**os.environ, **dict(bench.env)}
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, str(HERE / bench.script), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {
            "name": bench.name,
            "ok": False,
            "workload": "-",
            "figure": f"timed out after {timeout:.0f} s",
            "goal": bench.goal,
        }
    row: dict[str, Any] = {
        "name": bench.name,
        "goal": bench.goal,
        "seconds": round(time.monotonic() - started, 1),
    }
    try:
        row["workload"], row["figure"] = bench.read(done.stdout)
        row["ok"] = done.returncode == 0
        if not row["ok"]:
            row["figure"] += f" (exit {done.returncode})"
    except (ValueError, KeyError, json.JSONDecodeError) as exc:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        row.update(ok=False, workload="-", figure=f"failed (exit {done.returncode}): {tail[0]}")
        row["error"] = str(exc)
    if bench.json:
        try:
            row["raw"] = _last_json(done.stdout)
        except ValueError:
            pass
    return row


def table(rows: list[dict[str, Any]], quick: bool) -> str:
    lines = [
        f"Benchmarks, {dt.date.today().isoformat()}{' (--quick sizes)' if quick else ''}: "
        f"{machine()}",
        "",
        "| name | workload | figure | goal |",
        "|---|---|---|---|",
    ]
    for r in rows:
        cells = [r["name"], r["workload"], r["figure"], r["goal"]]
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, short durations")
    parser.add_argument("--only", default="", help="comma list of names (default: all)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="per benchmark [s]")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    wanted = {n.strip() for n in args.only.split(",") if n.strip()}
    unknown = wanted - {b.name for b in BENCHES}
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    rows = []
    for bench in BENCHES:
        if wanted and bench.name not in wanted:
            continue
        print(f"running {bench.name} ...", file=sys.stderr, flush=True)
        rows.append(run(bench, quick=args.quick, timeout=args.timeout))
        print(f"  {rows[-1]['figure']}", file=sys.stderr, flush=True)
    if args.json:
        print(
            json.dumps(
                {
                    "date": dt.date.today().isoformat(),
                    "machine": machine(),
                    "quick": args.quick,
                    "rows": rows,
                },
                indent=1,
            )
        )
    else:
        print(table(rows, args.quick))
    sys.exit(0 if all(r["ok"] for r in rows) else 1)


if __name__ == "__main__":
    main()
