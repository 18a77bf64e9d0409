"""The sleep predictor's fitted parameters as :class:`~vigil.validation.fit.FitGroup` s.

One group, *early-start bedtime*: ``early_advance_fraction``, the share of the sleep an
early forced wake cuts off that is made up by going to bed earlier than usual (reference
§4.3.2 recalibrated, docs/sleep.md), fitted to the rows that measure sleep before early
reports:

* ``roach2012-0400``, ``roach2012-0900``, ``roach2012-slope``: Roach et al. 2012's
  actigraphic sleep in the 12 h before reports at 04:00-05:00 and 09:00-10:00, and its
  slope (predicted sleep periods times the model's ground efficiency);
* ``arsintescu2021-early``: main sleep before early-starting duties (diaries).

The residuals are computed from the validation scenarios' own rosters
(:mod:`vigil.validation.scenarios`) through the sleep predictor
(:func:`vigil.scoring.predict.predict_sleep`) with the candidate parameters, reading the
same measures as the report's rows. Each residual is the row's value minus the published
value, divided by the row's half band (for the slope: 5 min/h, half of its 10-20 band).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vigil.domain import Schedule
from vigil.model.parameters import DEFAULT
from vigil.model.sleep_parameters import DEFAULT_SLEEP
from vigil.roster import parse_request
from vigil.scoring.grid import SleepEpisode
from vigil.scoring.predict import predict_sleep
from vigil.validation import rosters as r
from vigil.validation import scenarios as sc
from vigil.validation.fit import FitGroup

__all__ = ["EARLY_START", "SLEEP_FITS", "early_start_values"]

#: (row key, published value, half band) of the group's rows (docs/validation.md).
_ROWS: tuple[tuple[str, float, float], ...] = (
    ("roach2012-0400", 5.4, 0.6),
    ("roach2012-0900", 6.6, 0.6),
    ("roach2012-slope", 15.0, 5.0),
    ("arsintescu2021-early", 6.94, 0.6),
)


@functools.cache
def _schedules() -> tuple[Schedule, ...]:
    """The Roach sweep and the EARLY block, parsed once (the report's own rows)."""
    names = {sc.report_schedule(h) for h in sc.REPORT_HOURS} | {"EARLY"}
    items = [s for s in sc.scenarios() if s.name in names]
    return tuple(parse_request(r.roster_text(items), "dmy").schedules)


def _between(episodes: Sequence[SleepEpisode], a: float, b: float) -> float:
    return sum(max(0.0, min(e.end, b) - max(e.start, a)) for e in episodes)


def early_start_values(fraction: float) -> dict[str, float]:
    """The group's row values with ``early_advance_fraction = fraction`` (default preset)."""
    params = replace(DEFAULT, early_advance_fraction=float(fraction))
    schedules = _schedules()
    by_name = dict(
        zip((s.reference for s in schedules), predict_sleep(schedules, params), strict=True)
    )
    eff = DEFAULT_SLEEP.ground_efficiency

    def before(hour: float) -> float:
        name = sc.report_schedule(hour)
        report = sc.epoch_hours(next(s for s in schedules if s.reference == name).duties[0].on_duty)
        return _between(by_name[name], report - 12.0, report) * eff

    def bin_(first: float) -> float:
        return (before(first) + before(first + 0.5)) / 2.0

    early = next(s for s in schedules if s.reference == "EARLY")
    duties = sorted(early.duties, key=lambda d: d.on_duty)
    lengths = []
    for prev, nxt in zip(duties, duties[1:], strict=False):
        a, b = sc.epoch_hours(prev.off_duty), sc.epoch_hours(nxt.on_duty)
        lengths.append(
            max((e.end - e.start for e in by_name["EARLY"] if a <= e.start < b), default=0.0)
        )
    return {
        "roach2012-0400": bin_(4.0),
        "roach2012-0900": bin_(9.0),
        "roach2012-slope": (bin_(9.0) - bin_(4.0)) / 5.0 * 60.0,
        "arsintescu2021-early": float(np.mean(lengths)),
    }


def _early_residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
    values = early_start_values(float(x[0]))
    return np.asarray([(values[key] - pub) / half for key, pub, half in _ROWS])


#: The early-start bedtime advance fitted to the early-report rows (docs/sleep.md).
EARLY_START = FitGroup(
    name="early-start bedtime",
    parameters=("early_advance_fraction",),
    initial=(DEFAULT.early_advance_fraction,),
    bounds=((0.3,), (1.0,)),
    rows=tuple(key for key, _, _ in _ROWS),
    loss="sum of squared (Vigil - published) / half band over Roach et al. 2012's "
    "04:00-05:00 and 09:00-10:00 levels and slope and Arsintescu et al. 2021's early row",
    residuals=_early_residuals,
)

#: Every fit group of the sleep predictor.
SLEEP_FITS: tuple[FitGroup, ...] = (EARLY_START,)
