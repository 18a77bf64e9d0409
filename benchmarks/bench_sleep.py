"""Benchmark: sleep prediction for 10,000 crew x 28 days (goal <= 3 s on one core).

Run ``NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_sleep.py [n_crew] [n_days]
[repeats]`` (prints medians of ``repeats`` runs, default 3). The roster comes from
the synthetic generator (:func:`vigil.roster.synthetic.generate_roster`) through the real
parser, so it holds the usual mix of short-haul days and augmented long-haul trips. Numba
runs on one thread; the JIT is warmed up on a small roster first. Timed separately:
packing schedules into arrays (Python, per duty) and the prediction kernel (one call).
Each figure is wall time with the process's CPU time beside it (the CPU time holds on a
shared machine, where wall time does not).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numba

from vigil.model.sleep import predict_packed
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_roster
from vigil.scoring.predict import pack_schedules, predict_sleep


@contextmanager
def _timer(into: list[tuple[float, float]]) -> Iterator[None]:
    """Append the (wall, CPU) seconds of the block to ``into``."""
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    into.append((time.perf_counter() - wall, time.process_time() - cpu))


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main(n_crew: int = 10_000, n_days: int = 28, repeats: int = 3) -> None:
    numba.set_num_threads(1)
    warm = parse_request(generate_roster(20, 7, seed=1), "dmy").schedules
    predict_sleep(warm)  # JIT warm-up (cached on disk after the first run)

    t = time.perf_counter()
    parsed = parse_request(generate_roster(n_crew, n_days, seed=42), "dmy")
    t_parse = time.perf_counter() - t
    schedules = parsed.schedules
    n_duties = sum(len(s.duties) for s in schedules)

    t_packs: list[tuple[float, float]] = []
    t_kernels: list[tuple[float, float]] = []
    t_totals: list[tuple[float, float]] = []
    for _ in range(repeats):  # the median of several runs (the machine is shared)
        with _timer(t_packs):
            packed = pack_schedules(schedules)
        with _timer(t_kernels):
            ptr, start, end, _quality, _kind = predict_packed(packed)
        with _timer(t_totals):
            episodes = predict_sleep(schedules)
    (t_pack, c_pack), (t_kernel, c_kernel), (t_total, c_total) = (
        _medians(x) for x in (t_packs, t_kernels, t_totals)
    )
    print(
        f"median of {repeats} runs; end to end per run: "
        + ", ".join(f"{w:.2f} s ({c:.2f} CPU-s)" for w, c in t_totals)
    )

    crew_days = len(schedules) * n_days
    hours = float((end - start).sum())
    span_days = float((packed.end - packed.start).sum()) / 24.0
    print(f"schedules {len(schedules)}, duties {n_duties}, crew-days {crew_days}")
    print(f"roster generation + parsing   {t_parse:7.2f} s (not part of prediction)")
    print(f"pack_schedules                {t_pack:7.2f} s  {c_pack:6.2f} CPU-s")
    print(
        f"predict_packed (kernel)       {t_kernel:7.2f} s  {c_kernel:6.2f} CPU-s"
        f"  {crew_days / t_kernel:,.0f} crew-days/s"
    )
    print(
        f"predict_sleep end to end      {t_total:7.2f} s  {c_total:6.2f} CPU-s"
        f"  {crew_days / t_total:,.0f} crew-days/s"
    )
    print(
        f"episodes {int(ptr[-1])} ({sum(map(len, episodes))}), "
        f"mean sleep {hours / span_days:.2f} h per simulated day (warm-up included)"
    )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:4]]
    main(*args)
