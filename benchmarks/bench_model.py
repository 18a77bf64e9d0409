"""Benchmark of the model core alone: 10,000 crew x 35 days at 5-minute resolution.

Run: ``NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_model.py`` (one-core figure;
without the variable Numba uses every core). Options: ``--crew N --days D --step-min M
--chunk C``. Prints the JIT compile time (first call, including the on-disk cache load when
warm) separately from the steady-state time, and the throughput.

The roster is synthetic but realistic in structure: per person a 3-day warm-up of 23:00-07:00
sleep, then days with a randomised sleep (start 21:00-03:00 UTC, 5-9 h long) and, every
seventh day, a zone change of -8..+8 h; the body clock re-entrains (ref §3).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from vigil.model import DEFAULT, CrewTimeline, simulate_alertness


def make_timeline(n_crew: int, days: int, seed: int = 0) -> CrewTimeline:
    rng = np.random.default_rng(seed)
    day0 = 20_000 * 24.0  # 2024-10-04 00:00Z in epoch hours
    start = np.full(n_crew, day0 + 7.0)
    d = np.arange(days)
    sleep_start = day0 + 24.0 * d[None, :] + 23.0 + rng.uniform(-2.0, 4.0, (n_crew, days))
    sleep_start[:, :3] = day0 + 24.0 * d[None, :3] + 23.0
    length = rng.uniform(5.0, 9.0, (n_crew, days))
    length[:, :3] = 8.0
    sleep_end = sleep_start + length
    weeks = max(1, days // 7)
    zone_time = day0 + 24.0 * 7.0 * np.arange(weeks)[None, :].repeat(n_crew, axis=0) + 10.0
    zone_time[:, 0] = day0
    zone_offset = rng.integers(-8, 9, (n_crew, weeks)).astype(np.float64)
    zone_offset[:, 0] = 0.0
    return CrewTimeline(
        start=start,
        s_start=np.full(n_crew, 13.82),
        phase_start=np.zeros(n_crew),
        sleep_start=sleep_start,
        sleep_end=sleep_end,
        sleep_quality=np.ones_like(sleep_start),
        zone_time=zone_time,
        zone_offset=zone_offset,
    )


def _rows(timeline: CrewTimeline, lo: int, hi: int) -> CrewTimeline:
    return CrewTimeline(
        *(getattr(timeline, f)[lo:hi] for f in CrewTimeline.__dataclass_fields__)  # type: ignore[attr-defined]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--crew", type=int, default=10_000)
    ap.add_argument("--days", type=int, default=35)
    ap.add_argument("--step-min", type=float, default=5.0)
    ap.add_argument("--chunk", type=int, default=2_000, help="crew per call (bounds memory)")
    args = ap.parse_args()

    timeline = make_timeline(args.crew, args.days)
    step = args.step_min / 60.0
    n_samples = int(round(args.days * 24.0 / step))
    grid = timeline.start[0] + step * np.arange(n_samples)

    small = _rows(timeline, 0, 2)
    t = time.perf_counter()
    simulate_alertness(small, np.tile(grid[:10], (2, 1)), DEFAULT)
    compile_s = time.perf_counter() - t

    # every crew member shares the grid: one contiguous sample block and one output buffer
    # per chunk size, built outside the timed region (the caller owns these arrays)
    chunk = min(args.chunk, args.crew)
    samples = np.ascontiguousarray(np.broadcast_to(grid, (chunk, n_samples)))
    out = np.empty_like(samples)
    parts = [_rows(timeline, lo, min(lo + chunk, args.crew)) for lo in range(0, args.crew, chunk)]
    best = np.inf
    for _ in range(3):
        t = time.perf_counter()
        checksum = 0.0
        for part in parts:
            rows = part.n_crew
            x = simulate_alertness(part, samples[:rows], DEFAULT, out=out[:rows])
            checksum += float(x[:, -1].sum())
        best = min(best, time.perf_counter() - t)

    total_samples = args.crew * n_samples
    print(f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}")
    print(f"crew={args.crew} days={args.days} step={args.step_min} min samples={total_samples:,}")
    print(f"first call (JIT compile or cache load): {compile_s:.2f} s")
    print(f"steady state, best of 3: {best:.3f} s")
    print(
        f"throughput: {args.crew * args.days / best:,.0f} crew-days/s, "
        f"{total_samples / best:,.0f} samples/s (checksum {checksum:.6f})"
    )


if __name__ == "__main__":
    main()
