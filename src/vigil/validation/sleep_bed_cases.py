"""Sleep in a held time in bed: the laboratory rows that fit the held-bed rule.

In a laboratory the participants stay in bed for the whole scheduled time in bed (TIB),
whether or not they are asleep; field crews get up when they wake. The rows here come from a
forced-desynchrony study whose beds fall at every circadian phase, so they measure how much
of a held bed is slept on average over the body clock, and they are the *fitted* rows of
the held-bed rule (docs/model.md). The independent rows that test it (Sargent et al. 2022,
Jackson et al. 2014, in :mod:`.independent_cases`) are a different study group's protocols
and were never used to choose it.

Source
------
Roach GD, Zhou X, Darwent D, Kosmadopoulos A, Dawson D, Sargent C (2017). Are two halves
better than one whole? A comparison of the amount and quality of sleep obtained by healthy
adult males living on split and consolidated sleep-wake schedules. Accid Anal Prev
99:428-433. Forced desynchrony, activity:rest 2:1:
consolidated, one 9.33-h bed per 28-h day (n = 13); split, one 4.67-h bed per 14 h
(n = 16); polysomnography: 7.6 h of sleep per 28 h and 4.0 h per 14 h.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from vigil.validation import rosters as r
from vigil.validation.cases import Case, Source, _case
from vigil.validation.independent_cases import laboratory, sleep_in_beds
from vigil.validation.scenarios import Runs

__all__ = ["CASES", "KNOWN_FAILURES", "SCENARIO_NOTES", "scenarios"]

ROACH_2017 = Source(
    "Roach et al. 2017",
    "Roach GD, Zhou X, Darwent D, Kosmadopoulos A, Dawson D, Sargent C. Are two halves "
    "better than one whole? A comparison of the amount and quality of sleep obtained by "
    "healthy adult males living on split and consolidated sleep-wake schedules. Accid Anal "
    "Prev 2017;99:428-433 (abstract, polysomnography), https://portal.sahmriresearch.org/en/"
    "publications/are-two-halves-better-than-one-whole-a-comparison-of-the-amount-a",
)

#: Rows of this module that fail today: key -> one-line reason.
KNOWN_FAILURES: dict[str, str] = {}

#: Forced-desynchrony cycles: (scenario, wake [h], time in bed [h], number of cycles).
#: Consolidated: 7 days of 28 h (18.67 h awake, 9.33 h in bed); split: 14 cycles of 14 h
#: (9.33 h awake, 4.67 h in bed), the same 7 x 28 h [C: entry after a habitual night,
#: awake from 07:00; the study's exact entry time is not in the abstract].
FD_PROTOCOLS: dict[str, tuple[float, float, int]] = {
    "FD-CON": (56.0 / 3.0, 28.0 / 3.0, 7),
    "FD-SPL": (28.0 / 3.0, 14.0 / 3.0, 14),
}


def fd_beds(name: str) -> list[tuple[datetime, datetime]]:
    """The times in bed of a forced-desynchrony scenario (first wake day 3, 07:00)."""
    wake, bed, cycles = FD_PROTOCOLS[name]
    out: list[tuple[datetime, datetime]] = []
    t = r.at(3, 7.0)
    for _ in range(cycles):
        lights_out = t + timedelta(hours=wake)
        t = lights_out + timedelta(hours=bed)
        out.append((lights_out, t))
    return out


def scenarios() -> list[r.Scenario]:
    """The two forced-desynchrony protocols as laboratory scenarios (awake outside bed)."""
    out: list[r.Scenario] = []
    for name in FD_PROTOCOLS:
        beds = fd_beds(name)
        out.append(laboratory(name, r.at(3, 7.0), beds[-1][1] + timedelta(hours=2.0), beds))
    return out


def sleep_per_bed(runs: Runs, name: str) -> float:
    """Mean polysomnographic sleep per time in bed of a protocol [h] (per 28 h consolidated,
    per 14 h split: one bed per cycle)."""
    beds = fd_beds(name)
    return float(np.mean([sleep_in_beds(runs[name], [bed]) for bed in beds]))


SCENARIO_NOTES: tuple[str, ...] = (
    "- Roach 2017 forced desynchrony (held-bed fitted rows): at ACC, awake from 07:00 after",
    "  a habitual night, then 7 x 28-h days of 18.67 h awake and 9.33 h in bed, or 14",
    "  cycles of 9.33 h awake and 4.67 h in bed; the body clock stays on a 24-h day, so the",
    "  beds fall at every circadian phase. Value: mean sleep per bed.",
)

_WHY = (
    "no spread in the abstract: about one sleep cycle for the 9.33-h beds (±0.6 h, as "
    "Roach 2012), half of it for the 4.67-h beds"
)

CASES: tuple[Case, ...] = (
    _case(
        "roach2017-fd-consolidated",
        ROACH_2017,
        "sleep per 28-h forced-desynchrony day, one 9.33-h bed (lab, predicted × efficiency)",
        "7.6 h per 28 h",
        (7.0, 8.2),
        "±0.6 h",
        _WHY,
        lambda runs: sleep_per_bed(runs, "FD-CON"),
        "h",
        kind="fitted",
        fits=("held_bed_gate",),
    ),
    _case(
        "roach2017-fd-split",
        ROACH_2017,
        "sleep per 14-h forced-desynchrony cycle, one 4.67-h bed (lab, predicted × efficiency)",
        "4.0 h per 14 h",
        (3.7, 4.3),
        "±0.3 h",
        _WHY,
        lambda runs: sleep_per_bed(runs, "FD-SPL"),
        "h",
        kind="fitted",
        fits=("held_bed_gate",),
    ),
)
