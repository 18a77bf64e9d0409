"""Upload → results ready, for the realistic airline month.

Runs the embedded server (``vigil.web.entry:app_from_env``, SQLite) in a subprocess on a
free loopback port, uploads ``generate_airline_roster(crew, days)`` (realistic
mix) with the upload API, polls ``GetResults&dataKey=status`` until processing ends, then
streams the scores once, plain and with ``Accept-Encoding: zstd``. Modes: the local pool
(server-side worker thread + local scoring processes) and a ``distributed.LocalCluster``
of 1 and 2 one-thread worker processes (``NUMBA_NUM_THREADS=1``, ``VIGIL_DASK_SCHEDULER``).

Prints per mode: time to results ready as the client's status poll (every 0.5 s) sees it,
and when the worker stored them (the roster's ``finished_at`` in the database, so without
the poll's granularity), the database's size after the job (SQLite file,
roster text included), and the peak of the summed RSS of every process of the job (this
process's children: the server, its scoring processes, the Dask scheduler and workers,
sampled every 0.1 s). Then the Dask scaling ratio and the serial share it implies by
Amdahl's law (T1 = s + p, T2 = s + p/2, so s = 2·T2 − T1), next to the worker's own
serial steps timed in this process (split the text, which the Dask modes do on the cluster;
join and store the bytes). Of the server's CPU, the client's status polls and the upload
request are printed apart (docs/upload.md "Benchmark").

    .venv/bin/python benchmarks/bench_upload.py [--crew 10000 --days 28] [--modes local,dask1,dask2]
        [--runs 3] [--numba-cache DIR]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from statistics import median
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def peak_rss_mib(pid: int) -> float:
    """``VmHWM`` of a live process [MiB]."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_client(db_url: str, data_dir: Path) -> tuple[str, str]:
    from vigil.store import repo
    from vigil.store.crypto import SecretBox
    from vigil.store.db import make_engine, make_session_factory, upgrade

    engine = make_engine(db_url)
    upgrade(engine)
    box = SecretBox.from_config(None, data_dir / "secret.key")
    with make_session_factory(engine).begin() as session:
        client, secret = repo.create_api_client(
            session=session, box=box, operator="bench", scopes="upload"
        )
        out = (client.client_id, secret)
    engine.dispose()
    return out


class JobMemory:
    """The peak of the summed RSS of this process's descendants, sampled in a thread.

    :attr:`peak_parts` is which process held what at that peak (:func:`_role` names them:
    the server, its scoring processes, Dask's scheduler and workers), in MiB.
    """

    def __init__(self, interval: float = 0.1) -> None:
        self.peak_mib = 0.0
        self.peak_parts: dict[str, float] = {}
        self._stop = threading.Event()
        self._interval = interval
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> JobMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.wait(self._interval):
            parts: dict[str, float] = {}
            for child in me.children(recursive=True):
                try:
                    role = _role(child)
                    rss = child.memory_info().rss / 2**20
                except psutil.Error:
                    continue
                parts[role] = parts.get(role, 0.0) + rss
            total = sum(parts.values())
            if total > self.peak_mib:
                self.peak_mib = total
                self.peak_parts = {k: round(v) for k, v in sorted(parts.items())}


def _role(proc: Any) -> str:
    """A name for a process of the job: ``server``, ``scoring 1``… (by pid order), Dask."""
    line = " ".join(proc.cmdline())
    if "multiprocessing" in line or "spawn_main" in line:
        return f"scoring {proc.pid}"
    if "distributed" in line or "dask" in line:
        return f"dask {proc.pid}"
    return f"server {proc.pid}" if "vigil" in line or "uvicorn" in line else f"other {proc.pid}"


def cpu_split(server_pid: int) -> tuple[float, float]:
    """CPU seconds so far of the server process itself (the upload worker's own, serial
    work plus HTTP) and of every other process of the job (scoring processes, the Dask
    scheduler and workers)."""
    import psutil

    server = 0.0
    others = 0.0
    for proc in psutil.Process().children(recursive=True):
        try:
            times = proc.cpu_times()
        except psutil.Error:
            continue
        used = times.user + times.system
        if proc.pid == server_pid:
            server += used
        else:
            others += used
    return server, others


