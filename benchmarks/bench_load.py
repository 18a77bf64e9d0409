"""Load test with locust, headless: a mix of every kind of call, zero errors.

Starts ``vigil serve --workers 2`` in a temporary directory (loopback only), then runs
``--users`` locust users (default 50) for ``--seconds`` (default 60) against it. Each
user takes its tokens once, then loops over weighted tasks with 0.1–0.5 s think time:

    token (1), ProcessFatigue (4), ProcessFatigueRisk (3), UploadRoster (1),
    GetResults status of its last upload (1)

Scoring requests carry a 28-day single-crew roster (predicted sleep, as bench_api);
uploads a 7-day one. Bounded in time and in requests (``--max-requests``, default
200,000: the run stops early past it). Any non-2xx answer or transport error is an
error; the goal is zero errors, with p99 per call kind reported. The load generator
shares the machine (2 cores here) with the server.

Run: ``.venv/bin/python benchmarks/bench_load.py [--users 50] [--seconds 60] [--json]``
"""

# locust monkey-patches the standard library with gevent: import it first
from locust import HttpUser, between, events, task  # isort: skip
from locust.env import Environment  # isort: skip

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gevent
from _server import free_port, start_server

from vigil.roster.synthetic import generate_roster

SCOPES = {
    "fatigue": "svc_fast_safe_api",
    "risk": "svc_fast_safe_risk_api",
    "upload": "svc_safe_upload_api",
}
SCORING_BODY = {
    "RosterData": generate_roster(1, 28, seed=3),
    "SleepData": [],
    "DateFormat": "dmy",
    "PreferredScale": "KSS",
}
UPLOAD_BODY = {"RosterData": generate_roster(1, 7, seed=5)}
CREDENTIALS: dict[str, str] = {}


class VigilUser(HttpUser):
    """One API client of an airline: tokens once, then a weighted mix of calls."""

    wait_time = between(0.1, 0.5)

    def on_start(self) -> None:
        self.tokens = {kind: self._token(scope) for kind, scope in SCOPES.items()}
        self.last_roster: str | None = None

    def _token(self, scope: str) -> str:
        with self.client.post(
            "/connect/token",
            data={"grant_type": "client_credentials", "scope": scope},
            auth=(CREDENTIALS["id"], CREDENTIALS["secret"]),
            name="token",
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"token {response.status_code}")
                return ""
            return str(response.json()["access_token"])

    def _auth(self, kind: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[kind]}"}

    @task(1)
    def token(self) -> None:
        self._token(SCOPES["fatigue"])

    @task(4)
    def process_fatigue(self) -> None:
        self.client.post(
            "/api/Processor/ProcessFatigue",
            json=SCORING_BODY,
            headers=self._auth("fatigue"),
            name="ProcessFatigue",
        )

    @task(3)
    def process_fatigue_risk(self) -> None:
        self.client.post(
            "/api/Processor/ProcessFatigueRisk",
            json=SCORING_BODY,
            headers=self._auth("risk"),
            name="ProcessFatigueRisk",
        )

    @task(1)
    def upload(self) -> None:
        response = self.client.post(
            "/api/UploadRoster", json=UPLOAD_BODY, headers=self._auth("upload"), name="UploadRoster"
        )
        if response.status_code == 200:
            self.last_roster = str(response.json()["rosterToken"])

    @task(1)
    def status(self) -> None:
        if self.last_roster is None:
            return
        self.client.get(
            "/api/GetResults",
            params={"rosterToken": self.last_roster, "dataKey": "status"},
            headers=self._auth("upload"),
            name="GetResults",
        )


def run(base: str, users: int, seconds: float, max_requests: int) -> dict[str, Any]:
    env = Environment(user_classes=[VigilUser], host=base, events=events)
    runner = env.create_local_runner()
    runner.start(users, spawn_rate=max(1, users // 5))
    started = time.monotonic()

    def stop_when_done() -> None:
        while time.monotonic() - started < seconds:
            if env.stats.total.num_requests >= max_requests:
                break
            gevent.sleep(0.5)
        runner.quit()

    gevent.spawn(stop_when_done)
    runner.greenlet.join()
    elapsed = time.monotonic() - started
    kinds = {}
    for (name, _method), entry in sorted(env.stats.entries.items()):
        kinds[name] = {
            "requests": entry.num_requests,
            "errors": entry.num_failures,
            "rps": round(entry.num_requests / elapsed, 1),
            "p50_ms": entry.get_response_time_percentile(0.5),
            "p99_ms": entry.get_response_time_percentile(0.99),
        }
    total = env.stats.total
    return {
        "name": "load",
        "workload": f"{users} users x {elapsed:.0f} s, mixed calls, vigil serve --workers 2",
        "users": users,
        "seconds": round(elapsed, 1),
        "requests": total.num_requests,
        "errors": total.num_failures,
        "rps": round(total.num_requests / elapsed, 1),
        "p50_ms": total.get_response_time_percentile(0.5),
        "p99_ms": total.get_response_time_percentile(0.99),
        "kinds": kinds,
        "error_samples": [str(e.error)[:200] for e in list(env.stats.errors.values())[:5]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        process, client_id, secret = start_server(
            Path(tmp), port, args.workers, VIGIL_WORKER_PROCESSES="0"
        )
        CREDENTIALS.update(id=client_id, secret=secret)
        try:
            result = run(f"http://127.0.0.1:{port}", args.users, args.seconds, args.max_requests)
        finally:
            process.terminate()
            process.wait(timeout=60)
    if args.json:
        print(json.dumps(result))
    else:
        print(result["workload"])
        print(
            f"{'call':>20} {'requests':>9} {'errors':>7} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7}"
        )
        for name, k in result["kinds"].items():
            print(
                f"{name:>20} {k['requests']:>9} {k['errors']:>7} {k['rps']:>7.1f} "
                f"{k['p50_ms']:>7.0f} {k['p99_ms']:>7.0f}"
            )
        print(
            f"{'total':>20} {result['requests']:>9} {result['errors']:>7} {result['rps']:>7.1f} "
            f"{result['p50_ms']:>7.0f} {result['p99_ms']:>7.0f}"
        )
        for sample in result["error_samples"]:
            print("error:", sample)
        print(f"goal: zero errors: {'met' if result['errors'] == 0 else 'NOT met'}")
    sys.exit(0 if result["errors"] == 0 else 1)


if __name__ == "__main__":
    main()
