"""Benchmark: parse and validate a generated 10,000-crew x 28-day roster (issue 2).

Run ``.venv/bin/python benchmarks/bench_roster.py [--crew N] [--days D] [--repeat R]``.
Prints the row count, the cold first run (includes loading the airport tables) and the
best of ``R`` warm runs, in seconds and rows per second. Goal: at most 3 s on one core.
The machine is shared, so each run shows wall-clock time and this process's CPU time
(``time.process_time``), and the best warm run is reported.
"""

from __future__ import annotations

import argparse
import time

from vigil.roster import parse_request
from vigil.roster.synthetic import generate_roster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    text = generate_roster(args.crew, args.days, args.seed)
    n_rows = text.count("\n") - 1  # minus the header

    times: list[float] = []
    cpu: list[float] = []
    parsed = None
    for _ in range(1 + args.repeat):
        parsed = None  # free the previous result outside the timed region
        start, start_cpu = time.perf_counter(), time.process_time()
        parsed = parse_request(text, "dmy")
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        if parsed.errors:
            raise SystemExit(f"generated roster has errors: {parsed.error_strings()[:3]}")
    assert parsed is not None
    cold, warm = times[0], times[1:]
    best = min(warm) if warm else cold
    print(f"roster: {args.crew} crew x {args.days} days = {n_rows} rows, {len(text) / 1e6:.1f} MB")
    print(
        f"schedules {len(parsed.schedules)}, duties {parsed.duty_count}, "
        f"intervals {parsed.interval_count}"
    )
    print(f"cold run (loads airport tables): {cold:.2f} s wall, {cpu[0]:.2f} s CPU")
    print(f"warm runs, wall: {', '.join(f'{t:.2f}' for t in warm)} s")
    print(f"warm runs, CPU:  {', '.join(f'{t:.2f}' for t in cpu[1:])} s")
    print(f"best warm run: {best:.2f} s wall, {n_rows / best:,.0f} rows/s (goal <= 3 s)")
    print(f"best warm CPU: {min(cpu[1:] or cpu):.2f} s, {n_rows / min(cpu[1:] or cpu):,.0f} rows/s")


if __name__ == "__main__":
    main()
