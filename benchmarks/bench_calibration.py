"""What one calibration report costs at the largest observation set Vigil accepts.

An attack found that a 7.6 MiB observation set cost 6–7 s of CPU per report (GetCalibration
or PDF) and about 100 MiB of memory per cached report. A set now holds at most
``VIGIL_MAX_OBSERVATION_RATINGS`` ratings (default 50,000); this builds the report (JSON
and PDF) of a set of about that size, in this process, and prints its CPU time, the
set's size and the process's peak RSS growth; medians of ``--runs`` runs.

    .venv/bin/python benchmarks/bench_calibration.py [--crew 600 --runs 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from vigil.calibration import build_report, parse_observations, simulate_observations
from vigil.calibration.plots import report_pdf
from vigil.config.settings import Settings
from vigil.domain import DateFormat
from vigil.roster.synthetic import generate_roster


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cap = Settings.from_mapping({}).max_observation_ratings
    roster = generate_roster(args.crew, 28, seed=3)
    text = simulate_observations(roster, seed=1, bias=0.5, per_duty=4)
    ratings, errors = parse_observations(text)
    ratings = ratings[:cap]
    assert not errors
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    json_cpu, pdf_cpu = [], []
    for _ in range(args.runs):
        started = time.process_time()
        report = build_report(roster, DateFormat.DMY, ratings)
        report.to_dict()
        json_cpu.append(time.process_time() - started)
        started = time.process_time()
        report_pdf(report, "bench")
        pdf_cpu.append(time.process_time() - started)
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(
        f"calibration report, {len(ratings):,} ratings (cap {cap:,}; "
        f"{len(text.encode()) / 2**20:.1f} MiB of CSV for {args.crew} crew): "
        f"JSON {statistics.median(json_cpu):.2f} s CPU, PDF +{statistics.median(pdf_cpu):.2f} s, "
        f"peak RSS growth {growth:.0f} MiB (medians of {args.runs} runs)"
    )


if __name__ == "__main__":
    main()
