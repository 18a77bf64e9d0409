"""Warm start and compressed results (issue 15), against a real ``vigil serve``.

1. **Warm start**: a server with a new data directory (so a cold Numba cache, as on a fresh
   install) is started; the time until ``/readyz`` answers 200 is the warm-up, then the
   first ProcessFatigueRisk call for a ``--warm-crew`` roster (300 crew x 28 days) is timed
   (goal <= 1 s), and a second one for comparison.
2. **Compressed scores**: a ``--crew`` month (10,000 crew x 28 days, the airline generator)
   is uploaded and processed; ``GetResults&dataKey=scores`` is then fetched with each
   ``Accept-Encoding`` (identity, gzip, br, zstd): bytes on the wire and wall time.

    .venv/bin/python benchmarks/bench_integrators.py [--crew 10000] [--warm-crew 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _server import free_port, start_server  # noqa: E402

from vigil.roster.synthetic import generate_airline_roster  # noqa: E402

ENCODINGS = ("identity", "gzip", "br", "zstd")


def _token(base: str, client_id: str, secret: str) -> dict[str, str]:
    answer = httpx.post(
        f"{base}/connect/token", data={"grant_type": "client_credentials"}, auth=(client_id, secret)
    )
    answer.raise_for_status()
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


def _score_body(roster: str) -> dict[str, Any]:
    return {"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}


def run(crew: int, warm_crew: int, days: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="vigil-bench-") as tmp:
        workdir = Path(tmp)
        os.environ.pop("NUMBA_CACHE_DIR", None)  # the server's own, under its data directory
        started = time.perf_counter()
        port = free_port()
        process, client_id, secret = start_server(workdir, port, 1)
        base = f"http://127.0.0.1:{port}"
        try:
            while httpx.get(f"{base}/readyz", timeout=30).status_code != 200:
                time.sleep(0.1)
            out["ready_s"] = round(time.perf_counter() - started, 2)
            out["numba_cache_in_data_dir"] = any((workdir / "numba-cache").rglob("*.nbi"))
            headers = _token(base, client_id, secret)
            roster = generate_airline_roster(warm_crew, days, 7)
            calls = []
            for _ in range(2):
                t0 = time.perf_counter()
                answer = httpx.post(
                    f"{base}/api/Processor/ProcessFatigueRisk",
                    json=_score_body(roster),
                    headers=headers,
                    timeout=600,
                )
                calls.append(time.perf_counter() - t0)
                answer.raise_for_status()
            out["warm_workload"] = f"{warm_crew} crew x {days} d, {roster.count(chr(10))} rows"
            out["first_call_s"] = round(calls[0], 3)
            out["second_call_s"] = round(calls[1], 3)

            big = generate_airline_roster(crew, days, 11)
            out["workload"] = f"{crew} crew x {days} d, {big.count(chr(10))} rows"
            with httpx.Client(base_url=base, headers=headers, timeout=1800) as http:
                token = http.post("/api/UploadRoster", json={"RosterData": big}).json()[
                    "rosterToken"
                ]
                while True:
                    status = http.get(
                        "/api/GetResults", params={"rosterToken": token, "dataKey": "status"}
                    ).json()["status"]
                    if status not in ("queued", "processing"):
                        break
                    time.sleep(1)
                out["upload_status"] = status
                for encoding in ENCODINGS:
                    t0 = time.perf_counter()
                    size = 0
                    with http.stream(
                        "GET",
                        "/api/GetResults",
                        params={"rosterToken": token, "dataKey": "scores"},
                        headers={"Accept-Encoding": encoding},
                    ) as answer:
                        for chunk in answer.iter_raw():
                            size += len(chunk)
                    out[f"{encoding}_mb"] = round(size / 1e6, 1)
                    out[f"{encoding}_s"] = round(time.perf_counter() - t0, 2)
        finally:
            process.terminate()
            process.wait(timeout=60)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--warm-crew", type=int, default=300)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.crew, args.warm_crew, args.days)
    if args.json:
        print(json.dumps(result))
        return
    print(f"ready after start (cold Numba cache): {result['ready_s']} s")
    print(
        f"first ProcessFatigueRisk after /readyz ({result['warm_workload']}): "
        f"{result['first_call_s']} s (second {result['second_call_s']} s; goal <= 1 s)"
    )
    print(f"GetResults scores, {result['workload']}:")
    for encoding in ENCODINGS:
        print(f"  {encoding:8s} {result[f'{encoding}_mb']:8.1f} MB  {result[f'{encoding}_s']} s")


if __name__ == "__main__":
    main()
