"""Benchmark: first start of ``vigil serve`` on a fresh machine until ``/readyz`` is 200
(goal <= 60 s on a 2-core machine).

Run ``.venv/bin/python benchmarks/bench_first_start.py [--repeat N] [--restart]
[--baseline-src PATH] [--json]``. Each run starts ``vigil serve`` (``python -m vigil
serve``, what ``scripts/serve`` runs) with an empty data directory (``VIGIL_DATA_DIR``,
which holds the database, the secret key and the compiled-kernel cache) and without
``NUMBA_CACHE_DIR``, so nothing is cached from an earlier run; it polls ``/readyz`` every
0.1 s and records the wall time from the launch to the first 200. ``--restart`` also times
a second start on the same data directory (kernels loaded from its cache).

After each run the server is stopped and its CPU time read from the operating system's
accounting of it and of the children it waited for (the kernel compilers), the figure
that does not depend on what else the machine runs. ``--baseline-src`` alternates the
runs with another source tree (``PYTHONPATH``), so both are measured under the same load.
The load average is printed with each run: on a shared machine it explains the spread.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

#: how long one start may take before the run is abandoned [s]
READY_TIMEOUT = 900.0


@dataclass(frozen=True)
class Start:
    """One timed start: wall seconds to ``/readyz`` 200, CPU seconds of the server and its
    waited-for children, and the 1-minute load average when it began."""

    label: str
    ready_s: float
    cpu_s: float
    load: float


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):  # 503 or not listening
        return False


def _environment(data_dir: Path, src: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIGIL_")}
    env.pop("NUMBA_CACHE_DIR", None)  # the cache lives in the (empty) data directory
    env.update(PYTHONUNBUFFERED="1", VIGIL_DATA_DIR=str(data_dir))
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def start_once(label: str, data_dir: Path, src: str | None) -> Start:
    """Start ``vigil serve`` on ``data_dir``, wait for ``/readyz`` 200, stop it."""
    port = free_port()
    load = os.getloadavg()[0]
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "vigil", "serve", "--port", str(port)],
        cwd=data_dir,
        env=_environment(data_dir, src),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not _ready(port):
            if process.poll() is not None or time.monotonic() - started > READY_TIMEOUT:
                raise SystemExit(f"{label}: the server never became ready")
            time.sleep(0.1)
        ready = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # reaped above; keeps Popen from waiting again
    return Start(label, ready, usage.ru_utime + usage.ru_stime, load)


def run(repeat: int, restart: bool, sides: dict[str, str | None]) -> list[Start]:
    """``repeat`` first starts of each side, alternating sides within each round."""
    starts: list[Start] = []
    for _ in range(repeat):
        for name, src in sides.items():
            with tempfile.TemporaryDirectory(prefix="vigil-first-start-") as folder:
                first = start_once(f"{name} first start", Path(folder), src)
                starts.append(first)
                print(_line(first), flush=True)
                if restart:
                    again = start_once(f"{name} restart", Path(folder), src)
                    starts.append(again)
                    print(_line(again), flush=True)
    return starts


def _line(start: Start) -> str:
    return (
        f"{start.label:<28} ready {start.ready_s:6.1f} s  cpu {start.cpu_s:6.1f} s  "
        f"load {start.load:4.1f}"
    )


def summary(starts: list[Start]) -> dict[str, dict[str, float]]:
    """Medians per label: ready [s], CPU [s], load average, and the number of runs."""
    out: dict[str, dict[str, float]] = {}
    for label in dict.fromkeys(s.label for s in starts):
        mine = [s for s in starts if s.label == label]
        out[label] = {
            "ready_s": statistics.median(s.ready_s for s in mine),
            "cpu_s": statistics.median(s.cpu_s for s in mine),
            "load": statistics.median(s.load for s in mine),
            "runs": len(mine),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--restart", action="store_true", help="also time a warm restart")
    parser.add_argument("--baseline-src", help="alternate with this source tree (PYTHONPATH)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sides: dict[str, str | None] = {"this": os.environ.get("PYTHONPATH")}
    if args.baseline_src:
        sides["baseline"] = args.baseline_src
    starts = run(args.repeat, args.restart, sides)
    medians = summary(starts)
    if args.json:
        print(json.dumps({"runs": [asdict(s) for s in starts], "medians": medians}, indent=2))
        return
    print(f"medians of {args.repeat} run(s):")
    for label, m in medians.items():
        print(
            f"  {label:<28} ready {m['ready_s']:6.1f} s  cpu {m['cpu_s']:6.1f} s  "
            f"load {m['load']:4.1f}"
        )


if __name__ == "__main__":
    main()
