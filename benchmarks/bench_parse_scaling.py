"""Reading time against input size: 8x the input should take about 8x the time (linear).

The timing ratios that are too noisy for the test suite on a shared 2-core machine live
here (``tests/hardening/test_parser_fuzz.py`` keeps the steadier ones): SleepData records
and one huge RosterData line without line breaks (a client that forgot the ``\\r\\n``),
beside the roster, error-row, quoted-row and ActivityData readers for comparison. Each
ratio is CPU time at ``--large`` over that at ``--small``, both the best of 5
(``tests/hardening/_fuzz.py``); quadratic reading would show ~64 at the defaults.

    .venv/bin/python benchmarks/bench_parse_scaling.py [--small 1000 --large 8000]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hardening import _fuzz  # noqa: E402
from vigil.roster import parse_request  # noqa: E402

Make = Callable[[int], Callable[[], object]]


def _roster(make: Callable[[int], str]) -> Make:
    def build(n: int) -> Callable[[], object]:
        text = make(n)
        return lambda: parse_request(text, "dmy")

    return build


def _sleep(n: int) -> Callable[[], object]:
    roster, records = _fuzz.sleep_of_records(n)
    return lambda: parse_request(roster, "dmy", sleep_data=records)


def _activities(n: int) -> Callable[[], object]:
    roster, activities = _fuzz.activities_of_rows(n)
    return lambda: parse_request(roster, "dmy", activity_text=activities)


def _huge_line(n: int) -> Callable[[], object]:
    text = "P1,01/03/2026,06:00,LHR," * n
    return lambda: parse_request(text, "dmy")


CASES: dict[str, Make] = {
    "valid-rows": _roster(_fuzz.roster_of_rows),
    "error-rows": _roster(_fuzz.bad_roster_of_rows),
    "quoted-rows": _roster(_fuzz.quoted_roster_of_rows),
    "sleep-records": _sleep,
    "activity-rows": _activities,
    "one-huge-line": _huge_line,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=8000)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"reading time at {args.large} over {args.small} (load average {load:.2f}):")
    for name, make in CASES.items():
        ratio = _fuzz.scaling_ratio(make, args.small, args.large)
        print(f"  {name:<14} {ratio:6.1f}x  (linear {args.large / args.small:.0f}x)")


if __name__ == "__main__":
    main()
