"""The sleep predictor's fitted parameters as :class:`~vigil.validation.fit.FitGroup` s.

One group, *sleep termination*: the wake gate G_wake (reference §4.2), refitted because
ground sleep now recovers S at the ground efficiency (0.88, Signal et al. 2013) instead of
1, fitted to the rows that measure the length of an unconstrained sleep:

* ``sleep-length-0300``, ``-0730``, ``-1100``, ``-1500``: Åkerstedt & Folkard 1996's sleep
  lengths (EEG) after bedtimes at 03:00, 07:30, 11:00 and 15:00, awake since 07:00;
* ``arsintescu2021-late``: main sleep before late-finishing duties (diaries).

The residuals are computed from the validation scenarios' own rosters
(:mod:`vigil.validation.scenarios`) through the sleep predictor
(:func:`vigil.scoring.predict.predict_sleep`) with the candidate parameters, reading the
same measures as the report's rows: the first sleep after each bedtime, and the mean
longest sleep between consecutive duties of the LATE block. Each residual is the row's
value minus the published value, divided by the row's half band.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vigil.model.parameters import DEFAULT
from vigil.roster import parse_request
from vigil.scoring.predict import predict_sleep
from vigil.validation import rosters as r
from vigil.validation import scenarios as sc
from vigil.validation.fit import FitGroup

__all__ = ["SLEEP_FITS", "sleep_termination_values"]

#: Published sleep lengths of the bedtime rows [h] and their half bands (docs/validation.md).
_BEDTIME_ROWS: tuple[tuple[str, float, float, float], ...] = (
    ("sleep-length-0300", 27.0, 6.1, 0.15),
    ("sleep-length-0730", 31.5, 4.6, 0.15),
    ("sleep-length-1100", 35.0, 3.7, 0.15),
    ("sleep-length-1500", 39.0, 4.9, 0.15),
)
#: Arsintescu et al. 2021: 8.47 h before late-finishing duties, band ±0.6 h.
_LATE_ROW = ("arsintescu2021-late", 8.47, 0.6)


@functools.cache
def _schedules() -> tuple[object, ...]:
    """The bedtime and LATE scenarios, parsed once (same rows as the report's)."""
    items = [s for s in sc.scenarios() if s.name == "LATE" or s.name.startswith("B")]
    parsed = parse_request(r.roster_text(items), "dmy")
    return tuple(parsed.schedules)


def sleep_termination_values(gate_wake: float) -> dict[str, float]:
    """The group's row values [h] with ``gate_wake`` in the default preset."""
    params = replace(DEFAULT, gate_wake=float(gate_wake))
    schedules = _schedules()
    episodes = predict_sleep(schedules, params)  # type: ignore[arg-type]
    by_name = {s.reference: e for s, e in zip(schedules, episodes, strict=True)}  # type: ignore[attr-defined]
    out: dict[str, float] = {}
    for key, bedtime, _, _ in _BEDTIME_ROWS:
        start = sc.epoch_hours(r.at(3, bedtime))
        found = [e for e in by_name[f"B{bedtime:05.2f}"] if start - 0.01 <= e.start < start + 12]
        out[key] = found[0].end - found[0].start if found else 0.0
    late = next(s for s in schedules if s.reference == "LATE")  # type: ignore[attr-defined]
    duties = sorted(late.duties, key=lambda d: d.on_duty)  # type: ignore[attr-defined]
    lengths = []
    for before, after in zip(duties, duties[1:], strict=False):
        a, b = sc.epoch_hours(before.off_duty), sc.epoch_hours(after.on_duty)
        inside = [e.end - e.start for e in by_name["LATE"] if a <= e.start < b]
        lengths.append(max(inside, default=0.0))
    out[_LATE_ROW[0]] = float(np.mean(lengths))
    return out


def _termination_residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
    values = sleep_termination_values(float(x[0]))
    res = [(values[key] - pub) / half for key, _, pub, half in _BEDTIME_ROWS]
    res.append((values[_LATE_ROW[0]] - _LATE_ROW[1]) / _LATE_ROW[2])
    return np.asarray(res)


#: G_wake fitted to the unconstrained-sleep rows (docs/sleep.md, model 1.4.0).
SLEEP_TERMINATION = FitGroup(
    name="sleep termination",
    parameters=("gate_wake",),
    initial=(DEFAULT.gate_wake,),
    bounds=((10.5,), (12.2,)),
    rows=(*(row[0] for row in _BEDTIME_ROWS), _LATE_ROW[0]),
    loss="sum of squared (Vigil - published) / half band over the four Åkerstedt & Folkard "
    "1996 bedtime rows and Arsintescu 2021's late-finish row",
    residuals=_termination_residuals,
)

#: Every fit group of the sleep predictor.
SLEEP_FITS: tuple[FitGroup, ...] = (SLEEP_TERMINATION,)
