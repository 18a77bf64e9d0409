"""The golden baseline's scenarios and the function that computes it (item 8).

``tests/data/golden.json`` pins, for the README roster and a few scenario rosters, the
interval counts, every duty's risk and a sample of scores on all six scales, as the
scoring service computes them through its public entry point
(:func:`vigil.scoring.service.score`, the path of the API, the CLI and the worker).
A refactor must leave it byte-identical; a deliberate model change regenerates it with
``scripts/update-golden`` and says why in the commit.

Run as a script (``scripts/update-golden``) it rewrites the baseline file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = DATA / "golden.json"
#: Scores sampled per schedule and scale (evenly spread, first and last included).
SAMPLES = 12

#: The README's quick-start roster (README "Quick start").
README_ROSTER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0\r\n"
    "P1,03/03/2026,21:10,LHR,04/03/2026,07:00,JFK,LHR,2"
)

#: A run of four nights out of London (local times), then a day off and an early.
NIGHT_RUN = "\r\n".join(
    [
        "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
        "Sectors,HomeBase,TimeReference",
        "N1,09/03/2026,22:00,LHR,10/03/2026,06:30,LHR,2,LHR,2",
        "N1,10/03/2026,22:00,LHR,11/03/2026,06:30,LHR,2,LHR,2",
        "N1,11/03/2026,23:00,LHR,12/03/2026,07:00,LHR,2,LHR,2",
        "N1,12/03/2026,22:30,LHR,13/03/2026,06:00,LHR,1,LHR,2",
        "N1,15/03/2026,05:15,LHR,15/03/2026,13:00,LHR,4,LHR,2",
    ]
)


def scenarios() -> dict[str, dict[str, object]]:
    """Name -> keyword arguments of :class:`vigil.scoring.service.ScoreRequest`."""
    return {
        "readme": {"roster_text": README_ROSTER},
        "night_run": {"roster_text": NIGHT_RUN},
        # short-haul multi-sector, augmented long-haul with rests across zones, cabin crew
        "airline_mix": {"roster_text": (DATA / "golden_airline.csv").read_text()},
        "given_sleep": {
            "roster_text": (DATA / "roster_small.csv").read_text(),
            "sleep_data": json.loads((DATA / "sleep_small.json").read_text()),
            "activity_text": (DATA / "activity_small.csv").read_text(),
        },
    }


def _sample(n: int) -> list[int]:
    if n <= SAMPLES:
        return list(range(n))
    return sorted({round(i * (n - 1) / (SAMPLES - 1)) for i in range(SAMPLES)})


def compute() -> dict[str, object]:
    """The baseline as a JSON-ready dict (scores on all six scales, risk on)."""
    from vigil.scoring.service import SCALE_CODES, ScoreRequest, score

    out: dict[str, object] = {}
    for name, kwargs in scenarios().items():
        request = ScoreRequest(risk=True, extra_scales=SCALE_CODES, **kwargs)  # type: ignore[arg-type]
        report = score(request)
        schedules = []
        for result in report.schedules:
            n = int(result.scores["KSS"].shape[0])
            picks = _sample(n)
            schedules.append(
                {
                    "schedule": result.reference,
                    "intervals": n,
                    "duties": [[d.first_interval, d.interval_count] for d in result.duties],
                    "risk": [d.risk for d in result.duties],
                    "sample": picks,
                    "scores": {
                        code: [float(result.scores[code][i]) for i in picks] for code in SCALE_CODES
                    },
                }
            )
        out[name] = {
            "modelVersion": report.model_version,
            "errors": list(report.errors),
            "schedules": schedules,
        }
    return out


def render(baseline: dict[str, object]) -> str:
    """The baseline file's exact text."""
    return json.dumps(baseline, indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    GOLDEN.write_text(render(compute()))
    print(f"wrote {GOLDEN}", file=sys.stderr)
