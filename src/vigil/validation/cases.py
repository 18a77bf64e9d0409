"""The published comparisons the model claims, each recomputed from the scenarios.

One :class:`Case` per row of ``docs/validation.md``: source, measure, published value,
tolerance (with why), and a function computing Vigil's value from :class:`Runs`.
:data:`KNOWN_FAILURES` is the single list of rows that fail today, each with a one-line
reason; the report prints it and the tests mark those rows ``xfail(strict=True)``.
Update it (and only it) when a change makes a row pass or fail.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from vigil import model
from vigil.validation import fips, risk_measures
from vigil.validation import rosters as r
from vigil.validation import scenarios as sc
from vigil.validation.scenarios import Runs, epoch_hours

#: Rows that fail today: case key -> one-line reason. The single source of truth.
KNOWN_FAILURES: dict[str, str] = {
    "sleep-length-0300": "one sleep need for laboratory and field: a body-night bedtime sleeps "
    "until S is restored, within the home sleep (8.1 h), as late finishers do (Arsintescu "
    "2021); the gates alone give the derived 6.1 h",
}


#: What a row's evidence may claim: see :class:`Case` ``kind``.
Kind = Literal["identity", "fitted", "independent"]


@dataclass(frozen=True, slots=True)
class Source:
    """A cited publication."""

    short: str  #: "Roach et al. 2012"
    citation: str  #: authors, title, journal, volume:pages, DOI


@dataclass(frozen=True, slots=True)
class Case:
    """One published comparison (a row of the report)."""

    key: str  #: stable identifier (test id, KNOWN_FAILURES key)
    source: Source
    measure: str
    published: str  #: the published figure as the source states it
    low: float  #: pass band of Vigil's value, inclusive
    high: float
    tolerance: str  #: the band as shown
    why: str  #: justification of the tolerance
    compute: Callable[[Runs], float]
    unit: str = ""
    decimals: int = 2
    fmt: str = ""  #: format spec overriding ``decimals`` (e.g. ".1e")
    #: "identity" (an implementation or definition check), "fitted" (used to choose the
    #: parameters or rules named in ``fits``) or "independent" (never used for any choice)
    kind: Kind | None = None
    fits: tuple[str, ...] = ()  #: parameters or rules this row was used to choose ("fitted")


@dataclass(frozen=True, slots=True)
class Row:
    """A case evaluated: Vigil's value and whether it lies in the band."""

    case: Case
    value: float
    passed: bool


def evaluate(case: Case, runs: Runs) -> Row:
    """Compute one case's value and pass/fail (NaN fails)."""
    value = float(case.compute(runs))
    return Row(case, value, bool(case.low <= value <= case.high))


# --- sources ------------------------------------------------------------------------

