"""What scoring a plan costs, before it is scored: simulated crew-days.

The model's work grows with the days it simulates per crew member (reference §9.5:
3–6 segments a day), from each warm-up start (§9.4) to the end of sleep prediction,
after long gaps at home are cut (:mod:`vigil.scoring.segments`). A caller bounds one
request's CPU by this figure (:class:`TooMuchWork`) and decides with it whether a call
is small enough to score at once.
"""

from __future__ import annotations

import numpy as np

from vigil.scoring import grid
from vigil.scoring.plan import CrewPlan
from vigil.scoring.predict import horizons
from vigil.scoring.segments import GAP_DAYS, split_long_gaps

__all__ = ["TooMuchWork", "simulated_crew_days"]


class TooMuchWork(Exception):
    """A roster whose simulated crew-days exceed the caller's limit."""

    def __init__(self, crew_days: float, limit: float) -> None:
        super().__init__(
            f"the roster needs {crew_days:,.0f} simulated crew-days; a synchronous call "
            f"takes at most {limit:,.0f}"
        )
        self.crew_days = crew_days
        self.limit = limit


def simulated_crew_days(plan: CrewPlan, gap_days: float = GAP_DAYS) -> float:
    """Days the model simulates for ``plan``, summed over crew members (segments)."""
    segments = split_long_gaps(plan, gap_days).plan
    if segments.n_crew == 0:
        return 0.0
    start = np.array([grid.epoch_hours(w) for w in segments.warmup])
    end = np.maximum(horizons(segments), segments.last_event)
    return float(np.sum(end - start)) / 24.0
