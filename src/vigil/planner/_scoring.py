"""The planner's only door into the scoring layer (one place to repoint at a refactor).

Every candidate split is scored by the service's public scoring path
(:func:`vigil.scoring.service.score_schedules`), all candidates of a plan in one batch
along the model's crew axis; the cruise window is the one the scorer derives
(:func:`vigil.scoring.rest.rest_windows`, reference §5.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np
import numpy.typing as npt

from vigil.domain import CrewComposition, Duty, DutyType, Schedule
from vigil.model import Parameters
from vigil.scoring.context import DEFAULT_CONTEXT, ScoringContext
from vigil.scoring.rest import rest_windows
from vigil.scoring.service import ScoringError, score_schedules

__all__ = [
    "DEFAULT_CONTEXT",
    "ScoringContext",
    "ScoringError",
    "cruise_window",
    "duty_scores",
]

FloatArray = npt.NDArray[np.float64]


def cruise_window(duty: Duty, params: Parameters) -> tuple[datetime, datetime] | None:
    """The cruise the scorer would share out among a relief crew (reference §5.1).

    Derived as the union of the two §5.1 slots of a four-pilot crew with one rest each: take
    off + 30 min to landing - 30 min of the first sector, intersected with the
    PartialAugment period when given. ``None`` when there is no cruise.
    """
    base = replace(
        duty,
        first_rest=None,
        second_rest=None,
        crew_composition=CrewComposition.FOUR_PILOTS,
        sleep_count=1,
        duty_type=DutyType.ACTIVE,
        split_shift=False,
    )
    first = rest_windows(replace(base, sleep_order=1), params)
    second = rest_windows(replace(base, sleep_order=2), params)
    if not first or not second:
        return None
    return first[0].start, second[0].end


def duty_scores(schedules: Sequence[Schedule], params: Parameters) -> list[FloatArray]:
    """KSS per 15-min interval of each schedule's last duty, all schedules in one batch."""
    results = score_schedules(schedules, params, ("KSS",), risk=False)
    out: list[FloatArray] = []
    for result in results:
        last = result.duties[-1]
        kss = result.scores["KSS"]
        out.append(np.asarray(kss[last.first_interval : last.first_interval + last.interval_count]))
    return out