ROACH_2012 = Source(
    "Roach et al. 2012",
    "Roach GD, Sargent C, Darwent D, Dawson D. Duty periods with early start times restrict "
    "the amount of sleep obtained by short-haul airline pilots. Accid Anal Prev 2012;45 "
    "Suppl:22-26. doi:10.1016/j.aap.2011.09.020 (actigraphy; compared through the ground "
    "sleep efficiency 0.88 of Signal TL, Gander PH, van den Berg MJ, Graeber RC. In-flight "
    "sleep of flight crew during a 7-hour rest break. Sleep 2013;36(1):109-115. "
    "doi:10.5665/sleep.2312: polysomnography in the layover hotel)",
)
ARSINTESCU_2021 = Source(
    "Arsintescu et al. 2021",
    "Arsintescu L, Pradhan S, Chachad RG, Gregory KB, Mulligan JB, Flynn-Evans EE. Early "
    "starts and late finishes both reduce alertness and performance among short-haul airline "
    "pilots. J Sleep Res 2022;31:e13521 (epub 2021). doi:10.1111/jsr.13521",
)
ROACH_2016 = Source(
    "Roach et al. 2016",
    "Roach GD, Dawson D, Reid KJ, Darwent D, Sargent C. The time-of-day that breaks occur "
    "between consecutive duty periods affects the sleep strategies used by shiftworkers. "
    "Chronobiol Int 2016;33(6):653-656. doi:10.3109/07420528.2016.1167716",
)
GANDER_2013 = Source(
    "Gander et al. 2013",
    "Gander PH et al. In-flight sleep, pilot fatigue and Psychomotor Vigilance Task "
    "performance on ultra-long range versus long range flights. J Sleep Res "
    "2013;22(6):697-706",
)
HOLMES_2012 = Source(
    "Holmes et al. 2012",
    "Holmes AL, Al-Bayat S, Hilditch C, Bourgeois-Bougrine S. Sleep and sleepiness during an "
    "ultra long-range flight operation between the Middle East and United States. Accid Anal "
    "Prev 2012;45 Suppl:27-31. doi:10.1016/j.aap.2011.09.021",
)
DARWENT_2010 = Source(
    "Darwent et al. 2010; Lamp et al. 2019",
    "Darwent D, Dawson D, Roach GD. Prediction of probabilistic sleep distributions following "
    "travel across multiple time zones. Sleep 2010;33(2):185-195. PMCID PMC2816963 "
    "(mixture of domicile- and local-time sleepers with re-synchronisation); Lamp A, "
    "McCullough D, Chen JMC, Brown RE, Belenky G. Pilot sleep in long-range and "
    "ultra-long-range commercial flights. Aerosp Med Hum Perform 2019;90(2):109-115 "
    "('layover sleep appearing to shift toward the local night')",
)
FOLKARD_TUCKER_2003 = Source(
    "Folkard & Tucker 2003",
    "Folkard S, Tucker P. Shift work, safety and productivity. Occup Med 2003;53(2):95-101. "
    "doi:10.1093/occmed/kqg047",
)
AKERSTEDT_FOLKARD_1997 = Source(
    "Åkerstedt & Folkard 1997",
    "Åkerstedt T, Folkard S. The three-process model of alertness and its extension to "
    "performance, sleep latency, and sleep length. Chronobiol Int 1997;14(2):115-123. "
    "doi:10.3109/07420529709001149 (defaults as in FIPS, Wilson et al. 2020, JOSS 5:2340)",
)
AKERSTEDT_FOLKARD_1996 = Source(
    "Åkerstedt & Folkard 1996",
    "Åkerstedt T, Folkard S. Predicting duration of sleep from the three process model of "
    "regulation of alertness. Occup Environ Med 1996;53:136-141 (values: reference §4.2 [D], "
    "derived from the TPM gates)",
)
ASCHOFF_1975 = Source(
    "Aschoff et al. 1975; Waterhouse et al. 2007",
    "Aschoff J, Hoffmann K, Pohl H, Wever R. Re-entrainment of circadian rhythms after "
    "phase-shifts of the Zeitgeber. Chronobiologia 1975;2:23-78; Waterhouse J, Reilly T, "
    "Atkinson G, Edwards B. Jet lag: trends and coping strategies. Lancet 2007;369:1117-1129",
)
GANDER_1991 = Source(
    "Gander et al. 1991 (reference §3)",
    "Gander PH, Graeber RC, Connell LJ, Gregory KB. Crew factors in flight operations VIII: "
    "factors influencing sleep timing and subjective sleep quality in commercial long-haul "
    "flight crews. NASA TM-103852, 1991 (crews do not adapt on short layovers)",
)
REFERENCE_DUTY = Source(
    "Reference §8 (SAFE DRM anchor)",
    "shared/reference/fatigue-model.md §8: R = 1 for 10:00-20:00, 2 sectors, 2 pilots, "
    "acclimatised, habitual 23:00-07:00 sleep (the anchor of FRMSc's SAFE Duty Risk Metric)",
)
WILSON_2020 = Source(
    "Wilson et al. 2020 (FIPS)",
    "Wilson MK, Strickland L, Ballard T. FIPS: an R package for biomathematical modelling of "
    "human fatigue related impairment. JOSS 2020;5(51):2340. doi:10.21105/joss.02340 "
    "(TPM of Åkerstedt, Folkard & Portin 2004, Aviat Space Environ Med 75:A75-A83)",
)
SMITH_1994 = Source(
    "Smith et al. 1994",
    "Smith L, Folkard S, Poole CJM. Increased injuries on night shift. Lancet "
    "1994;344(8930):1137-1139. doi:10.1016/S0140-6736(94)90636-X",
)
FOLKARD_AKERSTEDT_2004 = Source(
    "Folkard & Åkerstedt 2004",
    "Folkard S, Åkerstedt T. Trends in the risk of accidents and injuries and their "
    "implications for models of fatigue and performance. Aviat Space Environ Med "
    "2004;75(3 Suppl):A161-A167 (PMID 15018280)",
)
BELYAVIN_2004 = Source(
    "Belyavin & Spencer 2004",
    "Belyavin AJ, Spencer MB. Modeling performance and alertness: the QinetiQ approach. "
    "Aviat Space Environ Med 2004;75(3 Suppl):A93-A103",
)


