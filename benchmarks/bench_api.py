"""Load benchmark of ProcessFatigue over real HTTP.

Starts ``vigil serve --workers 2`` in a temporary directory, takes a token, then sends a
28-day single-crew ProcessFatigue (predicted sleep) at 1, 10 and 50 concurrent clients
for a fixed time each, and prints requests per second and p50/p99 latency. Clients are
closed-loop and spread over load-generator processes of at most 10 each (one asyncio
client with 50 connections is itself the bottleneck). They run on the same machine
(loopback only), so they compete with the server for the same two cores.

Goal: at least 200 requests/s and p99 under 100 ms at 50 concurrent clients.

``--rate R`` instead holds a constant offered load of R requests/s, open loop:
request i is due at ``i / R`` s whatever the answers before it, and its latency counts
from that due time, so a slow server cannot slow the load down (no coordinated omission).
It reports p50/p99 latency and the **server's CPU per request**: the CPU time (user +
system) of the ``vigil serve`` process and all its workers over the run, from
``/proc`` via psutil, divided by the requests answered. The goals: p99 <= 50 ms
at 200 req/s with ``--workers 2``, and <= 1 ms of server CPU per request.

``--rate R --floor`` puts that figure beside three floors measured the same way: a bare
ASGI app answering ``{}`` under uvicorn, one FastAPI route doing the same
(``_bare_asgi.py``), and ``GET /healthz`` through ``vigil serve``, so a request's CPU
splits into uvicorn, FastAPI, Vigil's middleware and the route's own work.

``--asgi N`` instead calls the embedded app in this process, through its lifespan and
every middleware but without sockets or uvicorn, N times, and prints the CPU per call
(``time.process_time``) twice: with the real scoring, and with ``score`` answering a
stored report (the HTTP layer's own share: routing, authentication, body validation,
settings lookup, compression, access log; the report is still serialised). Both are far
less noisy than the open loop on a shared machine.

Run: ``.venv/bin/python benchmarks/bench_api.py [--seconds 10] [--rate 200 [--floor]] [--json]``
or ``.venv/bin/python benchmarks/bench_api.py --asgi 2000``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import logging
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

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


@dataclass(frozen=True)
class Call:
    """One kind of HTTP request for the open loop: method, path, body, headers."""

    method: str
    path: str
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()


def fatigue_call(token: str, body: bytes) -> Call:
    """ProcessFatigue with ``body``, as the open loop sends it."""
    return Call(
        "POST",
        "/api/Processor/ProcessFatigue",
        body,
        (("Authorization", f"Bearer {token}"), ("Content-Type", "application/json")),
    )


async def _open_loop(base: str, call: Call, rate: float, seconds: float) -> tuple[list[float], int]:
    """Requests due every ``1 / rate`` s for ``seconds``, each timed from its due time."""
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    latencies: list[float] = []
    errors = 0
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def one(due: float) -> None:
            nonlocal errors
            try:
                response = await client.request(
                    call.method, call.path, content=call.body, headers=dict(call.headers)
                )
                errors += response.status_code != 200
            except httpx.HTTPError:
                errors += 1
            latencies.append(time.perf_counter() - due)

        began = time.perf_counter()
        tasks = []
        for i in range(int(rate * seconds)):
            due = began + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(due)))
        await asyncio.gather(*tasks)
    return latencies, errors


def _open_loop_process(args: tuple[str, Call, float, float]) -> tuple[list[float], int]:
    return asyncio.run(_open_loop(*args))


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` and its live descendants."""
    import psutil

    root = psutil.Process(pid)
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = process.cpu_times()
            total += times.user + times.system
    return total


#: requests/s per load-generator process in the open-loop run
RATE_PER_PROCESS = 50


def run_rate(
    base: str, call: Call, rate: float, seconds: float, server_pid: int
) -> dict[str, float]:
    """Open-loop load at ``rate`` req/s over processes of ``RATE_PER_PROCESS``; figures."""
    processes = max(1, math.ceil(rate / RATE_PER_PROCESS))
    cpu_before = _tree_cpu(server_pid)
    began = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        parts = pool.map(_open_loop_process, [(base, call, rate / processes, seconds)] * processes)
    elapsed = time.perf_counter() - began
    cpu = _tree_cpu(server_pid) - cpu_before
    lat = np.asarray([x for part in parts for x in part[0]]) * 1000
    return {
        "rate": rate,
        "requests": int(lat.size),
        "errors": sum(part[1] for part in parts),
        "achieved_rps": lat.size / elapsed,
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
        "server_cpu_ms_per_request": 1000 * cpu / max(lat.size, 1),
    }


