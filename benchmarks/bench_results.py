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

import json
import os
from pathlib import Path
from typing import Any

import bench_fleet as fleet
from _month_store import app_settings, fresh_store, month_parser, read_month, run_child, store_month

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

    from vigil.results.compact import unpack
    from vigil.store import repo
    from vigil.web.app import create_app

    month = read_month(folder)
    references = unpack(month.scores, ("KSS",)).references
    middle = len(references) // 2
    out: dict[str, Any] = {"schedules": len(references), "blob_mib": len(month.scores) / 2**20}
    with fresh_store(console_user=False) as store:
        token, _ = store_month(store, month, summary=False)
        del month
        settings = app_settings(store)
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
    parser = month_parser(__doc__, 5)
    args = parser.parse_args()
    if args.measure:  # the child: a fresh process, as a server's
        print(json.dumps(measure(cache_dir(args.crew, args.days), args.repeat)))
        return
    prepare(args.crew, args.days)
    result = run_child(__file__, {"crew": args.crew, "days": args.days, "repeat": args.repeat})
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
