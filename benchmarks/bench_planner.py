"""Benchmark: plan one augmented duty's in-flight rest (goal <= 200 ms for 4 pilots).

Run ``.venv/bin/python benchmarks/bench_planner.py [--repeat N] [--json]``. Each crew member
flies 28 days of short-haul duties (predicted sleep) before a 14.5-hour LHR-SIN duty; the
planner searches every admissible split (15-min grid, crew assignment, EASA minimums) and
scores them in one batch through the scoring service. The JIT is warmed up first; the
figure is the median wall time of ``--repeat`` plans, for 4 pilots and for 3 pilots.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import UTC, datetime, timedelta

from vigil.planner import PlanRequest, plan_rest

HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,HomeBase,"
    "TimeReference,CrewComposition,SleepCount,SleepOrder"
)
ON = datetime(2026, 3, 29, 20, 0, tzinfo=UTC)


def roster(crew: tuple[str, ...], days: int = 28) -> str:
    """``days`` of history (5 days on, 2 off, 07:00-15:00 UTC at LHR), then the long haul."""
    lines = [HEADER]
    for ref in crew:
        for k in range(days):
            day = ON - timedelta(days=days - k)
            if k % 7 < 5 and day.date() < (ON - timedelta(days=1)).date():
                d = day.strftime("%d/%m/%Y")
                lines.append(f"{ref},{d},07:00,LHR,{d},15:00,CDG,LHR,0,2,0,1")
        off = ON + timedelta(hours=14.5)
        lines.append(
            f"{ref},{ON:%d/%m/%Y},{ON:%H:%M},LHR,{off:%d/%m/%Y},{off:%H:%M},SIN,LHR,0,"
            f"{len(crew)},1,1"
        )
    return "\r\n".join(lines)


def measure(crew: tuple[str, ...], repeat: int) -> tuple[float, int]:
    request = PlanRequest(roster(crew), ON, crew, crew[:2])
    plan_rest(request)  # warm-up (JIT, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        plan = plan_rest(request)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, plan.candidates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    four, n4 = measure(("CA", "FO", "CB", "FB"), args.repeat)
    three, n3 = measure(("CA", "FO", "CB"), args.repeat)
    print(f"4 pilots, 28 d history, 14.5 h duty: {four:.0f} ms per duty ({n4} splits)")
    print(f"3 pilots, 28 d history, 14.5 h duty: {three:.0f} ms per duty ({n3} splits)")
    if args.json:
        print(
            json.dumps(
                {
                    "four_ms": round(four, 1),
                    "four_splits": n4,
                    "three_ms": round(three, 1),
                    "three_splits": n3,
                    "repeat": args.repeat,
                }
            )
        )


if __name__ == "__main__":
    main()