@contextlib.contextmanager
def vigil_server(workers: int, body: bytes) -> Iterator[tuple[str, str, int]]:
    """``vigil serve --workers N`` in a temporary directory, warmed up with ``body``:
    its base URL, a token with the scoring scopes, and its process ID."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process, client_id, secret = start_server(Path(tmp), port, workers)
        base = f"http://127.0.0.1:{port}"
        try:
            token = httpx.post(
                f"{base}/connect/token",
                data={"grant_type": "client_credentials", "scope": "svc_fast_safe_api"},
                auth=(client_id, secret),
            ).json()["access_token"]
            run_level(base, token, body, 8, 5.0)  # JIT caches load in every worker
            yield base, token, process.pid
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


def _bare_server(app: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    """``_bare_asgi:<app>`` under uvicorn as ``vigil serve`` runs (no access log), ready."""
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", f"_bare_asgi:{app}", "--port", str(port)]
        + ["--workers", str(workers), "--no-access-log", "--lifespan", "off"],
        cwd=Path(__file__).parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/").status_code == 200:
                time.sleep(2)  # every worker up
                return process
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the bare ASGI server did not start")


def run_floor(body: bytes, rate: float, seconds: float, workers: int) -> dict[str, float]:
    """Server CPU per request at ``rate``, open loop, for four servers/routes (``--floor``).

    1. ``bare``: an ASGI app that answers ``{}``, under uvicorn (sockets, HTTP parsing);
    2. ``fastapi``: one ``async`` FastAPI route answering ``{}``, no middleware;
    3. ``healthz``: ``GET /healthz`` through ``vigil serve`` (every middleware, routing,
       the access log, no authentication);
    4. ``fatigue``: ProcessFatigue, as ``--rate`` measures it.

    The differences split a scoring request's server CPU into uvicorn, FastAPI, Vigil's
    middleware and the route's own work, under the same load as the goal is measured.
    """
    figures: dict[str, float] = {"errors": 0}
    for app, name in (("app", "bare_ms"), ("fastapi_app", "fastapi_ms")):
        port = free_port()
        process = _bare_server(app, port, workers)
        try:
            floor = run_rate(
                f"http://127.0.0.1:{port}", Call("GET", "/"), rate, seconds, process.pid
            )
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        figures[name] = floor["server_cpu_ms_per_request"]
        figures["errors"] += floor["errors"]
    with vigil_server(workers, body) as (base, token, pid):
        health = run_rate(base, Call("GET", "/healthz"), rate, seconds, pid)
        fatigue = run_rate(base, fatigue_call(token, body), rate, seconds, pid)
    figures["healthz_ms"] = health["server_cpu_ms_per_request"]
    figures["fatigue_ms"] = fatigue["server_cpu_ms_per_request"]
    figures["errors"] += health["errors"] + fatigue["errors"]
    return figures


async def _asgi_call(
    app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes
) -> list[dict[str, Any]]:
    """One HTTP request through ``app`` (ASGI, no sockets); the messages it sent."""
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # no disconnect while the app answers
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), *headers, (b"content-length", b"%d" % len(body))],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    await app(scope, receive, send)
    return sent


async def _asgi_run(workdir: Path, body: bytes, calls: int) -> dict[str, float]:
    """CPU per ProcessFatigue call through the embedded app: real and stored scoring."""
    from vigil.config import default_data_dir
    from vigil.datadir import use_numba_cache

    # as `vigil` does: $NUMBA_CACHE_DIR, else the default data directory's
    use_numba_cache(default_data_dir())
    from vigil.cli.serve import _bootstrap
    from vigil.config.settings import Settings
    from vigil.web.app import create_app

    settings = Settings.from_mapping({"data_dir": str(workdir)})  # no VIGIL_* from outside
    settings.ensure_data_dir()
    created = _bootstrap(settings, "default")
    assert created is not None
    app = create_app(settings)
    # the service's loggers at INFO as `vigil serve` has them (the access log line is part
    # of each call's cost), written nowhere
    log = logging.getLogger("vigil")
    sink = logging.StreamHandler(open(os.devnull, "w"))  # noqa: SIM115 - closed below
    log.addHandler(sink)
    log.setLevel(logging.INFO)
    log.propagate = False
    try:
        return await _asgi_measure(app, created, body, calls)
    finally:
        log.removeHandler(sink)
        sink.stream.close()


async def _asgi_measure(
    app: Any, client: tuple[str, str], body: bytes, calls: int
) -> dict[str, float]:
    """Run ``app``'s lifespan, take a token with ``client``, then time ``calls`` calls twice."""
    from vigil.web.routes import processor

    async with app.router.lifespan_context(app):
        runtime = app.state.vigil
        while not runtime.warm.is_set():  # kernels loaded, as /readyz waits for
            await asyncio.sleep(0.2)
        basic = base64.b64encode(":".join(client).encode())
        form = b"grant_type=client_credentials&scope=svc_fast_safe_api"
        answer = await _asgi_call(
            app,
            "POST",
            "/connect/token",
            [
                (b"authorization", b"Basic " + basic),
                (b"content-type", b"application/x-www-form-urlencoded"),
            ],
            form,
        )
        token = json.loads(answer[1]["body"])["access_token"]
        headers = [
            (b"accept-encoding", b"gzip, deflate, br, zstd"),  # what httpx sends
            (b"authorization", b"Bearer " + token.encode()),
            (b"content-type", b"application/json"),
        ]
        path = "/api/Processor/ProcessFatigue"

        async def cpu_per_call() -> float:
            for _ in range(50):  # warm: caches, verified token, settings
                answer = await _asgi_call(app, "POST", path, headers, body)
                assert answer[0]["status"] == 200, answer
            began = time.process_time()
            for _ in range(calls):
                await _asgi_call(app, "POST", path, headers, body)
            return 1000 * (time.process_time() - began) / calls

        scored = await cpu_per_call()
        real_score = processor.score
        stored: list[Any] = []

        def stored_score(request: Any) -> Any:
            if not stored:
                stored.append(real_score(request))
            return stored[0]

        with mock.patch.object(processor, "score", stored_score):
            http_layer = await cpu_per_call()
    return {"cpu_ms_per_call": scored, "cpu_ms_per_call_scoring_stored": http_layer}