def month_bytes(db_file: Path) -> dict[str, float]:
    """Bytes the stored rosters take in the database: roster text, scores, sleep [MB]."""
    import sqlite3

    with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as db:
        (text,) = db.execute(
            "select coalesce(sum(length(cast(roster_text as blob)) + length(activity_text)"
            " + length(sleep_json)), 0) from roster_input"
        ).fetchone()
        scores, sleep, errors = db.execute(
            "select coalesce(sum(length(scores)), 0), coalesce(sum(length(sleep)), 0),"
            " coalesce(sum(length(errors_json)), 0) from roster_result"
        ).fetchone()
    return {
        "roster_mb": text / 1e6,
        "scores_mb": scores / 1e6,
        "sleep_mb": sleep / 1e6,
        "errors_mb": errors / 1e6,
        "rows_mb": (text + scores + sleep + errors) / 1e6,
        "file_mb": db_file.stat().st_size / 1e6,
    }


def finished_at(db_file: Path) -> list[float]:
    """When the worker stored each roster's final state, in upload order: epoch seconds,
    from the database (SQLite keeps microseconds), so "ready" without the client's poll
    interval."""
    import sqlite3
    from datetime import UTC, datetime

    with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as db:
        rows = db.execute("select finished_at from roster_upload order by id").fetchall()
    return [datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() for (text,) in rows]


def serial_steps(roster: str, chunk_size: int) -> dict[str, float]:
    """The worker's own serial work on ``roster``, timed here: split, join, store."""
    from sqlalchemy import create_engine, text

    from vigil.domain import DateFormat
    from vigil.results.frames import join_frames
    from vigil.scoring.context import DEFAULT_CONTEXT
    from vigil.scoring.service import SCALE_CODES
    from vigil.worker.split import split_roster
    from vigil.worker.tasks import ChunkTask, run_task

    t = time.perf_counter()
    split = split_roster(roster, DateFormat.DMY, chunk_size)
    t_split = time.perf_counter() - t
    assert split is not None
    one = run_task(ChunkTask(DEFAULT_CONTEXT, SCALE_CODES, split.parts[0], "dmy", split.header_row))
    frames = [one.frame] * len(split.parts)  # same sizes as the real job
    t = time.perf_counter()
    blob = join_frames(frames)
    sleep = b"".join([one.sleep] * len(split.parts))
    t_join = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite:///{tmp}/s.db")
        with engine.begin() as conn:
            conn.execute(text("create table r (scores blob, sleep blob)"))
        t = time.perf_counter()
        with engine.begin() as conn:
            conn.execute(text("insert into r values (:a, :b)"), {"a": blob, "b": sleep})
        t_store = time.perf_counter() - t
        engine.dispose()
    return {"split_s": t_split, "join_s": t_join, "store_s": t_store, "parts": len(split.parts)}


def poll_status(http: httpx.Client, token: str) -> str:
    """One status poll of the client (``GetResults&dataKey=status``)."""
    params = {"rosterToken": token, "dataKey": "status"}
    status: str = http.get("/api/GetResults", params=params).json()["status"]
    return status


def poll_cost(http: httpx.Client, token: str, server_pid: int, polls: int = 40) -> float:
    """The server's CPU seconds per status poll, timed after the job on ``polls`` polls in
    a row: the share of the server's CPU during the job that is the client's polling (a
    client's choice, every 0.5 s here) rather than the job's own serial work."""
    before = cpu_split(server_pid)[0]
    for _ in range(polls):
        poll_status(http, token)
    return (cpu_split(server_pid)[0] - before) / polls


def task_spans(client: Any, since: float, until: float) -> dict[str, float]:
    """When the cluster's workers computed between ``since`` and ``until`` (epoch s): the
    first start and last stop relative to ``since``, and the summed compute time.

    ``ready − (last − first)`` is the wall time of the job with no task computing (the
    upload, the split, the workers' first task start, the join and store, the poll): the
    serial part as the clock sees it, cold starts included, which the CPU split misses.
    """
    spans = [
        (span["start"], span["stop"])
        for task in client.get_task_stream(start=since)
        for span in task.get("startstops", ())
        if span.get("action") == "compute" and since <= span["start"] <= until
    ]
    if not spans:
        return {}
    return {
        "first_s": min(a for a, _ in spans) - since,
        "last_s": max(b for _, b in spans) - since,
        "busy_s": sum(b - a for a, b in spans),
        "tasks": len(spans),
    }


