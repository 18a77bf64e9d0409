"""The batch endpoint's figures for ``bench_optimise.py --http`` (POST /api/Optimise/Evaluate).

Starts ``vigil serve --workers 1`` in a temporary directory, takes a token with the risk
scope, sends each batch of candidates (one request each, columnar JSON) after one warm-up
request (kernels, the base roster's engine), and measures per request the wall time and
the server process tree's CPU time (user + system, psutil): evaluations per second and
server CPU per evaluation, medians over the batches.
"""

from __future__ import annotations

import contextlib
import csv
import io
import signal
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import orjson
from _server import free_port, start_server

from vigil.optimise.synthetic import CandidateSet
from vigil.roster.synthetic import render_roster


def _tree_cpu(pid: int) -> float:
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = process.cpu_times()
            total += times.user + times.system
    return total


def request_body(base: str, cs: CandidateSet) -> bytes:
    """The columnar request of a candidate set (window rows + Candidate)."""
    header: list[str] = []
    rows: list[list[str]] = []
    for k, window in enumerate(cs.windows):
        if not window:
            continue
        text = render_roster([replace(d, reference=cs.crew[k]) for d in window])
        head, *body = list(csv.reader(io.StringIO(text)))
        header = [*head, "Candidate"]
        rows += [[*r, f"c{k}"] for r in body]
    columns = {name: [r[j] for r in rows] for j, name in enumerate(header)}
    return orjson.dumps({"BaseRosterData": base, "DateFormat": "dmy", "Candidates": columns})


def http_figures(base: str, sets: list[CandidateSet], runs: int) -> dict[str, Any]:
    bodies = [request_body(base, cs) for cs in sets]
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process, client_id, secret = start_server(Path(tmp), port, 1)
        url = f"http://127.0.0.1:{port}"
        try:
            token = httpx.post(
                f"{url}/connect/token",
                data={"grant_type": "client_credentials", "scope": "svc_fast_safe_risk_api"},
                auth=(client_id, secret),
            ).json()["access_token"]
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            with httpx.Client(timeout=600) as client:
                warm = client.post(
                    f"{url}/api/Optimise/Evaluate", content=bodies[0], headers=headers
                )
                warm.raise_for_status()
                walls, cpus, counts = [], [], []
                for body in bodies[:runs]:
                    cpu0, t0 = _tree_cpu(process.pid), time.perf_counter()
                    answer = client.post(
                        f"{url}/api/Optimise/Evaluate", content=body, headers=headers
                    )
                    walls.append(time.perf_counter() - t0)
                    cpus.append(_tree_cpu(process.pid) - cpu0)
                    answer.raise_for_status()
                    counts.append(len(answer.json()["candidate"]))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    n = statistics.median(counts)
    return {
        "http_candidates_per_request": n,
        "http_per_s_wall": round(n / statistics.median(walls)),
        "http_server_cpu_ms_per_eval": round(1000 * statistics.median(cpus) / n, 3),
        "http_request_mib": round(len(bodies[0]) / 2**20, 2),
    }
