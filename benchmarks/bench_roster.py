"""Benchmark: read an airline's month of RosterData.

Run ``.venv/bin/python benchmarks/bench_roster.py [--crew N] [--days D] [--repeat R]``.
The roster is :func:`vigil.roster.synthetic.generate_airline_roster` (mix,
all 34 columns; 10,000 crew x 28 d = 140,747 rows). Prints, as the median of ``R``
warm runs (after one cold run that loads the airport tables):

- the reader (:func:`vigil.roster.parse_request`, cells split by Polars at this size)
  without and with building the ``Duty`` objects, and the same reader with its cells
  split in Python (``polars=False``, what rosters under
  :data:`vigil.roster.cells.POLARS_MIN_LINES` lines take), with the speed-up;
- ``vigil validate ROSTER`` and ``vigil --help`` as child processes, end to end
  (goals: <= 1.5 s and <= 0.3 s).

The machine is shared, so wall time and this process's CPU time are both shown.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster


def timed(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeat`` calls."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def child(args: list[str], repeat: int) -> float:
    """Median wall seconds of a ``python -m vigil`` child process."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "vigil", *args], capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    text = generate_airline_roster(args.crew, args.days, args.seed)
    n_rows = text.count("\n") - 1  # minus the header
    start = time.perf_counter()
    parsed = parse_request(text, "dmy")
    cold = time.perf_counter() - start
    if parsed.errors:
        raise SystemExit(f"generated roster has errors: {parsed.error_strings()[:3]}")
    columnar = timed(lambda: parse_request(text, "dmy"), args.repeat)
    with_duties = timed(lambda: parse_request(text, "dmy").schedules, args.repeat)
    by_python = timed(lambda: parse_request(text, "dmy", polars=False), args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "roster.csv"
        path.write_text(text, encoding="utf-8")
        validate = child(["validate", str(path)], args.repeat)
        help_ = child(["--help"], args.repeat)

    print(f"roster: {args.crew} crew x {args.days} days = {n_rows} rows, {len(text) / 1e6:.1f} MB")
    print(
        f"schedules {len(parsed.columns.references) if parsed.columns else 0}, "
        f"duties {parsed.duty_count}, intervals {parsed.interval_count}"
    )
    print(f"cold run (loads airport tables): {cold:.2f} s wall")
    print(f"median of {args.repeat} warm runs, wall / CPU:")
    print(f"  cells by Polars, arrays only:   {columnar[0]:.2f} / {columnar[1]:.2f} s")
    print(f"  cells by Polars + Duty objects: {with_duties[0]:.2f} / {with_duties[1]:.2f} s")
    print(f"  cells by Python, arrays only:   {by_python[0]:.2f} / {by_python[1]:.2f} s")
    print(f"  speed-up of Polars, arrays only: {by_python[0] / columnar[0]:.1f}x")
    print(f"best warm run: {columnar[0]:.2f} s wall, {n_rows / columnar[0]:,.0f} rows/s")
    print(f"vigil validate: {validate:.2f} s (goal <= 1.5 s)")
    print(f"vigil --help:   {help_:.2f} s (goal <= 0.3 s)")


if __name__ == "__main__":
    main()
