"""Chain evaluations per second: incremental (restart from the base) against full re-scores.

A base of ``--crew`` crew members over ``--days`` days (the synthetic airline mix of
:func:`vigil.roster.synthetic.generate_airline_duties`) is loaded once; each candidate
swaps the duties of a 3-day window of one chain for those another crew member of the same
base flies in it (:func:`vigil.optimise.synthetic.swap_candidates`), predicted sleep.
Batches of ``--batch`` candidates are evaluated

- incrementally (:meth:`vigil.optimise.Engine.evaluate`: restart at the window from the
  base's state, stop where the state re-converges), and
- in full (:meth:`~vigil.optimise.Engine.evaluate_full`: every chain from its warm-up
  start through the scoring pipeline),

alternately, ``--runs`` times; it prints the median evaluations per second of each (wall
and this process's CPU time, all threads) and their ratio within each run.
``--http`` adds the batch endpoint (``POST /v1/optimise/evaluate``) on a local server:
evaluations per second for ``--batch``-candidate requests and the server's CPU per
evaluation. ``--profile`` prints where one incremental batch spends its time (cProfile).
``--threads`` sets the engine's Numba threads per evaluation (default 1; 0: every one).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_optimise.py [--json]``
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import time
from typing import Any

import numpy as np

from vigil.optimise import Engine
from vigil.optimise.engine import CONVERGENCE_EPS
from vigil.optimise.synthetic import swap_candidates
from vigil.roster.synthetic import generate_airline_duties, render_roster


def timed(fn: Any) -> tuple[float, float]:
    """Wall and process CPU seconds of ``fn()``."""
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def horizon_figures(engine: Engine, cs: Any) -> dict[str, float]:
    """Where the walks of one batch stopped: the share of candidates reaching exact
    convergence and the output horizon before their chain ends, and the median days
    after the window (docs/optimise.md, "Horizon")."""
    seen: dict[str, Any] = {}
    walk = engine._walk

    def spy(*args: Any, **kwargs: Any) -> Any:
        out = walk(*args, **kwargs)
        seen["conv"], seen["out"] = out[2], out[3]
        return out

    engine._walk = spy  # type: ignore[method-assign]
    try:
        engine.evaluate(cs.pool, cs.candidates)
    finally:
        del engine._walk
    ws = engine._base.rec.ws
    end = cs.candidates.window_end
    figures: dict[str, float] = {"eps_out": engine._eps_out}
    for name, at in (("exact", seen["conv"]), ("output", seen["out"])):
        hit = at >= 0
        figures[f"{name}_share"] = float(hit.mean())
        days = (ws[at[hit]] - end[hit]) / 24.0
        figures[f"{name}_days"] = float(np.median(days)) if days.size else float("nan")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=200)
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--eps", type=float, default=None, help="convergence tolerance on S (engine default)"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="Numba threads of an evaluation (0: every one)"
    )
    args = parser.parse_args()
    duties = generate_airline_duties(args.crew, args.days, seed=7)
    t0 = time.perf_counter()
    eps = CONVERGENCE_EPS if args.eps is None else args.eps
    engine = Engine.from_roster(render_roster(duties), eps=eps, threads=args.threads or None)
    load_s = time.perf_counter() - t0
    sets = [
        swap_candidates(engine, duties, args.batch, seed=s, span_days=args.days)
        for s in range(args.runs)
    ]
    engine.evaluate(sets[0].pool, sets[0].candidates)  # compile / load kernels
    engine.evaluate_full(sets[0].pool, sets[0].candidates)
    horizon = horizon_figures(engine, sets[0])
    inc, full, ratio, moved = [], [], [], 0
    for cs in sets:
        got: dict[str, Any] = {}
        a = timed(lambda cs=cs, got=got: got.update(inc=engine.evaluate(cs.pool, cs.candidates)))
        b = timed(
            lambda cs=cs, got=got: got.update(full=engine.evaluate_full(cs.pool, cs.candidates))
        )
        # candidates whose duty risks differ from the full re-score by more than 0.001
        diff = abs(got["inc"].duty_risk - got["full"].duty_risk) > 1e-3 + 1e-9
        owner = np.repeat(np.arange(cs.candidates.n), np.diff(got["inc"].duty_ptr))
        moved += len(set(owner[diff].tolist()))
        inc.append(a)
        full.append(b)
        ratio.append(b[1] / a[1])
    n = args.batch
    result: dict[str, Any] = {
        "name": "optimise",
        "workload": f"{args.crew} crew x {args.days} d base, {n}-candidate batches, "
        "3-day window swapped, predicted sleep",
        "base_load_s": round(load_s, 2),
        "incremental_per_s_wall": round(n / statistics.median(w for w, _ in inc)),
        "incremental_per_s_cpu": round(n / statistics.median(c for _, c in inc)),
        "full_per_s_wall": round(n / statistics.median(w for w, _ in full)),
        "full_per_s_cpu": round(n / statistics.median(c for _, c in full)),
        "ratio_cpu_median": round(statistics.median(ratio), 2),
        "eps": engine.eps,
        "threads": args.threads,
        "candidates_off_by_more_than_0.001": moved,
        **horizon,
        "runs": args.runs,
        "cpus": os.cpu_count(),
        "load_avg": os.getloadavg()[0],
    }
    if args.http:
        from bench_optimise_http import http_figures

        result |= http_figures(render_roster(duties), sets, args.runs)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"vigil.optimise, {result['workload']}")
        print(
            f"  incremental: {result['incremental_per_s_wall']:>8,} eval/s wall  "
            f"{result['incremental_per_s_cpu']:>8,} eval/s per CPU-s  (goal >= 10,000)"
        )
        print(
            f"  full:        {result['full_per_s_wall']:>8,} eval/s wall  "
            f"{result['full_per_s_cpu']:>8,} eval/s per CPU-s"
        )
        print(f"  ratio (CPU, same run, median of {args.runs}): {result['ratio_cpu_median']}x")
        print(
            f"  eps {engine.eps:g}: {moved} of {n * args.runs} candidates' duty risks differ "
            "from the full re-score by more than 0.001"
        )
        print(
            f"  horizon (first batch): exact convergence {result['exact_share']:.0%} of "
            f"candidates, a median {result['exact_days']:.1f} d after the window; output "
            f"horizon (eps_out {result['eps_out']:.2g}) {result['output_share']:.0%}, "
            f"{result['output_days']:.1f} d"
        )
        for key in ("http_per_s_wall", "http_server_cpu_ms_per_eval"):
            if key in result:
                print(f"  {key}: {result[key]}")
        print(f"  load average {result['load_avg']:.1f} on {result['cpus']} CPUs")
    if args.profile:
        cs = sets[0]
        prof = cProfile.Profile()
        prof.enable()
        engine.evaluate(cs.pool, cs.candidates)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
