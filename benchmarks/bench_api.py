"""Load benchmark of ProcessFatigue over real HTTP (issue 6).

Starts ``vigil serve --workers 2`` in a temporary directory, takes a token, then sends a
28-day single-crew ProcessFatigue (predicted sleep) at 1, 10 and 50 concurrent clients
for a fixed time each, and prints requests per second and p50/p99 latency. Clients are
closed-loop and spread over load-generator processes of at most 10 each (one asyncio
client with 50 connections is itself the bottleneck). They run on the same machine
(loopback only), so they compete with the server for the same two cores.

Goal (issue 6): at least 200 requests/s and p99 under 100 ms at 50 concurrent clients.

Run: ``.venv/bin/python benchmarks/bench_api.py [--seconds 10] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import signal
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
from _server import free_port, start_server

from vigil.roster.synthetic import generate_roster


async def _clients(
    base: str, token: str, body: bytes, concurrency: int, seconds: float
) -> tuple[list[float], int, float]:
    """``concurrency`` closed-loop clients in this process: latencies, errors, elapsed."""
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + seconds
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def user() -> None:
            nonlocal errors
            while time.perf_counter() < stop_at:
                t0 = time.perf_counter()
                response = await client.post(
                    "/api/Processor/ProcessFatigue", content=body, headers=headers
                )
                latencies.append(time.perf_counter() - t0)
                if response.status_code != 200:
                    errors += 1

        began = time.perf_counter()
        await asyncio.gather(*(user() for _ in range(concurrency)))
        elapsed = time.perf_counter() - began
    return latencies, errors, elapsed


def _client_process(args: tuple[str, str, bytes, int, float]) -> tuple[list[float], int, float]:
    return asyncio.run(_clients(*args))


#: clients per load-generator process: one asyncio client with many connections spends
#: more time in its own connection pool than the server spends answering
CLIENTS_PER_PROCESS = 10


def run_level(
    base: str, token: str, body: bytes, concurrency: int, seconds: float
) -> dict[str, float]:
    """``concurrency`` clients spread over processes of at most 10; merged figures."""
    processes = max(1, -(-concurrency // CLIENTS_PER_PROCESS))
    share = [concurrency // processes + (i < concurrency % processes) for i in range(processes)]
    if processes == 1:
        parts = [asyncio.run(_clients(base, token, body, concurrency, seconds))]
    else:
        with multiprocessing.get_context("spawn").Pool(processes) as pool:
            parts = pool.map(_client_process, [(base, token, body, n, seconds) for n in share])
    latencies = [x for part in parts for x in part[0]]
    errors = sum(part[1] for part in parts)
    elapsed = max(part[2] for part in parts)
    lat = np.asarray(latencies) * 1000
    return {
        "concurrency": concurrency,
        "requests": len(latencies),
        "errors": errors,
        "rps": len(latencies) / elapsed,
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each level")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    roster = generate_roster(1, 28, seed=3)
    body = json.dumps(
        {"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}
    ).encode()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process, client_id, secret = start_server(Path(tmp), port, args.workers)
        base = f"http://127.0.0.1:{port}"
        try:
            token = httpx.post(
                f"{base}/connect/token",
                data={"grant_type": "client_credentials", "scope": "svc_fast_safe_api"},
                auth=(client_id, secret),
            ).json()["access_token"]
            run_level(base, token, body, 8, 5.0)  # JIT caches load in every worker
            levels = [run_level(base, token, body, c, args.seconds) for c in (1, 10, 50)]
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    duties = roster.count("\n")
    if args.json:
        print(json.dumps({"name": "api", "duties_per_request": duties, "levels": levels}))
        return
    print(
        f"ProcessFatigue, 28-day single crew ({duties} duties), vigil serve --workers "
        f"{args.workers}, {args.seconds:.0f} s per level"
    )
    print(f"{'clients':>8} {'requests':>9} {'errors':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for level in levels:
        print(
            f"{level['concurrency']:>8} {level['requests']:>9} {level['errors']:>7} "
            f"{level['rps']:>8.1f} {level['p50_ms']:>8.1f} {level['p99_ms']:>8.1f}"
        )
    top = levels[-1]
    verdict = "met" if top["rps"] >= 200 and top["p99_ms"] < 100 else "NOT met"
    print(f"goal at 50 clients (>= 200 req/s, p99 < 100 ms): {verdict}")


if __name__ == "__main__":
    main()
