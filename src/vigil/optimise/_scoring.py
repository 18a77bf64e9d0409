"""The optimiser's one door into the scoring service.

Every scoring function :mod:`vigil.optimise` calls is imported here and nowhere else in
the package, so a refactor of the scoring entry points is repointed in this module alone
(as :mod:`vigil.planner._scoring` does for the rest planner). The engine works on the
columnar pipeline's own arrays: :class:`~vigil.scoring.plan.CrewPlan` (each duty's
derived data), the packed sleep-predictor input, the chunk :class:`Layout`, the model's
:func:`~vigil.model.interval_kss.interval_kss` and the service's risk
(:func:`~vigil.scoring.duty_risk.duty_risks`).
"""

from __future__ import annotations

from vigil.model.interval_kss import DutyRows, interval_kss
from vigil.model.sleep import DEFAULT_SLEEP, PackedSleepInput, predict_packed
from vigil.roster import ParsedRoster, format_error, parse_request
from vigil.scoring.controls import at_controls
from vigil.scoring.duty_risk import duty_risk_detail, duty_risks
from vigil.scoring.grid import S_AT_WAKING, interval_samples
from vigil.scoring.layout import Layout, build_layout, build_timeline
from vigil.scoring.plan import CrewPlan
from vigil.scoring.predict import horizons, pack_plan
from vigil.scoring.request import DECIMALS, ScoringError, resolve_preset
from vigil.scoring.service import ScoreRequest, plan_parsed, score, score_plan
from vigil.scoring.sleep_arrays import SleepArrays
from vigil.scoring.zones import crew_zone_timelines

__all__ = [
    "DECIMALS",
    "DEFAULT_SLEEP",
    "S_AT_WAKING",
    "CrewPlan",
    "DutyRows",
    "Layout",
    "PackedSleepInput",
    "ParsedRoster",
    "ScoreRequest",
    "ScoringError",
    "SleepArrays",
    "build_layout",
    "build_timeline",
    "at_controls",
    "crew_zone_timelines",
    "duty_risk_detail",
    "duty_risks",
    "format_error",
    "horizons",
    "interval_kss",
    "interval_samples",
    "pack_plan",
    "parse_request",
    "plan_parsed",
    "predict_packed",
    "resolve_preset",
    "score",
    "score_plan",
]
