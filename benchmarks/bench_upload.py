"""Upload → results ready, for a large synthetic roster (issue 7).

Runs the embedded server (``vigil.web.entry:app_from_env``, SQLite) in a subprocess on a
free loopback port, uploads ``generate_roster(crew, days)`` with the upload API, polls
``GetResults&dataKey=status`` until processing ends, then streams the scores once.
Modes: the local pool (server-side worker thread + local scoring processes) and a
``distributed.LocalCluster`` of 1 and 2 worker processes (``VIGIL_DASK_SCHEDULER``).
Prints wall time, the scaling ratio, and the server's peak RSS (``VmHWM``; the local
pool's scoring processes are reported apart).

    .venv/bin/python benchmarks/bench_upload.py [--crew 10000 --days 28] [--modes local,dask1,dask2]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
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


def run_mode(mode: str, roster: str, scheduler: str | None) -> dict[str, Any]:
    import psutil

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
            "VIGIL_PUBLIC_BASE_URL": base,
            "VIGIL_WORKER_POLL_INTERVAL": "0.2",
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
                deadline = time.monotonic() + 60
                while True:
                    try:
                        if http.get("/healthz").status_code == 200:
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
                children_peak = 0.0
                t0 = time.perf_counter()
                response = http.post(
                    "/api/UploadRoster", json={"RosterData": roster, "RosterName": "bench"}
                )
                response.raise_for_status()
                roster_token = response.json()["rosterToken"]
                t_upload = time.perf_counter() - t0
                while True:
                    status = http.get(
                        "/api/GetResults",
                        params={"rosterToken": roster_token, "dataKey": "status"},
                    ).json()["status"]
                    for child in psutil.Process(server.pid).children(recursive=True):
                        try:
                            children_peak = max(children_peak, peak_rss_mib(child.pid))
                        except OSError:
                            pass
                    if status not in ("queued", "processing"):
                        break
                    time.sleep(0.5)
                t_ready = time.perf_counter() - t0
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
                server_peak = peak_rss_mib(server.pid)
        finally:
            server.terminate()
            server.wait(60)
    return {
        "mode": mode,
        "status": status,
        "upload_s": t_upload,
        "ready_s": t_ready,
        "scores_s": t_scores,
        "scores_mib": size / 2**20,
        "server_peak_mib": server_peak,
        "children_peak_mib": children_peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="local,dask1,dask2")
    args = parser.parse_args()

    from vigil.roster.synthetic import generate_roster

    t = time.perf_counter()
    roster = generate_roster(args.crew, args.days, args.seed)
    print(
        f"roster: {args.crew} crew x {args.days} days, {roster.count(chr(10)) + 1} rows, "
        f"{len(roster) / 2**20:.1f} MiB (generated in {time.perf_counter() - t:.1f} s)"
    )
    results = []
    for mode in args.modes.split(","):
        if mode == "local":
            results.append(run_mode(mode, roster, None))
        else:
            from distributed import LocalCluster

            workers = int(mode.removeprefix("dask"))
            with LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster:
                results.append(run_mode(mode, roster, cluster.scheduler_address))
        r = results[-1]
        print(
            f"{r['mode']:>6}: {r['status']} ready {r['ready_s']:6.1f} s "
            f"(upload {r['upload_s']:.1f} s); scores streamed {r['scores_mib']:.0f} MiB in "
            f"{r['scores_s']:.1f} s; server peak RSS {r['server_peak_mib']:.0f} MiB; "
            f"local scoring processes peak {r['children_peak_mib']:.0f} MiB",
            flush=True,
        )
    by_mode = {r["mode"]: r["ready_s"] for r in results}
    if "dask1" in by_mode and "dask2" in by_mode:
        print(f"scaling dask1/dask2: {by_mode['dask1'] / by_mode['dask2']:.2f}x")
    if "local" in by_mode and "dask2" in by_mode:
        print(f"local/dask2: {by_mode['local'] / by_mode['dask2']:.2f}x")


if __name__ == "__main__":
    main()
