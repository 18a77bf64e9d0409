"""Anonymous 100 MiB UploadRoster bodies against a real ``vigil serve``.

Starts ``vigil serve`` (one process, SQLite, loopback), reads its idle RSS, then has
``--clients`` anonymous clients (no ``Authorization``) each send ``--mib`` MiB of body
at full speed at the same time, sampling the server's RSS every 20 ms. Before the bound,
the server read and parsed each body before answering 401 (about +1 GiB for 4 x 100 MiB);
now it answers 401 from the headers and closes the connection. Repeats ``--runs`` times
(a new server each run) and prints the median peak growth.

    .venv/bin/python benchmarks/bench_upload_dos.py [--clients 4 --mib 100 --runs 5] [--json]

Goal: peak RSS within 100 MiB of idle.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from _server import free_port, start_server

CHUNK = b"a" * (1024 * 1024)


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` [bytes] (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def anonymous_upload(port: int, mib: int, out: list[tuple[str, int, float]]) -> None:
    """Send a ``mib`` MiB body without credentials; record (status line, bytes sent, s)."""
    start = time.monotonic()
    sent = 0
    status = "no answer"
    head = (
        "POST /api/UploadRoster HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {mib * len(CHUNK)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        try:
            sock.sendall(head + b'{"RosterData": "')
            for _ in range(mib):
                sock.sendall(CHUNK)
                sent += len(CHUNK)
        except OSError:  # the server answered and closed: the rest is not wanted
            pass
        try:
            answer = sock.recv(4096)
            status = answer.split(b"\r\n", 1)[0].decode() if answer else "closed"
        except OSError:
            status = "reset"
    out.append((status, sent, time.monotonic() - start))


def one_run(clients: int, mib: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process, _, _ = start_server(Path(tmp), port, 1, VIGIL_WORKER_THREADS="0")
        try:
            time.sleep(1.0)
            idle = rss_bytes(process.pid)
            peak = idle
            results: list[tuple[str, int, float]] = []
            threads = [
                threading.Thread(target=anonymous_upload, args=(port, mib, results))
                for _ in range(clients)
            ]
            for thread in threads:
                thread.start()
            while any(thread.is_alive() for thread in threads):
                peak = max(peak, rss_bytes(process.pid))
                time.sleep(0.02)
            time.sleep(0.5)
            after = rss_bytes(process.pid)
            peak = max(peak, after)
        finally:
            process.terminate()
            process.wait(30)
    return {
        "idle_mib": idle / 2**20,
        "peak_mib": peak / 2**20,
        "growth_mib": (peak - idle) / 2**20,
        "statuses": sorted({status for status, _, _ in results}),
        "sent_mib": [round(sent / 2**20, 1) for _, sent, _ in results],
        "seconds": round(max(took for _, _, took in results), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = [one_run(args.clients, args.mib) for _ in range(args.runs)]
    growth = statistics.median(float(r["growth_mib"]) for r in runs)  # type: ignore[arg-type]
    for i, r in enumerate(runs, 1):
        print(
            f"run {i}: idle {r['idle_mib']:.0f} MiB, peak {r['peak_mib']:.0f} MiB "
            f"(+{r['growth_mib']:.1f} MiB), answers {r['statuses']}, client sent "
            f"{r['sent_mib']} MiB, {r['seconds']} s"
        )
    ok = growth <= 100
    print(
        f"{args.clients} anonymous x {args.mib} MiB UploadRoster: median RSS growth "
        f"{growth:.1f} MiB over {args.runs} runs (goal <= 100 MiB): {'OK' if ok else 'FAIL'}"
    )
    if args.json:
        print(
            json.dumps(
                {"clients": args.clients, "mib": args.mib, "growth_mib": growth, "runs": runs}
            )
        )
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