# --- measures -----------------------------------------------------------------------


def sleep_before_report(runs: Runs, hour: float) -> float:
    """Roach 2012's measure: hours asleep in the 12 h before a report at ``hour``."""
    result = runs[sc.report_schedule(hour)]
    report = epoch_hours(result.duties[0].on_duty)
    return sc.sleep_between(result, report - 12.0, report)


def actigraphic_before_report(runs: Runs, hour: float) -> float:
    """Roach 2012 measured by actigraphy: predicted sleep before a report at ``hour`` times
    :data:`~vigil.validation.scenarios.ACTIGRAPHY_EFFICIENCY` [h]."""
    return sleep_before_report(runs, hour) * sc.ACTIGRAPHY_EFFICIENCY


def roach_bin(runs: Runs, first_hour: float) -> float:
    """Actigraphic sleep, mean of the reports at ``first_hour`` and +30 min (Roach's
    one-hour start bins) [h]."""
    return (
        actigraphic_before_report(runs, first_hour)
        + actigraphic_before_report(runs, first_hour + 0.5)
    ) / 2.0


def roach_slope(runs: Runs) -> float:
    """Actigraphic sleep gained per hour of later start, 04:00-05:00 bin to 09:00-10:00 bin
    [min/h]."""
    return (roach_bin(runs, 9.0) - roach_bin(runs, 4.0)) / 5.0 * 60.0


def roach_steps(runs: Runs) -> list[float]:
    """Actigraphic sleep gained per hour of later start, each 30-min step 04:00-10:00
    [min/h]."""
    values = [actigraphic_before_report(runs, h) for h in sc.REPORT_HOURS]
    return [(b - a) / 0.5 * 60.0 for a, b in zip(values, values[1:], strict=False)]


def roach_largest_drop(runs: Runs) -> float:
    """Largest fall of actigraphic pre-duty sleep for a report 30 min later [h]."""
    return max(0.0, *(-step * 0.5 / 60.0 for step in roach_steps(runs)))


def prior_main_sleep(runs: Runs, name: str) -> float:
    """Mean longest sleep between consecutive duties 1-2, 2-3, 3-4 of a block [h].

    Arsintescu et al. recorded each duty's prior night's sleep in diaries; within a
    block that is the main sleep of the break after the previous duty.
    """
    result = runs[name]
    lengths = []
    for before, after in zip(result.duties, result.duties[1:], strict=False):
        start, end = epoch_hours(before.off_duty), epoch_hours(after.on_duty)
        sleeps = sc.sleeps_starting(result, start, end)
        lengths.append(max((b - a for a, b in sleeps), default=0.0))
    return float(np.mean(lengths))


def break_sleep_count(runs: Runs, name: str) -> float:
    """Number of separate sleeps in the break between a schedule's two duties."""
    result = runs[name]
    start, end = epoch_hours(result.duties[0].off_duty), epoch_hours(result.duties[1].on_duty)
    return float(len(sc.sleeps_starting(result, start, end)))


