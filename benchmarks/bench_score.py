"""End-to-end benchmark of ``vigil score``.

Generates an airline's month for 10,000 crew x 28 days
(:func:`vigil.roster.synthetic.generate_airline_roster`: the realistic mix, all 34
columns, 140,747 rows), derives a SleepData file for it (the predicted sleep, written as
given records), then times ``vigil score ROSTER --date-format dmy --scale KSS --risk
--out OUT.json`` as a child process:

- with predicted sleep (no ``--sleep``), the path most customers use: the goal,
  at most 5 s and 1.5 GiB peak memory;
- with given sleep (``--sleep``): at most 6 s.

Peak memory is the child's maximum resident set size. Run:
``.venv/bin/python benchmarks/bench_score.py [--crew 10000 --days 28] [--json]``

``--request`` instead measures one synchronous ProcessFatigueRisk's scoring in process:
the CPU time (``time.process_time``) of :func:`vigil.scoring.service.score` plus the
response encoding for a single crew member's 28-day roster, median of ``--repeat`` runs
after warm-up (goal: at most 1 ms of server CPU per request, of which this is
the scoring share; HTTP, auth and JSON parsing of the body come on top).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster, generate_roster
from vigil.scoring.grid import from_epoch_hours
from vigil.scoring.predict import predict_sleep


def sleep_records(roster: str) -> list[dict[str, str]]:
    """Predicted sleep of every schedule, as SleepData records (contract §3.2)."""
    schedules = parse_request(roster, "dmy").schedules
    records = []
    for schedule, episodes in zip(schedules, predict_sleep(schedules), strict=True):
        for episode in episodes:
            records.append(
                {
                    "ScheduleName": schedule.reference,
                    "SleepStart": from_epoch_hours(episode.start).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "SleepEnd": from_epoch_hours(episode.end).strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            )
    return records


def run(args: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS [MiB] and CPU seconds (user + system, all threads) of one
    child process, from its own rusage (wait4). CPU time is the figure that holds on a
    shared machine, where wall time grows with the other jobs' load."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            err.seek(0)
            raise SystemExit(err.read().decode(errors="replace"))
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def request_cpu(repeat: int) -> dict[str, object]:
    """Median in-process CPU [ms] of scoring one 28-day crew member with risk, JSON out."""
    from vigil.scoring.service import ScoreRequest, score

    roster = generate_airline_roster(1, 28, seed=3)
    request = ScoreRequest(roster, risk=True)
    for _ in range(5):  # JIT compile, caches
        score(request).to_json()
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        score(request).to_json()
        times.append(time.process_time() - t0)
    times.sort()
    return {
        "name": "score-request",
        "workload": f"1 crew x 28 d ({roster.count(chr(10))} rows), risk, JSON",
        "median_ms": round(1000 * times[len(times) // 2], 3),
        "p90_ms": round(1000 * times[int(len(times) * 0.9)], 3),
        "load_avg": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--request", action="store_true", help="one-request CPU instead")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    if args.request:
        figures = request_cpu(args.repeat)
        print(json.dumps(figures) if args.json else figures)
        return
    vigil = [sys.executable, "-m", "vigil", "score"]
    options = ["--date-format", "dmy", "--scale", "KSS", "--risk"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        roster = generate_airline_roster(args.crew, args.days, seed=7)
        (work / "roster.csv").write_text(roster, encoding="utf-8")
        (work / "sleep.json").write_text(json.dumps(sleep_records(roster)), encoding="utf-8")
        rows = roster.count("\n")
        # warm the JIT cache on both paths so both runs measure steady state; the
        # given-sleep warm-up needs >= 1,000 SleepData records (the columnar reader)
        small = generate_roster(2, 3, seed=1)
        (work / "small.csv").write_text(small, encoding="utf-8")
        run([*vigil, str(work / "small.csv"), "--out", str(work / "small.json")])
        warm = generate_airline_roster(100, args.days, seed=1)
        (work / "warm.csv").write_text(warm, encoding="utf-8")
        (work / "warm_sleep.json").write_text(json.dumps(sleep_records(warm)), "utf-8")
        run([*vigil, str(work / "warm.csv"), *options, "--sleep", str(work / "warm_sleep.json")])
        given = run(
            [
                *vigil,
                str(work / "roster.csv"),
                *options,
                "--sleep",
                str(work / "sleep.json"),
                "--out",
                str(work / "given.json"),
            ]
        )
        predicted = run(
            [*vigil, str(work / "roster.csv"), *options, "--out", str(work / "pred.json")]
        )
        size = (work / "given.json").stat().st_size / 2**20
    crew_days = args.crew * args.days
    result = {
        "name": "score",
        "workload": f"{args.crew} crew x {args.days} d ({rows} rows)",
        "given_s": round(given[0], 2),
        "given_peak_mib": round(given[1]),
        "given_cpu_s": round(given[2], 2),
        "predicted_s": round(predicted[0], 2),
        "predicted_peak_mib": round(predicted[1]),
        "predicted_cpu_s": round(predicted[2], 2),
        "output_mib": round(size, 1),
        "cpus": os.cpu_count(),
        "load_avg": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"vigil score, {result['workload']}, JSON out ({size:.0f} MiB)")
    print(
        f"  given sleep:     {given[0]:6.1f} s  ({given[2]:.1f} s CPU)  peak {given[1]:6.0f} MiB  "
        f"{crew_days / given[0]:,.0f} crew-days/s  (goal <= 6 s)"
    )
    print(
        f"  predicted sleep: {predicted[0]:6.1f} s  ({predicted[2]:.1f} s CPU)  "
        f"peak {predicted[1]:6.0f} MiB  "
        f"{crew_days / predicted[0]:,.0f} crew-days/s  (goal <= 5 s, <= 1536 MiB)"
    )


if __name__ == "__main__":
    main()
