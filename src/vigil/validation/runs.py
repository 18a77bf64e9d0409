"""The common scoring run of the validation report: every scenario, in one request.

It sits above :mod:`vigil.validation.scenarios` and :mod:`vigil.validation.catalog`, so the
``*_cases`` row modules can add scenarios (their ``scenarios()``) without the scenarios
module importing the catalog that imports them.
"""

from __future__ import annotations

import functools

from vigil.scoring.request import ScoreRequest
from vigil.scoring.service import score
from vigil.validation import rosters as r
from vigil.validation.catalog import extra_scenarios
from vigil.validation.scenarios import Runs, combined_sleep, scenarios

__all__ = ["run_all"]


@functools.lru_cache(maxsize=1)
def run_all() -> Runs:
    """Score every scenario, those of the ``*_cases`` modules too (default preset, KSS and
    SP, risk and sleep included); cached."""
    items = scenarios() + extra_scenarios()
    request = ScoreRequest(
        r.roster_text(items),
        sleep_data=combined_sleep(items),
        risk=True,
        include_sleep=True,
        extra_scales=("SP",),
        held_beds=r.held_beds(items),
    )
    report = score(request)
    if report.errors:
        raise RuntimeError(f"validation rosters have data errors: {report.errors}")
    return Runs(report, {s.reference: s for s in report.schedules})