def run_mode(
    mode: str,
    roster: str,
    scheduler: str | None,
    dask_client: Any = None,
    rosters: int = 1,
    numba_cache: str | None = None,
) -> dict[str, Any]:

    with tempfile.TemporaryDirectory(prefix="vigil-bench-") as tmp:
        data_dir = Path(tmp)
        db_url = f"sqlite:///{data_dir / 'vigil.db'}"
        client_id, secret = make_client(db_url, data_dir)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "VIGIL_SURFACE": "all",
            "VIGIL_DATABASE_URL": db_url,
            "VIGIL_DATA_DIR": str(data_dir),
            # as `vigil serve` does before Numba is imported: the server compiles into the
            # cache its spawned scoring processes read (else each compiles on its own)
            "NUMBA_CACHE_DIR": numba_cache or str(data_dir / "numba-cache"),
            "VIGIL_PUBLIC_BASE_URL": base,
            "VIGIL_WORKER_POLL_INTERVAL": "0.2",
            "VIGIL_MAX_BODY_BYTES": str(64 * 2**20),  # a 10k-crew month is ~16 MiB of CSV
            "VIGIL_WORKER_PROCESSES": str(os.cpu_count() or 1) if scheduler is None else "0",
        }
        if scheduler:
            env["VIGIL_DASK_SCHEDULER"] = scheduler
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "vigil.web.entry:app_from_env", "--factory"]
            + ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
            env=env,
        )
        try:
            with httpx.Client(base_url=base, timeout=600) as http:
                deadline = time.monotonic() + 600  # a cold Numba cache compiles first
                while True:
                    try:
                        if http.get("/readyz").status_code == 200:  # warmed up
                            break
                    except httpx.TransportError:
                        pass
                    if time.monotonic() > deadline:
                        raise RuntimeError("server did not start")
                    time.sleep(0.2)
                token = http.post(
                    "/connect/token",
                    data={"grant_type": "client_credentials", "scope": "svc_safe_upload_api"},
                    auth=(client_id, secret),
                ).json()["access_token"]
                http.headers["Authorization"] = f"Bearer {token}"
                memory = JobMemory().__enter__()
                cpu0 = cpu_split(server.pid)
                own0 = time.process_time()
                t0 = time.perf_counter()
                wall0 = time.time()
                tokens = []
                for i in range(rosters):
                    response = http.post(
                        "/api/UploadRoster", json={"RosterData": roster, "RosterName": f"b{i}"}
                    )
                    response.raise_for_status()
                    tokens.append(response.json()["rosterToken"])
                roster_token = tokens[0]
                t_upload = time.perf_counter() - t0
                upload_cpu = cpu_split(server.pid)[0] - cpu0[0]
                polls = 0
                for token in tokens:  # in upload order, which is the order they are claimed
                    while True:
                        status = poll_status(http, token)
                        polls += 1
                        if status not in ("queued", "processing"):
                            break
                        time.sleep(0.5)  # a client polls; each poll costs the server CPU
                t_ready = time.perf_counter() - t0
                cpu1 = cpu_split(server.pid)
                own = time.process_time() - own0
                poll_cpu = poll_cost(http, roster_token, server.pid)
                spans = task_spans(dask_client, wall0, time.time()) if dask_client else {}
                memory.__exit__()
                stored = month_bytes(data_dir / "vigil.db")
                stored_s = [at - wall0 for at in finished_at(data_dir / "vigil.db")]
                t1 = time.perf_counter()
                size = 0
                with http.stream(
                    "GET",
                    "/api/GetResults",
                    params={"rosterToken": roster_token, "dataKey": "scores"},
                ) as scores:
                    for part in scores.iter_bytes():
                        size += len(part)
                t_scores = time.perf_counter() - t1
                t1 = time.perf_counter()
                zsize = 0
                with http.stream(
                    "GET",
                    "/api/GetResults",
                    params={"rosterToken": roster_token, "dataKey": "scores"},
                    headers={"Accept-Encoding": "zstd"},
                ) as scores:
                    for part in scores.iter_raw():
                        zsize += len(part)
                t_zscores = time.perf_counter() - t1
                server_peak = peak_rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(60)
    return {
        "mode": mode,
        "status": status,
        "upload_s": t_upload,
        "ready_s": t_ready,
        "stored_s": stored_s[-1],
        "each_stored_s": stored_s,
        "scores_s": t_scores,
        "scores_mib": size / 2**20,
        "zscores_s": t_zscores,
        "zscores_mib": zsize / 2**20,
        "server_peak_mib": server_peak,
        "job_peak_mib": memory.peak_mib,
        "job_peak_parts": memory.peak_parts,
        **stored,
        "server_cpu_s": cpu1[0] - cpu0[0],
        "upload_cpu_s": upload_cpu,
        "polls": polls,
        "poll_cpu_s": poll_cpu,
        "scoring_cpu_s": cpu1[1] - cpu0[1],
        "bench_cpu_s": own,
        "spans": spans,
    }


