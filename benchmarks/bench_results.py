"""GetResults for one schedule of an airline month: only that schedule's bytes are read.

1. Generates ``generate_airline_roster(crew, days, seed=7)`` and scores it as the worker
   does (:func:`vigil.worker.run.score_roster`), once: the scores and sleep blobs are
   cached in ``~/.cache/vigil/bench-results`` (keyed by crew, days, seed and model version).
2. In a fresh process: stores the upload and its result in SQLite as the worker does, serves
   the app in-process (Starlette's TestClient, an API client with the upload scope) and
   times, each the median of ``--repeat`` requests for a schedule in the middle of the
   roster: ``GetResults&dataKey=scores&schedule=REF`` (read alone: budget 0.3 s), the same
   with ``includeSleep=true``, and, for comparison, the same schedule as a page
   (``offset=k&limit=1``), which decodes the whole blob.

Timings on a shared machine vary with load: the load average is printed next to them.

    .venv/bin/python benchmarks/bench_results.py [--crew 10000 --days 28 --repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import bench_fleet as fleet

SEED = 7
BUDGET_S = 0.3
NAME = "bench-results"
timed = fleet.timed


def cache_dir(crew: int, days: int) -> Path:
    return fleet.cache_dir(crew, days, SEED, NAME)


def prepare(crew: int, days: int) -> Path:
    """Roster text, scores and sleep blobs of the month (cached; bench_fleet.py's)."""
    return fleet.prepare(crew, days, SEED, NAME)


def measure(folder: Path, repeat: int) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from vigil.config.settings import Settings
    from vigil.results.compact import unpack
    from vigil.store import repo, uploads
    from vigil.store.db import make_engine, make_session_factory, upgrade
    from vigil.web.app import create_app
    from vigil.worker import jobs

    text = (folder / "roster.csv").read_text(encoding="utf-8")
    scores = (folder / "scores.bin").read_bytes()
    sleep = (folder / "sleep.bin").read_bytes() or None
    model_version = json.loads((folder / "meta.json").read_text())["model_version"]
    references = unpack(scores, ("KSS",)).references
    middle = len(references) // 2
    out: dict[str, Any] = {"schedules": len(references), "blob_mib": len(scores) / 2**20}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/vigil.db"
        engine = make_engine(url)
        upgrade(engine)
        sessions = make_session_factory(engine)
        with sessions.begin() as session:
            upload = uploads.create_upload(
                session=session, operator="acme", roster_name="month", roster_text=text,
                activity_text="", date_format="dmy", preferred_scale="KSS", overwrite=False,
            )  # fmt: skip
            token = upload.token
        with sessions.begin() as session:
            job = jobs.claim(session=session, owner="bench", lease_seconds=600)
            assert job is not None
            jobs.complete(session=session, job=job, errors=[], scores=scores,
                          model_version=model_version, sleep=sleep)  # fmt: skip
        del text, scores, sleep, job
        settings = Settings.from_mapping(
            {
                "database_url": url,
                "data_dir": tmp,
                "worker_threads": 0,
                "warm_start": False,
                "public_base_url": "http://testserver",
            }  # fmt: skip
        )
        with TestClient(create_app(settings)) as client:
            runtime = client.app.state.vigil  # type: ignore[attr-defined]
            with runtime.sessions.begin() as session:
                record, secret = repo.create_api_client(
                    session=session, box=runtime.box, operator="acme", scopes="upload"
                )
            granted = client.post(
                "/connect/token",
                data={"grant_type": "client_credentials"},
                auth=(record.client_id, secret),
            )
            assert granted.status_code == 200, granted.text
            # a bearer token, as API clients call: no password hash per request
            bearer = {"Authorization": f"Bearer {granted.json()['access_token']}"}

            def get(**params: Any) -> Any:
                response = client.get(
                    "/api/GetResults",
                    params={"rosterToken": token, "dataKey": "scores", **params},
                    headers=bearer,
                )
                assert response.status_code == 200, response.text[:300]
                return response

            ref = references[middle]
            get(schedule=ref)  # first request: imports and connections
            out["one_s"], one = timed(lambda: get(schedule=ref), repeat)
            out["one_sleep_s"], one_sleep = timed(
                lambda: get(schedule=ref, includeSleep="true"), repeat
            )
            out["page_s"], page = timed(lambda: get(offset=str(middle), limit="1"), repeat)
            out["same_answer"] = one.content == page.content
            out["sleep_answered"] = bool(one_sleep.json()["scheduleScores"][0]["sleep"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # the child: a fresh process, as a server's
        print(json.dumps(measure(cache_dir(args.crew, args.days), args.repeat)))
        return
    prepare(args.crew, args.days)
    child = subprocess.run(
        [
            sys.executable,
            __file__,
            "--measure",
            "--crew",
            str(args.crew),
            "--days",
            str(args.days),
            "--repeat",
            str(args.repeat),
        ],  # fmt: skip
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(child.stdout.strip().splitlines()[-1])
    load = os.getloadavg()
    print(
        f"GetResults, one schedule of {result['schedules']} "
        f"({args.crew} crew × {args.days} d, scores blob {result['blob_mib']:.1f} MiB; "
        f"load average {load[0]:.2f}), median of {args.repeat}"
    )
    one = result["one_s"]
    print(f"  schedule=REF                  {one:7.3f} s   budget {BUDGET_S} s  "
          f"{'ok' if one <= BUDGET_S else 'OVER'}")  # fmt: skip
    print(f"  schedule=REF&includeSleep     {result['one_sleep_s']:7.3f} s")
    print(f"  offset=k&limit=1 (whole blob) {result['page_s']:7.3f} s")
    print(f"  same bytes as the whole-blob answer: {result['same_answer']}")


if __name__ == "__main__":
    main()
