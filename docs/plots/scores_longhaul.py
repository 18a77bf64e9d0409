"""Scores next to predicted sleep for the 28-day long-haul roster of docs/sleep.md.

Run ``.venv/bin/python docs/plots/scores_longhaul.py``; writes
``docs/img/scores-longhaul.png`` with the same drawing as ``vigil score --plot``: KSS per
15-minute interval, duties shaded, predicted sleep as bars (in-flight, naps and main
sleep), the KSS 7 warning level, and each duty's risk.
"""

from __future__ import annotations

import sys
from pathlib import Path

from vigil.cli._plot import plot_report
from vigil.model import DEFAULT
from vigil.scoring.service import ScoreReport, score_schedules

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sleep_plots import long_haul_schedule  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "img" / "scores-longhaul.png"


def main() -> None:
    schedule = long_haul_schedule()
    results = score_schedules([schedule], DEFAULT, ("KSS",), risk=True)
    report = ScoreReport(
        scale="KSS",
        model_version=DEFAULT.model_version,
        schedules=tuple(results),
        errors=(),
        risk=True,
        include_sleep=True,
    )
    plot_report(report, OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