def modes_of(results: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(r["mode"] for r in results))


def _parts(parts: dict[str, float]) -> str:
    return ", ".join(f"{name} {mib:.0f}" for name, mib in parts.items())


def one_mode(mode: str, roster: str, rosters: int, numba_cache: str | None) -> dict[str, Any]:
    """One run of ``mode``: the local pool, or a fresh ``LocalCluster`` of N workers."""
    if mode == "local":
        return run_mode(mode, roster, None, rosters=rosters, numba_cache=numba_cache)
    from distributed import Client, LocalCluster

    workers = int(mode.removeprefix("dask"))
    os.environ["NUMBA_NUM_THREADS"] = "1"  # one thread per worker: the CPU share
    try:
        with LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            with Client(cluster, set_as_default=False) as dask_client:
                dask_client.get_task_stream(count=1)  # the scheduler records from now
                address = cluster.scheduler_address
                return run_mode(mode, roster, address, dask_client, rosters, numba_cache)
    finally:
        os.environ.pop("NUMBA_NUM_THREADS", None)


def print_run(r: dict[str, Any], rosters: int) -> None:
    """One run's figures (see the module docstring)."""
    print(
        f"{r['mode']:>6}: {r['status']} ready {r['ready_s']:6.1f} s "
        f"(upload {r['upload_s']:.1f} s; stored at +{r['stored_s']:.2f} s); "
        f"scores {r['scores_mib']:.0f} MiB in "
        f"{r['scores_s']:.1f} s, zstd {r['zscores_mib']:.1f} MiB in {r['zscores_s']:.1f} s; "
        f"database {r['rows_mb']:.1f} MB (roster {r['roster_mb']:.1f}, scores "
        f"{r['scores_mb']:.1f}, sleep {r['sleep_mb']:.1f}; file {r['file_mb']:.1f}); "
        f"job peak RSS (all processes) "
        f"{r['job_peak_mib']:.0f} MiB ({_parts(r['job_peak_parts'])}); server peak "
        f"{r['server_peak_mib']:.0f} MiB; "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    if rosters > 1:
        each = r["each_stored_s"]
        gaps = [b - a for a, b in zip(each, each[1:], strict=False)]
        print(
            f"        {rosters} rosters stored at "
            + ", ".join(f"+{x:.1f}" for x in each)
            + f" s: one every {sum(gaps) / len(gaps):.2f} s after the first "
            f"(a 100,000-crew year is 130.4 of these months)",
            flush=True,
        )
    s, p = r["server_cpu_s"], r["scoring_cpu_s"]
    job = job_serial(r)
    print(
        f"        CPU: server process {s:.2f} s (serial: hand over, join, store, HTTP), other "
        f"processes {p:.1f} s; serial share by CPU {s / (s + p):.1%}; Amdahl speed-up "
        f"of 2 workers over 1: {(s + p) / (s + p / 2):.2f}x; this process (the "
        f"LocalCluster's scheduler, the RSS sampler, the client) {r['bench_cpu_s']:.1f} s",
        flush=True,
    )
    print(
        f"        of the server's CPU, the client's {r['polls']} status polls "
        f"{r['polls'] * r['poll_cpu_s']:.2f} s ({r['poll_cpu_s'] * 1e3:.1f} ms each, timed "
        f"after the job); without them {job:.2f} s: serial share by CPU {job / (job + p):.1%}; "
        f"of which the upload request (until its answer: the 15-MiB body read, validated "
        f"and inserted) {r['upload_cpu_s']:.2f} s",
        flush=True,
    )
    if r["spans"]:
        t = r["spans"]
        outside = r["ready_s"] - (t["last_s"] - t["first_s"])
        print(
            f"        tasks: {t['tasks']} computed from +{t['first_s']:.1f} s to "
            f"+{t['last_s']:.1f} s, {t['busy_s']:.1f} s busy in all; no task computing for "
            f"{outside:.1f} s of the {r['ready_s']:.1f} s (serial on the clock: upload, "
            f"split, first start, join, store, poll)",
            flush=True,
        )


def job_serial(r: dict[str, Any]) -> float:
    """The server's CPU during the job less what the client's status polls cost (the
    upload's HTTP request and its insert stay in)."""
    return max(0.0, r["server_cpu_s"] - r["polls"] * r["poll_cpu_s"])


def print_medians(results: list[dict[str, Any]]) -> None:
    """Per mode, the medians over its runs: ready, the CPU split and the serial share."""
    for mode in modes_of(results):
        runs = [r for r in results if r["mode"] == mode]
        ready = median(r["ready_s"] for r in runs)
        server = [r["server_cpu_s"] for r in runs]
        others = [r["scoring_cpu_s"] for r in runs]
        shares = [s / (s + p) for s, p in zip(server, others, strict=True)]
        own = [job_serial(r) for r in runs]
        own_shares = [s / (s + p) for s, p in zip(own, others, strict=True)]
        print(
            f"{mode:>6}, median of {len(runs)} runs: ready {ready:.1f} s, "
            f"server process {median(server):.2f} CPU-s, other processes "
            f"{median(others):.1f} CPU-s, serial share by CPU {median(shares):.1%} "
            f"(runs: {', '.join(f'{x:.1%}' for x in shares)}); without the client's polls "
            f"{median(own):.2f} CPU-s, {median(own_shares):.1%} "
            f"(runs: {', '.join(f'{x:.1%}' for x in own_shares)})",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="local,dask1,dask2")
    parser.add_argument(
        "--rosters",
        type=int,
        default=1,
        help="upload the month this many times at once (back-to-back throughput: each "
        "roster's serial part, its summary included, between the rosters' tasks)",
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="runs of each mode (interleaved); medians printed"
    )
    parser.add_argument(
        "--numba-cache",
        help="the server's Numba cache directory, kept between runs (default: a new one per "
        "run, so each server compiles before /readyz, outside the measured window)",
    )
    args = parser.parse_args()

    from vigil.roster.synthetic import generate_airline_roster

    t = time.perf_counter()
    roster = generate_airline_roster(args.crew, args.days, args.seed)
    print(
        f"roster: {args.crew} crew x {args.days} days, {roster.count(chr(10)) + 1} rows, "
        f"{len(roster) / 2**20:.1f} MiB (generated in {time.perf_counter() - t:.1f} s)"
    )
    results = []
    for _ in range(args.runs):  # modes interleaved, so a change of load touches each
        for mode in args.modes.split(","):
            results.append(one_mode(mode, roster, args.rosters, args.numba_cache))
            print_run(results[-1], args.rosters)
    if args.runs > 1:
        print_medians(results)
    steps = serial_steps(roster, 500)
    serial = steps["split_s"] + steps["join_s"] + steps["store_s"]
    print(
        f"worker's serial steps here: split {steps['split_s']:.2f} s into {steps['parts']} "
        f"parts (on the cluster in the Dask modes, in the worker's thread locally), "
        f"join {steps['join_s']:.3f} s, store {steps['store_s']:.2f} s "
        f"(sum {serial:.2f} s)"
    )
    by_mode = {
        m: median(r["ready_s"] for r in results if r["mode"] == m) for m in modes_of(results)
    }
    if "dask1" in by_mode and "dask2" in by_mode:
        t1, t2 = by_mode["dask1"], by_mode["dask2"]
        share = max(0.0, 2 * t2 - t1) / t1
        stored = {
            m: median(r["stored_s"] for r in results if r["mode"] == m) for m in modes_of(results)
        }
        print(
            f"scaling dask1/dask2: {t1 / t2:.2f}x as the client's 0.5-s poll saw it, "
            f"{stored['dask1'] / stored['dask2']:.2f}x by when the results were stored; "
            f"serial share by Amdahl (2·T2 − T1)/T1 = {share:.1%}; direct serial steps / "
            f"T1 = {serial / t1:.1%}"
        )
    if "local" in by_mode and "dask2" in by_mode:
        print(f"local/dask2: {by_mode['local'] / by_mode['dask2']:.2f}x")


if __name__ == "__main__":
    main()