def inflight_sleep_of(runs: Runs, flight_hours: float, order: int) -> float:
    """Hours of in-flight sleep of the crew resting ``order``-th on the sweep flight."""
    result = runs[sc.flight_schedule(flight_hours, order)]
    duty = result.duties[0]
    return sc.sleep_between(result, epoch_hours(duty.on_duty), epoch_hours(duty.off_duty))


def inflight_sleep(runs: Runs, flight_hours: float) -> float:
    """Mean in-flight sleep per pilot on the sweep flight of ``flight_hours``: both crews
    of the 4-pilot complement (Gander et al. 2013 average every pilot) [h]."""
    values = [inflight_sleep_of(runs, flight_hours, o) for o in sc.REST_ORDERS]
    return float(np.mean(values))


def inflight_slope(runs: Runs) -> float:
    """Least-squares in-flight sleep per extra flight hour over the sweep [min/h]."""
    x = np.asarray(sc.FLIGHT_HOURS)
    y = np.asarray([inflight_sleep(runs, f) for f in sc.FLIGHT_HOURS])
    return float(np.polyfit(x, y, 1)[0] * 60.0)


def layover_night_fractions(runs: Runs, name: str, away: str) -> list[float]:
    """Fraction of each full local night (23:00-07:00) of a layover spent asleep."""
    result = runs[name]
    offset = sc.UTC_OFFSET[away]
    arrive = epoch_hours(result.duties[0].off_duty) + offset  # local-clock epoch hours
    leave = epoch_hours(result.duties[1].on_duty) + offset
    first = math.floor((arrive - 23.0) / 24.0) * 24.0 + 23.0
    nights = [first + 24.0 * k for k in range(5)]
    nights = [n for n in nights if n >= arrive and n + 8.0 <= leave]
    return [sc.local_night_sleep(result, n, offset) / 8.0 for n in nights]


def local_night_sleeper(runs: Runs, name: str, away: str) -> float:
    """Share of a layover's full local nights (23:00-07:00) on which the person slept in
    the local night, i.e. at least half of it (4 h) asleep [-]."""
    fractions = layover_night_fractions(runs, name, away)
    return float(np.mean([f >= 0.5 for f in fractions])) if fractions else math.nan


def local_night_drift(runs: Runs) -> float:
    """Local-night sleep on the last full layover night minus the first (ACC-HKG) [h]."""
    fractions = layover_night_fractions(runs, "ACCHKG", "HKG")
    return (fractions[-1] - fractions[0]) * 8.0 if len(fractions) >= 2 else math.nan


def night_run_ratio(runs: Runs, over: int = 2) -> float:
    """Risk of the 4th of four identical nights over the ``over``-th (7-h day sleeps)."""
    risks = [math.nan if d.risk is None else d.risk for d in runs["NIGHTS"].duties]
    return risks[3] / risks[over - 1]


def shift_risk_ratio(runs: Runs, name: str) -> float:
    """Risk of a shift over the morning shift's (8-h ground shifts, one each, ACC)."""
    shift, morning = (runs[n].duties[0].risk for n in (name, "SHIFT-M"))
    return math.nan if shift is None or morning is None else shift / morning


def night_peak(runs: Runs) -> float:
    """Hours after the 22:00 report at which the night shift's risk hazard h peaks
    (:func:`vigil.validation.risk_measures.hazard_peak`)."""
    return risk_measures.hazard_peak(runs, "SHIFT-N")


def bedtime_sleep(runs: Runs, bedtime: float) -> float:
    """Length of the first sleep after being awake from 07:00 until ``bedtime`` [h]."""
    result = runs[f"B{bedtime:05.2f}"]
    start = epoch_hours(r.at(3, bedtime))
    sleeps = sc.sleeps_starting(result, start - 0.01, start + 12.0)
    return sleeps[0][1] - sleeps[0][0] if sleeps else 0.0


#: FIPS check: sleeps (UTC h from day 0) with a short night, a nap 1 h after waking with S
#: above the break level (FIPS's break-time branch), a 25-min nap and a day sleep.
FIPS_SLEEPS: tuple[tuple[float, float], ...] = (
    (23.0, 31.0), (46.5, 51.5), (71.0, 79.0), (80.0, 80.75), (86.0, 86.0 + 25 / 60),
    (94.0, 102.0), (112.5, 118.0),
)  # fmt: skip


