"""Warm start and compressed results, against a real ``vigil serve``.

1. **Warm start**: a server with a new data directory (so a cold Numba cache, as on a fresh
   install) is started; the time until ``/readyz`` answers 200 is the warm-up, then the
   first ProcessFatigueRisk call for a ``--warm-crew`` roster (300 crew x 28 days) is timed
   (goal <= 1 s), and a second one for comparison.
2. **Compressed scores**: a ``--crew`` month (10,000 crew x 28 days, the airline generator)
   is uploaded and processed; ``GetResults&dataKey=scores`` is then fetched with each
   ``Accept-Encoding`` (identity, gzip, br, zstd): bytes on the wire and wall time.
3. **Footprint**: the database file after that month (roster text, scores, sleep), and the
   peak of the summed RSS of every process of the job while it was processed.
4. **CSV write**: the month's scores (from the GetResults answer) written one row per
   interval by ``vigil score``'s columnar writer (:mod:`vigil.cli._tables`), timed.

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
from bench_upload import JobMemory, month_bytes  # noqa: E402

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


def report_from_envelope(body: bytes) -> Any:
    """A :class:`~vigil.scoring.service.ScoreReport` rebuilt from a §4 envelope."""
    from datetime import datetime

    import numpy as np
    import orjson

    from vigil.scoring.service import DutyResult, ScheduleResult, ScoreReport

    doc = orjson.loads(body)
    scale = doc["scale"]

    def when(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    schedules = tuple(
        ScheduleResult(
            reference=entry["schedule"],
            scores={scale: np.asarray(entry["fatigueScores"], dtype=np.float64)},
            duties=tuple(
                DutyResult(
                    when(d["onDuty"]),
                    when(d["offDuty"]),
                    d["firstInterval"],
                    d["intervalCount"],
                    d.get("risk"),
                )  # fmt: skip
                for d in entry["duties"]
            ),
        )
        for entry in doc["scheduleScores"]
    )
    return ScoreReport(scale, doc["modelVersion"], schedules, (), risk=True)


def csv_write(body: bytes, path: Path) -> dict[str, Any]:
    """Time ``vigil score``'s per-interval CSV writer on the month's scores."""
    from vigil.cli import _tables

    report = report_from_envelope(body)
    t0 = time.perf_counter()
    frame = _tables.interval_table(report)
    _tables.write(frame, str(path), csv=True)
    seconds = time.perf_counter() - t0
    return {
        "csv_rows": frame.height,
        "csv_write_s": round(seconds, 2),
        "csv_mb": round(path.stat().st_size / 1e6, 1),
    }


def run(crew: int, warm_crew: int, days: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="vigil-bench-") as tmp:
        workdir = Path(tmp)
        os.environ.pop("NUMBA_CACHE_DIR", None)  # the server's own, under its data directory
        started = time.perf_counter()
        port = free_port()
        process, client_id, secret = start_server(
            workdir, port, 1, VIGIL_MAX_BODY_BYTES=str(64 * 2**20)
        )
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
                memory = JobMemory().__enter__()
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
                memory.__exit__()
                out["upload_status"] = status
                out["job_peak_mib"] = round(memory.peak_mib)
                out["job_peak_parts"] = memory.peak_parts
                db_file = next(workdir.glob("*.db"))
                out.update({k: round(v, 1) for k, v in month_bytes(db_file).items()})
                plain = b""
                for encoding in ENCODINGS:
                    t0 = time.perf_counter()
                    size = 0
                    with http.stream(
                        "GET",
                        "/api/GetResults",
                        params={"rosterToken": token, "dataKey": "scores"},
                        headers={"Accept-Encoding": encoding},
                    ) as answer:
                        chunks = list(answer.iter_raw())
                        size = sum(map(len, chunks))
                    out[f"{encoding}_mb"] = round(size / 1e6, 1)
                    out[f"{encoding}_s"] = round(time.perf_counter() - t0, 2)
                    if encoding == "identity":
                        plain = b"".join(chunks)
                out.update(csv_write(plain, workdir / "intervals.csv"))
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
    print(
        f"database bytes of the month: {result['rows_mb']} MB (roster text "
        f"{result['roster_mb']}, scores {result['scores_mb']}, sleep {result['sleep_mb']}; "
        f"file {result['file_mb']} MB); job peak RSS, all processes: {result['job_peak_mib']} MiB "
        f"({', '.join(f'{k} {v}' for k, v in result['job_peak_parts'].items())})"
    )
    print(
        f"CSV per interval: {result['csv_rows']} rows, {result['csv_mb']} MB written in "
        f"{result['csv_write_s']} s (goal <= 5 s); load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
