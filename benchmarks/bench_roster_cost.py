"""What a hostile roster costs a real ``vigil serve``, and what another tenant feels meanwhile.

The attack this measures: References with two 6-h duties far apart. Before the span limit
and long-gap segments, 31 such schedules (63 rows, 3.4 KB) sent to ProcessFatigue took
9 s of CPU on the event loop (``/healthz`` 9.8 s, another tenant's token 10.7 s), and an
upload of 150 (16 KB) 93 s of worker CPU and +3.1 GB while another tenant's 3-row roster
waited 133 s. Cases, each against one server (one process, SQLite, default settings):

- ``sync31_199y``: ProcessFatigue, 31 schedules 199 years apart (now span errors);
- ``sync31_399d_away``: the same 399 days apart with the gap spent away (JFK), the most a
  schedule may cost now (not cut: reference §9.4's rested state needs home);
- ``upload150_199y`` and ``upload150_399d_away``: UploadRoster of 150 such schedules, until
  its results are ready.

Meanwhile a second tenant (its own client) asks for a token and ``/healthz`` every 50 ms
(sync cases) or uploads a 3-row roster and waits for its results (upload cases). Printed
per case: server CPU (the process and its scoring children), peak RSS growth, the
attacker's wall time, and the other tenant's median and worst latency; medians of
``--runs`` runs (a new server each run).

    .venv/bin/python benchmarks/bench_roster_cost.py [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
from _server import free_port, start_server

SMALL = "\r\n".join(
    [
        "S1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "S1,03/03/2026,07:00,LHR,03/03/2026,15:00,LHR,LHR,0",
        "S2,02/03/2026,09:00,JFK,02/03/2026,17:05,BOS,JFK,1",
    ]
)


def pairs(n: int, first: str, second: str, end: str = "LHR") -> str:
    rows = []
    for i in range(n):
        rows.append(f"R{i},{first},06:00,LHR,{first},12:00,{end},LHR,0")
        rows.append(f"R{i},{second},06:00,{end},{second},12:00,{end},LHR,0")
    return "\r\n".join(rows)


CASES: dict[str, tuple[str, str]] = {
    "sync31_199y": ("sync", pairs(31, "01/01/1901", "01/01/2100")),
    "sync31_399d_away": ("sync", pairs(31, "01/01/2026", "04/02/2027", "JFK")),
    "upload150_199y": ("upload", pairs(150, "01/01/1901", "01/01/2100")),
    "upload150_399d_away": ("upload", pairs(150, "01/01/2026", "04/02/2027", "JFK")),
}


def tree_cpu(process: psutil.Process) -> float:
    """CPU seconds of ``process``, its live children (scoring processes) and the children
    it has already reaped."""
    own = process.cpu_times()
    total = own.user + own.system + own.children_user + own.children_system
    for p in process.children(recursive=True):
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def tree_rss(process: psutil.Process) -> int:
    total = 0
    for p in [process, *process.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def token(base: str, client_id: str, secret: str, scope: str) -> str:
    answer = httpx.post(
        f"{base}/connect/token",
        data={"grant_type": "client_credentials", "scope": scope},
        auth=(client_id, secret),
        timeout=300,
    )
    answer.raise_for_status()
    return str(answer.json()["access_token"])


def upload_and_wait(base: str, bearer: str, roster: str, name: str) -> float:
    """Seconds from UploadRoster to a finished status."""
    headers = {"Authorization": f"Bearer {bearer}"}
    started = time.monotonic()
    sent = httpx.post(
        f"{base}/api/UploadRoster",
        json={"RosterData": roster, "DateFormat": "dmy", "RosterName": name},
        headers=headers,
        timeout=300,
    )
    sent.raise_for_status()
    roster_token = sent.json()["rosterToken"]
    while True:
        status = httpx.get(
            f"{base}/api/GetResults",
            params={"rosterToken": roster_token, "dataKey": "status"},
            headers=headers,
            timeout=300,
        ).json()["status"]
        if status not in ("queued", "processing"):
            return time.monotonic() - started
        time.sleep(0.05)


def meanwhile(job: Callable[[], None], probe: Callable[[], None]) -> tuple[float, list[float]]:
    """Run ``job``; call ``probe`` every 50 ms until it ends; (job s, probe latencies)."""
    latencies: list[float] = []
    done = threading.Event()

    def probing() -> None:
        while not done.is_set():
            t = time.monotonic()
            probe()
            latencies.append(time.monotonic() - t)
            time.sleep(0.05)

    thread = threading.Thread(target=probing)
    started = time.monotonic()
    thread.start()
    try:
        job()
    finally:
        took = time.monotonic() - started
        done.set()
        thread.join()
    return took, latencies


def one_run(case: str) -> dict[str, Any]:
    kind, roster = CASES[case]
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process, client_id, secret = start_server(Path(tmp), port, 1)
        base = f"http://127.0.0.1:{port}"
        try:
            env = {**os.environ, "VIGIL_DATA_DIR": tmp}
            made = subprocess.run(
                [sys.executable, "-m", "vigil", "client", "create", "--operator", "other",
                 "--create-operator", "--json"],
                env=env, capture_output=True, text=True, check=True,
            )  # fmt: skip
            other = json.loads(made.stdout)
            other_id, other_secret = other["client_id"], other["client_secret"]
            server = psutil.Process(process.pid)
            scope = "svc_fast_safe_api" if kind == "sync" else "svc_safe_upload_api"
            mine = token(base, client_id, secret, scope)
            upload_scope = "svc_safe_upload_api"
            theirs = token(base, other_id, other_secret, upload_scope)
            time.sleep(1.0)
            cpu0, rss0 = tree_cpu(server), tree_rss(server)
            peak = [rss0]
            stop = threading.Event()

            def sample() -> None:
                while not stop.is_set():
                    peak[0] = max(peak[0], tree_rss(server))
                    time.sleep(0.02)

            sampler = threading.Thread(target=sample)
            sampler.start()
            if kind == "sync":

                def job() -> None:
                    answer = httpx.post(
                        f"{base}/api/Processor/ProcessFatigue",
                        json={"RosterData": roster, "SleepData": [], "DateFormat": "dmy",
                              "PreferredScale": "KSS"},
                        headers={"Authorization": f"Bearer {mine}"},
                        timeout=600,
                    )  # fmt: skip
                    assert answer.status_code in (200, 413), answer.text[:200]

                health: list[float] = []

                def probe() -> None:
                    t = time.monotonic()
                    httpx.get(f"{base}/healthz", timeout=600)
                    health.append(time.monotonic() - t)
                    token(base, other_id, other_secret, upload_scope)

                took, latencies = meanwhile(job, probe)
            else:
                other_wait: list[float] = []

                def job() -> None:
                    upload_and_wait(base, mine, roster, "attack")

                def probe() -> None:
                    if not other_wait:
                        other_wait.append(upload_and_wait(base, theirs, SMALL, "small"))

                took, latencies = meanwhile(job, probe)
                latencies = other_wait or latencies
                health = [0.0]
            stop.set()
            sampler.join()
            cpu = tree_cpu(server) - cpu0
        finally:
            process.terminate()
            process.wait(60)
    return {
        "cpu_s": cpu,
        "rss_growth_mib": (peak[0] - rss0) / 2**20,
        "attacker_s": took,
        "other_median_s": statistics.median(latencies) if latencies else 0.0,
        "other_max_s": max(latencies) if latencies else 0.0,
        "healthz_max_s": max(health) if health else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="comma list of cases (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chosen = [c for c in CASES if not args.only or c in args.only.split(",")]
    summary: dict[str, dict[str, float]] = {}
    for case in chosen:
        runs = [one_run(case) for _ in range(args.runs)]
        summary[case] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        s = summary[case]
        print(
            f"{case}: server CPU {s['cpu_s']:.2f} s, RSS +{s['rss_growth_mib']:.0f} MiB, "
            f"attacker {s['attacker_s']:.2f} s; other tenant (sync: /healthz + token; upload: "
            f"its 3-row roster) median {s['other_median_s']:.3f} s, worst "
            f"{s['other_max_s']:.3f} s, /healthz worst {s['healthz_max_s']:.3f} s "
            f"(medians of {args.runs} runs)",
            flush=True,
        )
    if args.json:
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