def fips_difference(runs: Runs, params: model.Parameters = model.TPM_DEFAULT) -> float:
    """Largest |preset - FIPS| over S, C, U, W and KSS (in 1-9), per minute, 4.7 days."""
    start = 7.0  # near epoch 0, where the simulator's recurrences are exact to 1e-9
    times = start + np.arange(int(4.7 * 24 * 60)) / 60.0
    ref = fips.fips_tpm(start, times.tolist(), FIPS_SLEEPS)
    onsets = np.asarray([[a for a, _ in FIPS_SLEEPS]])
    timeline = model.CrewTimeline(
        start=np.array([start]),
        s_start=np.array([fips.PVEC["S0"]]),
        phase_start=np.zeros(1),
        sleep_start=onsets,
        sleep_end=np.asarray([[b for _, b in FIPS_SLEEPS]]),
        sleep_quality=np.ones_like(onsets),
        zone_time=np.zeros((1, 1)),
        zone_offset=np.zeros((1, 1)),
    )
    state = model.simulate(timeline, times[None, :], params)
    kss = model.final_kss(state.alertness, 0.0, params)[0]
    ours = (state.homeostatic[0], state.circadian[0], state.ultradian[0], state.inertia[0])
    worst = max(float(np.max(np.abs(a - b))) for a, b in zip(ours, ref[:4], strict=True))
    inside = (ref[4] >= 1.0) & (ref[4] <= 9.0)
    return max(worst, float(np.max(np.abs(kss[inside] - ref[4][inside]))))


def relative_error_over_speed(kss: float) -> float:
    """Errors' relative increase over response time's at ``kss`` (preset A, from KSS 3).

    PMR(K)/PMR(3) against the response-time factor 1/(1 - VD/100) (VD is the loss of
    response speed), both relative to a rested KSS of 3.
    """
    k = np.asarray([[3.0, kss]])
    pmr = model.SCALES["PMR"](k, model.DEFAULT)[0]
    vd = model.SCALES["VD"](k, model.DEFAULT)[0]
    errors = pmr[1] / pmr[0]
    slowing = (1.0 - vd[0] / 100.0) / (1.0 - vd[1] / 100.0)
    return float(errors / slowing)


def _case(
    key: str,
    source: Source,
    measure: str,
    published: str,
    band: tuple[float, float],
    tolerance: str,
    why: str,
    compute: Callable[[Runs], float],
    unit: str = "",
    decimals: int = 2,
    fmt: str = "",
    kind: Kind | None = None,
    fits: tuple[str, ...] = (),
) -> Case:
    low, high = band
    return Case(key, source, measure, published, low, high, tolerance, why, compute, unit,
                decimals, fmt, kind, fits)  # fmt: skip


_ROACH_WHY = "the band (±0.6 h), about one sleep cycle"
_ARS_WHY = "the same ±0.6 h band as Roach 2012 (the study's 95 % CI of the mean is ±0.2-0.3 h)"
_GANDER_WHY = "±30 min: less than the 38-min LR/ULR difference, so the row tells LR from ULR"

