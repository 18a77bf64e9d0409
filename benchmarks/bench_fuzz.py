"""Long fuzzing of the RosterData, SleepData and ActivityData parsers.

Runs the same Hypothesis properties as ``tests/hardening/test_parser_fuzz.py`` (shared
strategies in ``tests/hardening/_fuzz.py``) with a time budget instead of a small
example count: each property runs until its share of ``--seconds`` is used. Then
measures reading time at 1k, 8k and 64k rows/records for every input kind and reports
the worst growth ratio per 8x (linear ≈ 8; the goal is below 16, quadratic would be 64).

Run: ``.venv/bin/python benchmarks/bench_fuzz.py [--seconds 300] [--json]``.
Exit status 1 when a property fails or the growth goal is missed. The process runs under
an address-space cap (``--max-memory-gib``, default 4): an input that makes the parser
or the scorer allocate more fails its property with ``MemoryError`` (shrunk by
Hypothesis) instead of taking the machine down. (Two 5-minute runs without the cap grew
to 21-24 GB and were killed by the kernel; capped runs stay clean; see docs/hardening.md.)
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hardening import _fuzz  # noqa: E402
from vigil.roster import parse_request  # noqa: E402

#: goal: 8x the input in less than 16x the time (2x slack over linear)
GROWTH_GOAL = 16.0

PROPERTIES: dict[str, tuple[Any, Callable[..., None]]] = {
    "roster-parse": (_fuzz.roster_texts(), lambda c: _fuzz.check_parse(*c)),
    "sleep-parse": (
        _fuzz.sleep_requests(),
        lambda c: _fuzz.check_parse(c[0], "dmy", sleep_data=c[1]),
    ),
    "activity-parse": (
        _fuzz.activity_requests(),
        lambda c: _fuzz.check_parse(c[0], "dmy", activity_text=c[1]),
    ),
    "roster-score": (_fuzz.roster_texts(max_crew=2, max_days=4), lambda c: _fuzz.check_score(*c)),
    "sleep-score": (
        _fuzz.sleep_requests(),
        lambda c: _fuzz.check_score(c[0], "dmy", sleep_data=c[1]),
    ),
    "activity-score": (
        _fuzz.activity_requests(),
        lambda c: _fuzz.check_score(c[0], "dmy", activity_text=c[1]),
    ),
}


#: examples per Hypothesis run; runs repeat (fresh random seed) until the time is up. One
#: endless run kept Hypothesis's record of every explored example: 24 GB after minutes
ROUND = 300


def fuzz(name: str, seconds: float) -> dict[str, Any]:
    """Run one property in rounds until ``seconds`` have passed; examples and outcome."""
    strategy, check = PROPERTIES[name]
    stop_at = time.monotonic() + seconds
    count = 0
    failure = None
    while failure is None and time.monotonic() < stop_at:

        @settings(
            max_examples=ROUND,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(strategy)
        def prop(case: Any) -> None:
            nonlocal count
            count += 1
            check(case)

        try:
            prop()
        except Exception:  # a real failure: Hypothesis has shrunk it
            failure = traceback.format_exc(limit=3)[-2000:]
    return {"property": name, "examples": count, "seconds": seconds, "failure": failure}


def _growth() -> dict[str, float]:
    def roster(make: Callable[[int], str]) -> Callable[[int], Callable[[], object]]:
        def build(n: int) -> Callable[[], object]:
            text = make(n)
            return lambda: parse_request(text, "dmy")

        return build

    def sleep(n: int) -> Callable[[], object]:
        roster_text, records = _fuzz.sleep_of_records(n)
        return lambda: parse_request(roster_text, "dmy", sleep_data=records)

    def activities(n: int) -> Callable[[], object]:
        roster_text, text = _fuzz.activities_of_rows(n)
        return lambda: parse_request(roster_text, "dmy", activity_text=text)

    def one_line(n: int) -> Callable[[], object]:
        text = "P1,01/03/2026,06:00,LHR," * n
        return lambda: parse_request(text, "dmy")

    kinds = {
        "valid-rows": roster(_fuzz.roster_of_rows),
        "error-rows": roster(_fuzz.bad_roster_of_rows),
        "quoted-rows": roster(_fuzz.quoted_roster_of_rows),
        "sleep-records": sleep,
        "activity-rows": activities,
        "one-line": one_line,
    }
    out = {}
    for name, make in kinds.items():
        ratios = [_fuzz.scaling_ratio(make, n, 8 * n) for n in (1000, 8000)]
        out[name] = round(max(ratios), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="fuzzing budget in all")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--max-memory-gib",
        type=float,
        default=4.0,
        help="address-space cap: an input that needs more fails its property (MemoryError)",
    )
    args = parser.parse_args()
    cap = int(args.max_memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    share = args.seconds / len(PROPERTIES)
    results = [fuzz(name, share) for name in PROPERTIES]
    growth = _growth()
    failures = [r for r in results if r["failure"]]
    worst = max(growth.values())
    summary = {
        "name": "fuzz",
        "workload": f"{len(PROPERTIES)} properties x {share:.0f} s; growth 1k->8k->64k",
        "examples": sum(r["examples"] for r in results),
        "failures": len(failures),
        "worst_growth_per_8x": worst,
        "growth": growth,
        "properties": results,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for r in results:
            verdict = "FAILED" if r["failure"] else "ok"
            print(f"{r['property']:>16}: {r['examples']:>7} examples in {share:.0f} s  {verdict}")
            if r["failure"]:
                print(r["failure"])
        for name, ratio in growth.items():
            print(f"{name:>16}: 8x input -> {ratio:.1f}x time")
        print(
            f"goal: no failure, growth < {GROWTH_GOAL:.0f}x per 8x: "
            f"{'met' if not failures and worst < GROWTH_GOAL else 'NOT met'}"
        )
    sys.exit(1 if failures or worst >= GROWTH_GOAL else 0)


if __name__ == "__main__":
    main()
