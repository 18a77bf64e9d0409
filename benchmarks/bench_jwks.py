"""Anonymous JWKS load against a real ``vigil serve``.

Rotates the signing keys three times in a temporary directory, so that three keys are
published, starts ``vigil serve`` (one worker by default) there, then runs 8 anonymous closed-loop
clients fetching ``/.well-known/openid-configuration/jwks`` for a fixed time while one
more client times ``GET /healthz`` every 20 ms. Prints the JWKS throughput and the
``/healthz`` latency (median, p99, max), once per run, and the median of the runs.
Clients run in one separate load-generator process on the same machine (loopback), so
they compete with the server for the same cores: figures are pessimistic.

Goal: at least 200 JWKS requests/s while ``/healthz`` stays under 50 ms median.
Before the fix (every JWKS request re-parsed and validated each RSA PEM, ~60 ms per key):
6–17 requests/s and a ``/healthz`` median of 355 ms.

Run: ``.venv/bin/python benchmarks/bench_jwks.py [--seconds 10] [--runs 3] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from _server import free_port, start_server

JWKS = "/.well-known/openid-configuration/jwks"
CLIENTS = 8


async def _load(base: str, seconds: float) -> dict[str, object]:
    """8 JWKS clients and one /healthz prober, all in this process's event loop."""
    stop_at = time.perf_counter() + seconds
    counts = {"jwks": 0, "errors": 0}
    health: list[float] = []
    limits = httpx.Limits(max_connections=CLIENTS + 1, max_keepalive_connections=CLIENTS + 1)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def hammer() -> None:
            while time.perf_counter() < stop_at:
                response = await client.get(JWKS)
                counts["jwks" if response.status_code == 200 else "errors"] += 1

        async def probe() -> None:
            while time.perf_counter() < stop_at:
                t0 = time.perf_counter()
                response = await client.get("/healthz")
                health.append(time.perf_counter() - t0)
                if response.status_code != 200:
                    counts["errors"] += 1
                await asyncio.sleep(0.02)

        began = time.perf_counter()
        await asyncio.gather(probe(), *(hammer() for _ in range(CLIENTS)))
        elapsed = time.perf_counter() - began
    ms = sorted(h * 1000 for h in health)
    return {
        "jwks_rps": counts["jwks"] / elapsed,
        "errors": counts["errors"],
        "healthz_p50_ms": statistics.median(ms),
        "healthz_p99_ms": ms[min(len(ms) - 1, int(0.99 * len(ms)))],
        "healthz_max_ms": ms[-1],
        "healthz_samples": len(ms),
    }


def _load_process(args: tuple[str, float]) -> dict[str, object]:
    return asyncio.run(_load(*args))


def three_keys(workdir: Path) -> None:
    """Three published keys, as in the issue's measurement (before the server starts)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    for _ in range(3):
        subprocess.run(
            [sys.executable, "-m", "vigil", "keys", "rotate"],
            cwd=workdir,
            env=env,
            check=True,
            capture_output=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    runs: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        three_keys(workdir)
        port = free_port()
        process, _client_id, _secret = start_server(workdir, port, args.workers)
        base = f"http://127.0.0.1:{port}"
        try:
            keys = httpx.get(base + JWKS).json()["keys"]
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(1) as pool:
                pool.apply(_load_process, ((base, 2.0),))  # warm up
                for _ in range(args.runs):
                    runs.append(pool.apply(_load_process, ((base, args.seconds),)))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
    summary = {
        key: statistics.median(float(str(run[key])) for run in runs)
        for key in ("jwks_rps", "healthz_p50_ms", "healthz_p99_ms", "healthz_max_ms")
    }
    result = {
        "name": "jwks",
        "published_keys": len(keys),
        "clients": CLIENTS,
        "workers": args.workers,
        "seconds": args.seconds,
        "runs": runs,
        **summary,
        "errors": sum(int(str(run["errors"])) for run in runs),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"JWKS, {CLIENTS} anonymous clients, {len(keys)} published keys, vigil serve "
        f"--workers {args.workers}, {args.runs} runs of {args.seconds:.0f} s"
    )
    for i, run in enumerate(runs, 1):
        print(
            f"  run {i}: {float(str(run['jwks_rps'])):.0f} req/s; /healthz median "
            f"{float(str(run['healthz_p50_ms'])):.1f} ms, p99 "
            f"{float(str(run['healthz_p99_ms'])):.1f} ms, max "
            f"{float(str(run['healthz_max_ms'])):.1f} ms; errors {run['errors']}"
        )
    print(
        f"median: {summary['jwks_rps']:.0f} req/s; /healthz median "
        f"{summary['healthz_p50_ms']:.1f} ms"
    )
    met = summary["jwks_rps"] >= 200 and summary["healthz_p50_ms"] < 50
    print(f"goal (>= 200 req/s, /healthz median < 50 ms): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