def _print_floor(body: bytes, args: argparse.Namespace) -> None:
    """``--floor``: the four servers' CPU per request, and what each layer adds."""
    rate = args.rate or 200.0
    figures = run_floor(body, rate, args.seconds, args.workers)
    figures |= {"name": "api-floor", "rate": rate, "load_avg": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(figures))
        return
    bare, fastapi = figures["bare_ms"], figures["fastapi_ms"]
    health, fatigue = figures["healthz_ms"], figures["fatigue_ms"]
    print(
        f"Server CPU per request, open loop {rate:.0f} req/s for {args.seconds:.0f} s each, "
        f"--workers {args.workers} ({figures['errors']:.0f} errors)"
    )
    print(f"  bare ASGI app under uvicorn     {bare:6.2f} ms  (uvicorn and sockets)")
    print(f"  bare FastAPI route under uvicorn {fastapi:5.2f} ms  (+{fastapi - bare:.2f}: FastAPI)")
    print(
        f"  vigil serve, GET /healthz       {health:6.2f} ms  (+{health - fastapi:.2f}: "
        f"middleware, access log)"
    )
    print(
        f"  vigil serve, ProcessFatigue     {fatigue:6.2f} ms  (+{fatigue - health:.2f}: "
        f"authentication, body, settings, scoring, JSON)"
    )
    print(f"  goal <= 1 ms; load {figures['load_avg']:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each level")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rate", type=float, help="open loop at this many req/s instead")
    parser.add_argument("--asgi", type=int, metavar="N", help="N in-process calls instead")
    parser.add_argument(
        "--crew",
        type=int,
        default=1,
        help="crew members per request (the goals are for 1; more shows the cost per crew)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="server CPU per request of bare ASGI and FastAPI apps, /healthz and scoring, "
        "at --rate (default 200)",
    )
    args = parser.parse_args()
    roster = generate_roster(args.crew, 28, seed=3)
    body = json.dumps(
        {"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}
    ).encode()
    if args.asgi:
        with tempfile.TemporaryDirectory() as tmp:
            figures = asyncio.run(_asgi_run(Path(tmp), body, args.asgi))
        figures |= {"name": "api-asgi", "calls": args.asgi, "load_avg": os.getloadavg()[0]}
        if args.json:
            print(json.dumps(figures))
            return
        print(
            f"ProcessFatigue, 28 days x {args.crew} crew, in process (ASGI, no sockets), "
            f"{args.asgi} calls: {figures['cpu_ms_per_call']:.3f} ms CPU per call; with "
            f"scoring stored (the HTTP layer): {figures['cpu_ms_per_call_scoring_stored']:.3f} "
            f"ms; load {figures['load_avg']:.1f}"
        )
        return
    if args.floor:
        _print_floor(body, args)
        return
    with vigil_server(args.workers, body) as (base, token, pid):
        if args.rate:
            rated = run_rate(base, fatigue_call(token, body), args.rate, args.seconds, pid)
        else:
            levels = [run_level(base, token, body, c, args.seconds) for c in (1, 10, 50)]
    duties = roster.count("\n")
    if args.rate:
        rated |= {
            "name": "api-open-loop",
            "workers": args.workers,
            "crew": args.crew,
            "server_cpu_ms_per_crew": rated["server_cpu_ms_per_request"] / args.crew,
            "load_avg": os.getloadavg()[0],
        }
        if args.json:
            print(json.dumps(rated))
            return
        print(
            f"ProcessFatigue, 28 days x {args.crew} crew ({duties} duties), vigil serve "
            f"--workers {args.workers}, open loop {args.rate:.0f} req/s for "
            f"{args.seconds:.0f} s"
        )
        print(
            f"  {rated['requests']} requests, {rated['errors']} errors, "
            f"{rated['achieved_rps']:.1f} req/s; p50 {rated['p50_ms']:.1f} ms, "
            f"p99 {rated['p99_ms']:.1f} ms (goal <= 50 ms); server CPU "
            f"{rated['server_cpu_ms_per_request']:.2f} ms/request (goal <= 1 ms); "
            f"load {rated['load_avg']:.1f}"
        )
        if args.crew > 1:
            print(f"  server CPU per crew member {rated['server_cpu_ms_per_crew']:.2f} ms")
        return
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
