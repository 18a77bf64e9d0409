"""Sleep in minimum rest breaks of 12 h, by the time the break begins: independent rows.

Minimum-length rest rules (EASA ORO.FTL.235: 10–12 h; the Australian rail industry: 12 h)
give the same break whatever its time of day. How much of it a person sleeps depends on
when it falls, and that is what these rows test: the sleep predictor's gates, pre-duty
sleep and sleep need acting together on a break it was never tuned on.

Source
------
Roach GD, Reid KJ, Dawson D (2003). The amount of sleep obtained by locomotive engineers:
effects of break duration and time of break onset. Occup Environ Med 60(12):e17. 253
locomotive engineers, sleep and work diaries over two weeks of their normal rosters:
"An average of 3.1–7.9 hours sleep was obtained in 12 hour breaks (minimum break
requirement in the Australian rail industry), depending on when the break began"; for
breaks of similar duration, more sleep when the break falls in the night than in the day.

Scenario [C]: the abstract gives the range but not the break-onset bins behind it, nor the
work periods around the breaks. Each break here lies between two 8-h ground work periods
at ACC with a 30-min commute and no preparation (the Öster et al. 2024 row's ground
shifts), after days off; the first period ends, and the break begins, on each hour of the
day. The published range's ends stand for the least and the most favourable time of
onset: the rows read the lowest and the highest mean over six 4-h onset bins (00–04, …,
20–24 local). Diary sleep is a sleep period (onset to waking), so the predicted periods
are compared as they are, like the Arsintescu et al. 2021 diary rows (no actigraphy
efficiency).

The bands were fixed, and committed, before Vigil's values were computed.
"""

from __future__ import annotations

from vigil.validation import rosters as r
from vigil.validation import scenarios as sc
from vigil.validation.cases import Case, Source, _case
from vigil.validation.scenarios import Runs, epoch_hours

__all__ = ["CASES", "KNOWN_FAILURES", "SCENARIO_NOTES", "scenarios"]

ROACH_2003 = Source(
    "Roach et al. 2003",
    "Roach GD, Reid KJ, Dawson D. The amount of sleep obtained by locomotive engineers: "
    "effects of break duration and time of break onset. Occup Environ Med "
    "2003;60(12):e17. PMID 14634196, PMCID PMC1740434, http://oem.bmj.com/content/60/12/e17",
)

#: Rows of this module that fail today: key -> one-line reason.
KNOWN_FAILURES: dict[str, str] = {
    "roach2003-12h-least": "the least favourable bin (onsets 12:00-16:00) sleeps 3.6, 3.9, "
    "3.0 and 6.9 h: a break from 15:00 ending at a 03:00 report is slept as an early start "
    "(bedtime advanced from the usual 22:51 to about 20:00, Roach 2012's pilots), 4.3 h on "
    "average against the engineers' 3.1 h",
}

#: The break between the two work periods [h] (the study's minimum break).
BREAK_H = 12.0
#: Each work period's length [h] [C].
WORK_H = 8.0
#: Width of the break-onset bins whose means the rows compare [h] [C].
BIN_H = 4
#: The scenario day on which the first work period ends (after days off).
DAY = 3


def _name(hour: int) -> str:
    return f"RRD-{hour:02d}"


def scenarios() -> list[r.Scenario]:
    """One schedule per break-onset hour: work 8 h, break 12 h, work 8 h (ACC)."""
    out: list[r.Scenario] = []
    for hour in range(24):
        off = r.at(DAY, float(hour))
        first_on = r.at(DAY, hour - WORK_H)
        second_on = r.at(DAY, hour + BREAK_H)
        second_off = r.at(DAY, hour + BREAK_H + WORK_H)
        rows = tuple(
            r.ground_shift(_name(hour), on, end)
            for on, end in ((first_on, off), (second_on, second_off))
        )
        out.append(r.Scenario(_name(hour), rows))
    return out


def break_sleep_hours(runs: Runs, hour: int) -> float:
    """Sleep periods (diary sleep) inside the break that begins at ``hour`` [h]."""
    result = runs[_name(hour)]
    start = epoch_hours(result.duties[0].off_duty)
    end = epoch_hours(result.duties[1].on_duty)
    return sc.sleep_between(result, start, end)


def bin_means(runs: Runs) -> list[float]:
    """Mean break sleep of each 4-h onset bin, 00–04 first [h]."""
    return [
        sum(break_sleep_hours(runs, h) for h in range(b, b + BIN_H)) / BIN_H
        for b in range(0, 24, BIN_H)
    ]


_WHY = (
    "±0.6 h, the band of the diary rows (Arsintescu et al. 2021) and of Roach et al. 2012: "
    "the abstract gives no spread, and 0.6 h is about one sleep cycle"
)

CASES: tuple[Case, ...] = (
    _case(
        "roach2003-12h-least",
        ROACH_2003,
        "diary sleep in a 12-h break between 8-h work periods, the least favourable onset "
        "(lowest mean of six 4-h onset bins; ACC, 30-min commute)",
        "3.1 h",
        (3.1 - 0.6, 3.1 + 0.6),
        "±0.6 h",
        _WHY,
        lambda runs: min(bin_means(runs)),
        "h",
        kind="independent",
    ),
    _case(
        "roach2003-12h-most",
        ROACH_2003,
        "diary sleep in a 12-h break between 8-h work periods, the most favourable onset "
        "(highest mean of six 4-h onset bins)",
        "7.9 h",
        (7.9 - 0.6, 7.9 + 0.6),
        "±0.6 h",
        _WHY,
        lambda runs: max(bin_means(runs)),
        "h",
        kind="independent",
    ),
)

#: How this module's scenarios stand for the study (printed in the report).
SCENARIO_NOTES: tuple[str, ...] = (
    "- Roach 2003 (rest breaks): two 8-h ground work periods at ACC (30-min commute, no",
    "  preparation) with a 12-h break between them, after days off, the break beginning on",
    "  each hour of the day; the rows read the lowest and highest mean diary sleep over six",
    "  4-h onset bins [C: the abstract gives the range, not its bins].",
)