_CASES: tuple[Case, ...] = (
    _case(
        "roach2012-0400",
        ROACH_2012,
        "actigraphic sleep in the 12 h before 04:00-05:00 reports (ACC; predicted "
        f"× {sc.ACTIGRAPHY_EFFICIENCY:.2f})",
        "5.4 h",
        (4.8, 6.0),
        "±0.6 h",
        _ROACH_WHY,
        lambda runs: roach_bin(runs, 4.0),
        "h",
        kind="fitted",
        fits=("early_advance_fraction", "early_earliest_body", "ACTIGRAPHY_EFFICIENCY"),
    ),
    _case(
        "roach2012-0900",
        ROACH_2012,
        "actigraphic sleep in the 12 h before 09:00-10:00 reports (ACC; predicted "
        f"× {sc.ACTIGRAPHY_EFFICIENCY:.2f})",
        "6.6 h",
        (6.0, 7.2),
        "±0.6 h",
        _ROACH_WHY,
        lambda runs: roach_bin(runs, 9.0),
        "h",
        kind="fitted",
        fits=("early_advance_fraction", "early_earliest_body", "ACTIGRAPHY_EFFICIENCY"),
    ),
    _case(
        "roach2012-slope",
        ROACH_2012,
        "actigraphic sleep gained per hour of later start, 04-05 to 09-10",
        "≈ 15 min/h",
        (10.0, 20.0),
        "10-20 min/h",
        "the band around the published ≈ 15 min/h",
        roach_slope,
        "min/h",
        1,
        kind="fitted",
        fits=("early_advance_fraction", "early_earliest_body"),
    ),
    _case(
        "roach2012-monotone",
        ROACH_2012,
        "largest fall of pre-duty sleep for a 30-min later report, 04:00-10:00",
        "none (sleep grows with later starts)",
        (0.0, 1.0 / 60.0),
        "≤ 1 min",
        "the predictor's 1-min resolution",
        roach_largest_drop,
        "h",
        kind="fitted",
        fits=("early_earliest_body",),
    ),
    _case(
        "arsintescu2021-late",
        ARSINTESCU_2021,
        "main sleep before late-finishing duties (15:30-00:30 block, ACC)",
        "8.47 h (EMM, SE 0.14)",
        (7.87, 9.07),
        "±0.6 h",
        _ARS_WHY,
        lambda runs: prior_main_sleep(runs, "LATE"),
        "h",
        kind="fitted",
        fits=("sleep_in_from_body", "sleep_in_to_body"),
    ),
    _case(
        "arsintescu2021-early",
        ARSINTESCU_2021,
        "main sleep before early-starting duties (05:30-13:30 block, ACC)",
        "6.94 h (EMM, SE 0.10)",
        (6.34, 7.54),
        "±0.6 h",
        _ARS_WHY,
        lambda runs: prior_main_sleep(runs, "EARLY"),
        "h",
        kind="fitted",
        fits=("habitual_wake_body",),
    ),
    _case(
        "roach2016-daytime",
        ROACH_2016,
        "sleeps in a 16-h daytime break (07:00-23:00)",
        "> 1 sleep on 41-50 % of daytime breaks",
        (2.0, math.inf),
        "≥ 2",
        "a nap or split sleep must occur in long daytime breaks",
        lambda runs: break_sleep_count(runs, "DAYBREAK"),
        "",
        0,
        kind="fitted",
        fits=("nap_after_wake",),
    ),
    _case(
        "roach2016-night",
        ROACH_2016,
        "sleeps in a 16-h break holding the night (17:00-09:00)",
        "1 sleep on 80-93 % of night breaks",
        (1.0, 1.0),
        "= 1",
        "the majority strategy, for the average crew member",
        lambda runs: break_sleep_count(runs, "NIGHTBREAK"),
        "",
        0,
        kind="independent",
    ),
    _case(
        "gander2013-lr",
        GANDER_2013,
        "in-flight sleep, 13-h flight, 4 pilots, 2 rests, bunk",
        "3 h 15 min (long-range)",
        (2.75, 3.75),
        "±30 min",
        _GANDER_WHY,
        lambda runs: inflight_sleep(runs, sc.LONG_RANGE),
        "h",
        kind="fitted",
        fits=("DEPARTURE_HOUR",),
    ),
    _case(
        "gander2013-ulr",
        GANDER_2013,
        "in-flight sleep, 17-h flight, 4 pilots, 2 rests, bunk",
        "3 h 53 min (ultra-long-range)",
        (3.38, 4.38),
        "±30 min",
        _GANDER_WHY,
        lambda runs: inflight_sleep(runs, sc.ULTRA_LONG_RANGE),
        "h",
        kind="fitted",
        fits=("DEPARTURE_HOUR",),
    ),
    _case(
        "gander2013-slope",
        GANDER_2013,
        "in-flight sleep per extra flight hour, 12-18 h",
        "12.3 min/h",
        (7.3, 17.3),
        "±5 min/h",
        "separates 12.3 from the 18 min/h the reference's prototype gave and called too steep",
        inflight_slope,
        "min/h",
        1,
        kind="fitted",
        fits=("DEPARTURE_HOUR",),
    ),
    _case(
        "holmes2012",
        HOLMES_2012,
        "share of the layover's local nights (23-07) with ≥ 4 h asleep in them, DOH-IAH "
        "49.5-h layover",
        "64 % of 44 pilots slept during the local night",
        (0.5, 1.0),
        "≥ 0.5",
        "64 % is a share of pilots; one deterministic crew member should do what the "
        "majority did (binomial 95 % CI 50-78 %, above one half) on most nights",
        lambda runs: local_night_sleeper(runs, "DOHIAH", "IAH"),
        "",
        kind="fitted",
        fits=("local_ramp",),
    ),
    _case(
        "darwent2010",
        DARWENT_2010,
        "local-night sleep, last minus first night of a 3-night layover 8 h east (ACC-HKG)",
        "layover sleep moves toward the local night",
        (0.25, math.inf),
        "≥ +0.25 h",
        "a direction check; a change under one 15-min score interval is not a move",
        local_night_drift,
        "h",
        kind="fitted",
        fits=("local_ramp",),
    ),
    _case(
        "folkard2003-nights",
        FOLKARD_TUCKER_2003,
        "risk of the 4th of four 22:00-06:00 nights / the 2nd (given 7-h day sleeps)",
        "1.36 / 1.06 = 1.28 (ref §8 table; abstract: safety declines over successive nights)",
        (1.19, 1.37),
        "±0.09",
        "half the gap to the 3rd-night ratio (1.17/1.06 = 1.10): the row tells 4th from 3rd",
        night_run_ratio,
        "",
        2,
        kind="identity",
    ),
    _case(
        "folkard2003-nights-first",
        FOLKARD_TUCKER_2003,
        "risk of the 4th of the same four nights / the 1st",
        "1.36",
        (1.27, 1.45),
        "±0.09",
        "half the gap to the 3rd night's 1.17",
        functools.partial(night_run_ratio, over=1),
        "",
        kind="identity",
    ),
    _case(
        "smith1994-night",
        SMITH_1994,
        "risk of a night shift (22-06) / a morning shift (06-14), 8-h ground shifts (ACC)",
        "1.23 (95 % CI 1.14-1.31)",
        (1.14, 1.31),
        "95 % CI",
        "the study's 95 % confidence interval",
        lambda runs: shift_risk_ratio(runs, "SHIFT-N"),
        "",
        kind="fitted",
        fits=("risk_tod_amplitude",),
    ),
    _case(
        "folkard2004-afternoon",
        FOLKARD_AKERSTEDT_2004,
        "risk of an afternoon shift (14-22) / a morning shift (06-14), 8-h ground shifts",
        "> 1: afternoon significantly higher (F&T 2003 ≈ 1.18, as quoted by reference §8)",
        (1.0, math.inf),
        "> 1",
        "a direction check: the abstract gives no number, the reference's 1.18 is unverified",
        lambda runs: shift_risk_ratio(runs, "SHIFT-A"),
        "",
        kind="fitted",
        fits=("risk_tod_amplitude",),
    ),
    _case(
        "folkard2004-midnight",
        FOLKARD_AKERSTEDT_2004,
        "peak of the hazard h within a 22:00-06:00 night shift, hours after report",
        "about midnight (2 h after report)",
        (1.0, 3.0),
        "±1 h",
        "'about' midnight: an hour either side",
        night_peak,
        "h",
        kind="fitted",
        fits=("risk_tod_acrophase",),
    ),
    _case(
        "reference-duty",
        REFERENCE_DUTY,
        "R of the reference duty through the scoring path",
        "1 (by definition)",
        (0.995, 1.005),
        "±0.005",
        "R is reported to 3 decimals",
        lambda runs: float(runs["REFDUTY"].duties[0].risk or math.nan),
        "",
        3,
        kind="identity",
    ),
    _case(
        "fips-tpm",
        WILSON_2020,
        "tpm_default vs FIPS's TPM, given sleep, max |difference| of S, C, U, W, KSS",
        "identical (same published equations)",
        (0.0, 1e-9),
        "≤ 1e-9",
        "reference §9.3: the closed forms are exact, so only rounding may differ",
        fips_difference,
        fmt=".1e",
        kind="identity",
    ),
    _case(
        "tpm-s-wake",
        AKERSTEDT_FOLKARD_1997,
        "S at waking after habitual 23:00-07:00 sleep",
        "13.82 (ref §2.1, from the published parameters)",
        (13.815, 13.825),
        "±0.005",
        "published to 2 decimals",
        lambda runs: float(model.steady_state_at_waking()),
        "",
        3,
        kind="identity",
    ),
    _case(
        "tpm-s-bed",
        AKERSTEDT_FOLKARD_1997,
        "S at 23:00 after habitual sleep",
        "8.89 (ref §2.1, from the published parameters)",
        (8.885, 8.895),
        "±0.005",
        "published to 2 decimals",
        lambda runs: float(model.wake_pressure(model.steady_state_at_waking(), 16.0)),
        "",
        3,
        kind="identity",
    ),
    *(
        _case(
            f"sleep-length-{int(b) % 24:02d}{round(b % 1 * 60):02d}",
            AKERSTEDT_FOLKARD_1996,
            f"sleep from {int(b) % 24:02d}:{round(b % 1 * 60):02d} after waking at 07:00 "
            "the day before",
            f"{v} h",
            (v - 0.15, v + 0.15),
            "±0.15 h",
            "values printed to 0.1 h; plus the gates' 5-min scan and 1-min rounding",
            functools.partial(bedtime_sleep, bedtime=b),
            "h",
            kind="identity",
        )
        for b, v in zip(sc.BEDTIMES, (6.1, 4.6, 3.7, 4.9), strict=True)
    ),
    _case(
        "clock-west",
        ASCHOFF_1975,
        "body-clock delay rate after a westward shift",
        "1.5 h/day (Aschoff: 92 min/day, as quoted by ref §3)",
        (1.4, 1.6),
        "±0.1 h/day",
        "covers both cited figures (1.5 and 1.53 h/day)",
        lambda runs: -float(model.advance_phase(0.0, -6.0, 24.0)),
        "h/day",
        kind="identity",
    ),
    _case(
        "clock-east",
        ASCHOFF_1975,
        "body-clock advance rate after an eastward shift",
        "1.0 h/day (Aschoff: 57 min/day, as quoted by ref §3)",
        (0.9, 1.1),
        "±0.1 h/day",
        "covers both cited figures (1.0 and 0.95 h/day)",
        lambda runs: float(model.advance_phase(0.0, 6.0, 24.0)),
        "h/day",
        kind="identity",
    ),
    _case(
        "clock-layover",
        GANDER_1991,
        "body-clock shift 2 days after crossing 8 zones west",
        "about 3 h (crews stay near home time)",
        (2.5, 3.5),
        "±0.5 h",
        "'about' 3 h: half an hour either side",
        lambda runs: -float(model.advance_phase(0.0, -8.0, 48.0)),
        "h",
        kind="identity",
    ),
    _case(
        "pmr-vs-speed",
        BELYAVIN_2004,
        "errors' relative rise over response time's, KSS 3 to 7 (PMR vs VD)",
        "errors rise more than response time",
        (1.0, math.inf),
        "> 1",
        "a direction check (the source gives no number)",
        lambda runs: relative_error_over_speed(7.0),
        "×",
        1,
        kind="independent",
    ),
)

#: This module's rows; the duty-risk rows live in :mod:`vigil.validation.risk_cases`, and
#: :mod:`vigil.validation.catalog` collects every row module in report order.
CASES: tuple[Case, ...] = _CASES
