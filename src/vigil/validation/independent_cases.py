"""Independent validation rows: published field and laboratory results never used to choose
any rule or parameter of the model.

Each row names its source, the scenario that stands for the study, the published figure and
a band taken from the study's own spread (SD, SE or CI, stated in ``why``); where a study
reports only a direction (a significant difference without its size), the row checks the
direction. The bands were fixed, and committed, before Vigil's values were computed. The
scenarios are built here and scored with the others by
:func:`vigil.validation.scenarios.run_all` (see :mod:`vigil.validation.catalog`).

Predicted ground sleep is compared with actigraphy and polysomnography through
:func:`vigil.validation.scenarios.actigraphic`; scores at top of descent (TOD) are read at
the interval holding landing - 30 min.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

import numpy as np

from vigil.roster.synthetic import SyntheticDuty
from vigil.scoring.report import ScheduleResult
from vigil.validation import rosters as r
from vigil.validation import scenarios as sc
from vigil.validation.cases import GANDER_2013, Case, Source
from vigil.validation.scenarios import Runs, actigraphic, epoch_hours

#: Rows of this module that fail today: key -> one-line reason.
KNOWN_FAILURES: dict[str, str] = {
    "layover0177-24h": "layover sleeps are capped at the home sleep (8.1-h periods) and "
    "counted as actigraphy (x 0.88): 6.7 h per 24 h against the pilots' 8.0 h",
    "oster2024-quick-return": "off at 21:30, in bed by 22:30, before the 22:34 gate onset: "
    "the predictor loses no sleep in a quick return; nurses lost 1 h. A longer post-shift "
    "wind-down fitted to Ganesan 2019's evening-to-day loss (0.63 h) would give 0.63 h here",
    "sargent2022-split": "held beds are slept to their end (2 x 3.5 h), but a sleep period is "
    "88 % asleep (ground_efficiency, Signal 2013): at most 369.6 min; these young men slept "
    "93 % of the 7 h. A held-bed efficiency rising with sleep pressure is not what the fitted "
    "Roach 2017 beds show (81 % after 18.7 h awake, 86 % after 9.3 h)",
    "jackson2014-split": "the held-bed rule sleeps the 03:00-08:00 bed and 15:00 to 18:33-18:51 "
    "of the 15:00-20:00 bed (7.7 h per day asleep); measured 7.16 h. It would pass with "
    "held_bed_gate at 14.9; the Roach 2017 rows fit it at 15.0-15.04",
}

# --- sources ------------------------------------------------------------------------

GANDER_2014 = Source(
    "Gander et al. 2014",
    "Gander PH, Mulrine HM, van den Berg MJ, Smith AAT, Signal TL, Wu LJ, Belenky G. Pilot "
    "fatigue: relationships with departure and arrival times, flight duration, and "
    "direction. Aviat Space Environ Med 2014;85(8):833-840. PMID 25199126, "
    "https://read.qxmd.com/read/25199126",
)
POWELL_2008 = Source(
    "Powell et al. 2008",
    "Powell D, Spencer MB, Holland D, Petrie KJ. Fatigue in two-pilot operations: "
    "implications for flight and duty time limitations. Aviat Space Environ Med "
    "2008;79(11):1047-1050. PMID 18998486",
)
LAYOVER_0177 = Source(
    "SLEEP abstract 0177",
    "Quantifying the duration and timing of pilot sleep during layovers. SLEEP meeting "
    "abstract 0177 (229 US pilots, 460 long-range and ultra-long-range trips, actigraphy), "
    "https://discovery.researcher.life/article/0177-quantifying-the-duration-and-timing-"
    "of-pilot-sleep-during-layovers/ca43de5eb5f73f36be51a57e9fd58a14",
)
VAN_DEN_BERG_2023 = Source(
    "van den Berg et al. 2023",
    "van den Berg MJ, Zaslona JL, Muller DP, Wu L, Hughes M, Johnston B, Dyer C, Drane M, "
    "Signal TL. Managing cabin crew fatigue during ultra-long range operations. Front "
    "Environ Health 2023;2:1329206. doi:10.3389/fenvh.2023.1329206",
)
OSTER_2024 = Source(
    "Öster et al. 2024",
    "Öster K, Tucker P, Söderström M, Dahlgren A. Quick returns, sleep, sleepiness and "
    "stress: an intra-individual field study on objective sleep and diary data. Scand J "
    "Work Environ Health 2024;50(6):466-474. doi:10.5271/sjweh.4175",
)
SARGENT_2022 = Source(
    "Sargent et al. 2022",
    "Sargent C, Kosmadopoulos A, Zhou X, Roach GD. Timing of sleep in the break between two "
    "consecutive night-shifts: the effect of different strategies on daytime sleep and "
    "night-time neurobehavioural function. Nat Sci Sleep 2022;14:231-242. "
    "doi:10.2147/NSS.S336795 (Table 1, polysomnography, n = 12)",
)
JACKSON_2014 = Source(
    "Jackson et al. 2014",
    "Jackson ML, Banks S, Belenky G. Investigation of the effectiveness of a split sleep "
    "schedule in sustaining sleep and maintaining performance. Chronobiol Int "
    "2014;31(10):1218-1230. doi:10.3109/07420528.2014.957305",
)
VEJVODA_2014 = Source(
    "Vejvoda et al. 2014",
    "Vejvoda M, Elmenhorst E-M, Pennig S, Plath G, Maass H, Tritschler K, Basner M, "
    "Aeschbach D. Significance of time awake for predicting pilots' fatigue on short-haul "
    "flights: implications for flight duty time regulations. J Sleep Res 2014. "
    "doi:10.1111/jsr.12186",
)
FLYNN_EVANS_2018 = Source(
    "Flynn-Evans et al. 2018",
    "Flynn-Evans EE, Mulligan JB, Gregory K, Feary M, Nowinski J, Arsintescu L. Sleep and "
    "neurobehavioral performance vary by work start time during non-traditional day "
    "shifts. Sleep Health 2018;4(5) (44 pilots, actigraphy)",
)

# --- scenario helpers ----------------------------------------------------------------

#: Longest single awake row of the laboratory scenarios [h] (as the sleep-length rows).
_ROW_MAX = 20.0
#: Both crews of an augmented complement: rest first (SleepOrder 1) and second (2).
ORDERS: tuple[int, ...] = (1, 2)


def _awake(reference: str, start: datetime, end: datetime) -> list[SyntheticDuty]:
    """Back-to-back ground rows (no sectors, no preparation, no commute) keeping a person
    awake from ``start`` to ``end``, as the laboratory's scheduled wakefulness."""
    rows: list[SyntheticDuty] = []
    while start < end:
        stop = min(start + timedelta(hours=_ROW_MAX), end)
        rows.append(
            r.duty(
                reference,
                start,
                stop,
                "ACC",
                "ACC",
                "ACC",
                sectors=0,
                crew_prep_minutes=0,
                commute_minutes=0,
            )  # fmt: skip
        )
        start = stop
    return rows


def laboratory(
    reference: str,
    first_wake: datetime,
    last: datetime,
    beds: Sequence[tuple[datetime, datetime]],
) -> r.Scenario:
    """A laboratory protocol at ACC: awake from ``first_wake`` to ``last`` except in the
    time-in-bed periods ``beds``. Each awake stretch ends 30 min (the wind-down, ref §4.1)
    before lights-out, so the sleep opportunity is exactly the time in bed, and the beds
    are declared held (kept to their end asleep or not: the held-bed rule, docs/model.md)."""
    wind_down = timedelta(hours=0.5)
    rows: list[SyntheticDuty] = []
    start = first_wake
    for bed_start, bed_end in sorted(beds):
        rows += _awake(reference, start, bed_start - wind_down)
        start = bed_end
    rows += _awake(reference, start, last)
    return r.Scenario(reference, tuple(rows), beds=tuple(sorted(beds)))


def _augmented(
    reference: str,
    on: datetime,
    flight: float,
    start: str,
    end: str,
    home: str,
    order: int,
    *,
    cabin: bool = False,
) -> SyntheticDuty:
    """One long flight: report ``on``, off 1.5 h after ``flight`` hours (ref §5.1); 4 pilots
    with 2 rests each, or cabin crew (9, CabinCrewSleepPattern 0, one rest)."""
    off = on + timedelta(hours=flight + 1.5)
    if cabin:
        return SyntheticDuty(
            reference, on, off, start, end, home, fleet="B789", rank="CC",
            crew_composition=9, sleep_count=1, sleep_order=order,
        )  # fmt: skip
    return r.duty(
        reference, on, off, start, end, home, crew_composition=4, sleep_count=2, sleep_order=order
    )


def _name(prefix: str, order: int) -> str:
    return f"{prefix}-{order}"


#: Gander et al. 2014: arrival hours (domicile = ACC = UTC) of 13-h flights ACC-JNB.
ARRIVALS: tuple[float, ...] = (8.0, 12.0, 16.0, 20.0)
#: Powell et al. 2008: report hours of the two-pilot, two-sector 8-h duties (ACC).
POWELL_REPORTS: dict[str, float] = {"PWL-N": 20.0, "PWL-D": 8.0}
#: The trip of the layover abstract: IAH (UTC-6 in January) to HKG, 16-h flights, 48-h
#: layover, report 10:00 Houston time [C: a westbound US trip within the abstract's ranges].
LAYOVER_TRIP = ("IAH", "HKG", 16.0, 48.0)
#: van den Berg et al. 2023: AKL-ORD-AKL, report (UTC) and flight length of each leg
#: [C: the airline's evening departures approximated, 15.5 h out, 16.5 h back].
CABIN_LEGS: tuple[tuple[datetime, float, str, str], ...] = (
    (r.at(3, 5.5), 15.5, "AKL", "ORD"),
    (r.at(6, 1.5), 16.5, "ORD", "AKL"),
)
#: Öster et al. 2024: hospital shifts (ACC clock), start and end hours [C: Swedish day and
#: evening shifts]; a quick return is evening -> day (9.5 h), the control day -> day.
OSTER_SHIFTS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "OSTER-QR": ((13.0, 21.5), (24.0 + 7.0, 24.0 + 15.5)),
    "OSTER-DD": ((7.0, 15.5), (24.0 + 7.0, 24.0 + 15.5)),
}
#: Sargent et al. 2022: time in bed between night shifts 18:00-06:00 of days 3-4 and 4-5.
SARGENT_BEDS: dict[str, tuple[tuple[float, float], ...]] = {
    "SGT-IMM": ((7.0, 14.0),),
    "SGT-DEL": ((10.0, 17.0),),
    "SGT-SPL": ((7.0, 10.5), (13.5, 17.0)),
}
#: Jackson et al. 2014: time in bed of each condition (hours after midnight, day 4 onward);
#: two baseline nights 22:00-08:00 before, the five-day work week from day 4 08:00.
JACKSON_BEDS: dict[str, tuple[tuple[float, float], ...]] = {
    "JKS-NGT": ((22.0, 32.0),),
    "JKS-DAY": ((10.0, 20.0),),
    "JKS-SPL": ((15.0, 20.0), (27.0, 32.0)),
}
#: Vejvoda et al. 2014: three consecutive 9-h, 3-sector duties, early-starting (report
#: 06:00) or late-finishing (off 01:00) [C: mid-points of the study's windows].
VEJVODA_REPORTS: dict[str, float] = {"VEJ-E": 6.0, "VEJ-L": 16.0}


def scenarios() -> list[r.Scenario]:
    """Every scenario of this module's rows."""
    out: list[r.Scenario] = []
    for hour in ARRIVALS:
        for o in ORDERS:
            name = _name(f"G14A{hour:02.0f}", o)
            row = _augmented(name, r.at(3, hour - 13.0 - 1.0 + 24.0), 13.0, "ACC", "JNB", "ACC", o)
            out.append(r.Scenario(name, (row,)))
    for name, hour in POWELL_REPORTS.items():
        row = r.duty(name, r.at(3, hour), r.at(3, hour + 8.0), "ACC", "ACC", "ACC", sectors=2)
        out.append(r.Scenario(name, (row,)))
    home, away, flight, layover = LAYOVER_TRIP
    for o in ORDERS:
        name = _name("L177", o)
        out_on = r.at(3, 16.0)
        back_on = out_on + timedelta(hours=flight + 1.5 + layover)
        rows: tuple[SyntheticDuty, ...] = (
            _augmented(name, out_on, flight, home, away, home, o),
            _augmented(name, back_on, flight, away, home, home, o),
        )
        out.append(r.Scenario(name, rows))
    for o in ORDERS:
        name = _name("CC23", o)
        rows = tuple(
            _augmented(name, on, hours, start, end, "AKL", o, cabin=True)
            for on, hours, start, end in CABIN_LEGS
        )
        out.append(r.Scenario(name, rows))
    for name, shifts in OSTER_SHIFTS.items():
        rows = tuple(r.ground_shift(name, r.at(3, a), r.at(3, b)) for a, b in shifts)
        out.append(r.Scenario(name, rows))
    for name, beds in SARGENT_BEDS.items():
        day_beds = [(r.at(4, a), r.at(4, b)) for a, b in beds]
        out.append(laboratory(name, r.at(3, 7.0), r.at(5, 6.0), day_beds))
    for name, beds in JACKSON_BEDS.items():
        baseline = [(r.at(d, 22.0), r.at(d + 1, 8.0)) for d in (2, 3)]
        week = [(r.at(4 + k, a), r.at(4 + k, b)) for k in range(5) for a, b in beds]
        out.append(laboratory(name, r.at(2, 8.0), r.at(9, 8.0), baseline + week))
    for name, hour in VEJVODA_REPORTS.items():
        out.append(r.Scenario(name, r.block_rows(name, hour, 9.0, days=3, sectors=3)))
    return out


#: How this module's scenarios stand for the studies (printed in the report).
SCENARIO_NOTES: tuple[str, ...] = (
    "- Independent rows (`independent_cases.py`): predicted ground sleep is compared with",
    "  actigraphy and polysomnography through the same stated efficiency as Roach 2012",
    "  (`scenarios.actigraphic`); scores at top of descent are the interval holding",
    "  landing - 30 min (landing = off - 30 min). Augmented flights are flown by both crews",
    "  (rest first and second) and the value is their mean.",
    "- Gander 2014: 13-h flights ACC-JNB (4 pilots, 2 rests) landing 08:00, 12:00, 16:00",
    "  and 20:00 domicile time. Gander 2013 TOD: the in-flight sweep's 13-h and 17-h flights.",
    "- Powell 2008: one two-pilot, two-sector 8-h duty at ACC, 20:00-04:00 or 08:00-16:00.",
    "- Layover abstract 0177: IAH-HKG-IAH, report 10:00 Houston time, 16-h flights,",
    "  4 pilots, 48-h layover; home sleep is the 72 h before report [C: within the",
    "  abstract's routes and layovers].",
    "- van den Berg 2023: cabin crew (composition 9, pattern 0, one rest) AKL-ORD 15.5 h",
    "  reporting 18:30 NZDT, 51-h layover, ORD-AKL 16.5 h reporting 19:30 CST [C: the",
    "  evening departures approximated]; baseline days are the 96 h to 24 h before report.",
    "- Öster 2024: ground shifts at ACC with a 30-min commute and no preparation: evening",
    "  13:00-21:30 then day 07:00-15:30 (quick return, 9.5 h) against two day shifts.",
    "- Sargent 2022 and Jackson 2014 (laboratory): the person is kept awake by back-to-back",
    "  ground rows except in the time in bed; each awake stretch ends 30 min (the",
    "  wind-down) before lights-out, and the beds are declared held (the held-bed rule,",
    "  docs/model.md). Sargent: awake from 07:00 before the first 18:00-06:00",
    "  night shift; Jackson: two baseline nights 22:00-08:00, then five days of the",
    "  condition's time in bed, sleep per day over day 4 08:00 to day 9 08:00.",
    "- Vejvoda 2014: three consecutive 9-h, 3-sector duties at ACC reporting 06:00 (early",
    "  start) or 16:00 (off 01:00, late finish), after days off; time awake at report is",
    "  report minus the end of the last sleep. Flynn-Evans 2018: the LATE block above.",
)


# --- measures -----------------------------------------------------------------------


def score_at(result: ScheduleResult, scale: str, instant: float) -> float:
    """The ``scale`` score of the duty interval holding ``instant`` [epoch h] (NaN off duty)."""
    for duty in result.duties:
        k = math.floor((instant - epoch_hours(duty.on_duty)) / 0.25)
        if 0 <= k < duty.interval_count:
            return float(result.scores[scale][duty.first_interval + k])
    return math.nan


def top_of_descent(result: ScheduleResult, duty: int = 0, scale: str = "KSS") -> float:
    """Score at top of descent of a schedule's ``duty``: landing (off - 30 min, ref §5.1)
    minus 30 min."""
    return score_at(result, scale, epoch_hours(result.duties[duty].off_duty) - 1.0)


def crews_tod(runs: Runs, prefix: str, duty: int = 0, scale: str = "KSS") -> float:
    """Top-of-descent score, mean over both crews of the complement (each rated at TOD)."""
    return float(np.mean([top_of_descent(runs[_name(prefix, o)], duty, scale) for o in ORDERS]))


def arrival_contrast(runs: Runs) -> float:
    """KSS at TOD arriving 08:00 domicile time minus the mean of later arrivals."""
    values = {h: crews_tod(runs, f"G14A{h:02.0f}") for h in ARRIVALS}
    later = [v for h, v in values.items() if h >= 10.0]
    return values[8.0] - float(np.mean(later))


def ulr_tod_contrast(runs: Runs) -> float:
    """KSS at TOD of the ULR (17-h) minus the LR (13-h) sweep flight, both crews."""

    def tod(hours: float) -> float:
        names = [sc.flight_schedule(hours, o) for o in sc.REST_ORDERS]
        return float(np.mean([top_of_descent(runs[n]) for n in names]))

    return tod(sc.ULTRA_LONG_RANGE) - tod(sc.LONG_RANGE)


def wocl_contrast(runs: Runs) -> float:
    """SP at TOD of the duty landing in the window of circadian low minus the daytime one."""
    return top_of_descent(runs["PWL-N"], scale="SP") - top_of_descent(runs["PWL-D"], scale="SP")


def _layover_and_home(result: ScheduleResult) -> tuple[float, float]:
    """Actigraphic sleep per 24 h on the layover, and at home in the 72 h before report."""
    report = epoch_hours(result.duties[0].on_duty)
    arrive = epoch_hours(result.duties[0].off_duty)
    leave = epoch_hours(result.duties[1].on_duty)
    layover = actigraphic(sc.sleep_between(result, arrive, leave)) * 24.0 / (leave - arrive)
    home = actigraphic(sc.sleep_between(result, report - 72.0, report)) / 3.0
    return layover, home


def layover_per_day(runs: Runs) -> float:
    """Layover sleep per 24 h, mean of both crews [h]."""
    return float(np.mean([_layover_and_home(runs[_name("L177", o)])[0] for o in ORDERS]))


def layover_minus_home(runs: Runs) -> float:
    """Layover sleep per 24 h minus pre-trip sleep per 24 h, both crews [min]."""
    pairs = [_layover_and_home(runs[_name("L177", o)]) for o in ORDERS]
    return float(np.mean([(a - b) * 60.0 for a, b in pairs]))


def cabin_layover_gain(runs: Runs) -> float:
    """Cabin crew: sleep in the 24 h before the inbound report minus the mean of the three
    pre-trip baseline days (the 96 h to 24 h before the outbound report) [h]."""
    out: list[float] = []
    for o in ORDERS:
        result = runs[_name("CC23", o)]
        outbound = epoch_hours(result.duties[0].on_duty)
        inbound = epoch_hours(result.duties[1].on_duty)
        before = actigraphic(sc.sleep_between(result, inbound - 24.0, inbound))
        baseline = actigraphic(sc.sleep_between(result, outbound - 96.0, outbound - 24.0)) / 3
        out.append(before - baseline)
    return float(np.mean(out))


def cabin_tod_contrast(runs: Runs) -> float:
    """Cabin crew KSS at TOD, inbound minus outbound flight, both rest orders."""
    return crews_tod(runs, "CC23", duty=1) - crews_tod(runs, "CC23", duty=0)


def break_sleep(result: ScheduleResult) -> float:
    """Actigraphic sleep between a schedule's first two duties [h]."""
    start, end = (epoch_hours(result.duties[0].off_duty), epoch_hours(result.duties[1].on_duty))
    return actigraphic(sc.sleep_between(result, start, end))


def quick_return_loss(runs: Runs) -> float:
    """Sleep in a quick return (evening -> day) minus a day -> day transition [h]."""
    return break_sleep(runs["OSTER-QR"]) - break_sleep(runs["OSTER-DD"])


def sleep_in_beds(result: ScheduleResult, beds: Sequence[tuple[datetime, datetime]]) -> float:
    """Actigraphic (polysomnographic) sleep inside the given times in bed [h]."""
    return actigraphic(
        sum(sc.sleep_between(result, epoch_hours(a), epoch_hours(b)) for a, b in beds)
    )


def sargent_tst(runs: Runs, name: str) -> float:
    """Total sleep in the time in bed between the two night shifts [min]."""
    beds = [(r.at(4, a), r.at(4, b)) for a, b in SARGENT_BEDS[name]]
    return sleep_in_beds(runs[name], beds) * 60.0


def jackson_tst(runs: Runs, name: str) -> float:
    """Total sleep per day over the five-day work week (day 4 08:00 to day 9 08:00) [h]."""
    start, end = epoch_hours(r.at(4, 8.0)), epoch_hours(r.at(9, 8.0))
    return actigraphic(sc.sleep_between(runs[name], start, end)) / 5.0


def awake_at_report(result: ScheduleResult) -> float:
    """Mean time awake at report over a schedule's duties: report minus the end of the last
    sleep (any kind) that ended by then [h]."""
    out: list[float] = []
    for duty in result.duties:
        report = epoch_hours(duty.on_duty)
        ends = [e.end for e in result.sleep if e.end <= report + 1e-9]
        out.append(report - max(ends) if ends else math.nan)
    return float(np.mean(out))


def prior_sleep(result: ScheduleResult, duty: int) -> float:
    """Actigraphic length of the longest sleep that starts in the 24 h before a duty's
    report (the duty's preceding sleep) [h]."""
    report = epoch_hours(result.duties[duty].on_duty)
    sleeps = sc.sleeps_starting(result, report - 24.0, report)
    return actigraphic(max((min(b, report) - a for a, b in sleeps), default=0.0))


def vejvoda_sleep_contrast(runs: Runs) -> float:
    """Preceding sleep of late-finishing minus early-starting duties, mean of the block [h]."""

    def mean_prior(name: str) -> float:
        result = runs[name]
        return float(np.mean([prior_sleep(result, k) for k in range(len(result.duties))]))

    return mean_prior("VEJ-L") - mean_prior("VEJ-E")


def late_block_decline(runs: Runs) -> float:
    """Preceding sleep of the last late-finishing duty of the LATE block minus the first [h]."""
    result = runs["LATE"]
    return prior_sleep(result, len(result.duties) - 1) - prior_sleep(result, 0)


# --- rows ---------------------------------------------------------------------------

_DIRECTION = (
    "a direction check: the study reports the difference as significant but not its size, "
    "so the band is its sign (at least 0.001 from zero)"
)


def _row(
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
) -> Case:
    low, high = band
    return Case(key, source, measure, published, low, high, tolerance, why, compute, unit,
                decimals, kind="independent")  # fmt: skip


def _sd_row(
    key: str,
    source: Source,
    measure: str,
    mean: float,
    sd: float,
    compute: Callable[[Runs], float],
    unit: str,
) -> Case:
    return _row(key, source, measure, f"{mean:g} ± {sd:g} {unit} (mean ± SD)",
                (mean - sd, mean + sd), f"±{sd:g} {unit} (1 SD)",
                "one SD of the participants: Vigil predicts an average person, who should lie "
                "within the spread of the people measured", compute, unit, 1)  # fmt: skip


def _jackson_row(key: str, measure: str, mean: float, spread_min: float) -> Case:
    half = 1.96 * spread_min / 60.0
    return _row(
        key, JACKSON_2014, measure, f"{mean:g} h ± {spread_min:g} min",
        (mean - half, mean + half), f"±{half:.2f} h",
        "1.96 × the published ± (the abstract does not say SD or SE; as an SE it is the 95 % "
        "CI of the condition mean)", functools.partial(jackson_tst, name=_JKS[key]), "h",
    )  # fmt: skip


_JKS = {"jackson2014-night": "JKS-NGT", "jackson2014-day": "JKS-DAY",
        "jackson2014-split": "JKS-SPL"}  # fmt: skip
#: 95 % half-width of the layover abstract's mean sleep per 24 h: 1.96 × 113 min / √460 [min].
_LAYOVER_HALF = 1.96 * 113.0 / math.sqrt(460.0)
_VEJVODA_MID = (1.1 + 6.6) / 2.0

CASES: tuple[Case, ...] = (
    _row(
        "gander2014-tod-arrival",
        GANDER_2014,
        "KSS at top of descent, arrival 08:00 minus the mean of arrivals 12:00, 16:00, 20:00 "
        "(domicile time; 13-h flights ACC-JNB, 4 pilots, 2 rests, both crews)",
        "higher on flights arriving 06:00-09:59 than on later arrivals",
        (0.001, math.inf),
        "> 0",
        _DIRECTION,
        arrival_contrast,
        "KSS",
    ),
    _row(
        "gander2013-tod-ulr-vs-lr",
        GANDER_2013,
        "KSS at top of descent, 17-h minus 13-h sweep flight (both crews)",
        "sleepiness lower at the end of ULR than of LR flights",
        (-math.inf, -0.001),
        "< 0",
        _DIRECTION + "; the sweep flights are those of the fitted in-flight rows, "
        "but this measure was never used",
        ulr_tod_contrast,
        "KSS",
    ),
    _row(
        "powell2008-tod-wocl",
        POWELL_2008,
        "SP at top of descent, duty 20:00-04:00 minus 08:00-16:00 (2 pilots, 2 sectors, ACC)",
        "fatigue highest in the window of circadian low (02:00-06:00)",
        (0.001, math.inf),
        "> 0",
        _DIRECTION + "; Powell's sector effect is not used (it bounds b_s)",
        wocl_contrast,
        "SP",
    ),
    _row(
        "layover0177-24h",
        LAYOVER_0177,
        "actigraphic sleep per 24 h of a 48-h layover, IAH-HKG-IAH, 16-h flights, 4 pilots "
        "(both crews)",
        "7 h 58 min per 24 h (SD 1 h 53 min, 460 trips)",
        (7.0 + 58.0 / 60.0 - _LAYOVER_HALF / 60.0, 7.0 + 58.0 / 60.0 + _LAYOVER_HALF / 60.0),
        f"±{_LAYOVER_HALF:.1f} min",
        "95 % CI of the mean: 1.96 × SD / √460",
        layover_per_day,
        "h",
    ),
    _row(
        "layover0177-vs-home",
        LAYOVER_0177,
        "layover sleep per 24 h minus pre-trip sleep per 24 h (72 h before report), same trip",
        "17 min less on layover days than on pre-trip days",
        (-17.0 - _LAYOVER_HALF, -17.0 + _LAYOVER_HALF),
        f"±{_LAYOVER_HALF:.1f} min",
        "the 95 % half-width of the layover mean (the abstract gives no spread of the difference)",
        layover_minus_home,
        "min",
        1,
    ),
    _row(
        "vandenberg2023-cabin-layover",
        VAN_DEN_BERG_2023,
        "cabin crew: sleep in the 24 h before the inbound report (ORD layover) minus a "
        "pre-trip baseline day, AKL-ORD-AKL, 51-h layover",
        "9.1 h vs 8.2 h on baseline days (more)",
        (0.001, math.inf),
        "> 0",
        _DIRECTION,
        cabin_layover_gain,
        "h",
    ),
    _row(
        "vandenberg2023-cabin-tod",
        VAN_DEN_BERG_2023,
        "cabin crew: KSS at top of descent, inbound (ORD-AKL) minus outbound (AKL-ORD)",
        "sleepiness higher on the inbound than on the outbound flight",
        (0.001, math.inf),
        "> 0",
        _DIRECTION,
        cabin_tod_contrast,
        "KSS",
    ),
    _row(
        "oster2024-quick-return",
        OSTER_2024,
        "actigraphic sleep between evening (13:00-21:30) and day (07:00-15:30) shifts minus "
        "between two day shifts (ACC, 30-min commute)",
        "-1.0 h (95 % CI -1.23 to -0.81)",
        (-1.23, -0.81),
        "95 % CI",
        "the study's 95 % confidence interval",
        quick_return_loss,
        "h",
    ),
    _sd_row(
        "sargent2022-immediate",
        SARGENT_2022,
        "sleep in bed 07:00-14:00 between night shifts 18:00-06:00 (lab, predicted × efficiency)",
        383.6,
        22.3,
        lambda runs: sargent_tst(runs, "SGT-IMM"),
        "min",
    ),
    _sd_row(
        "sargent2022-delayed",
        SARGENT_2022,
        "sleep in bed 10:00-17:00 between night shifts 18:00-06:00 (lab)",
        384.0,
        21.3,
        lambda runs: sargent_tst(runs, "SGT-DEL"),
        "min",
    ),
    _sd_row(
        "sargent2022-split",
        SARGENT_2022,
        "sleep in bed 07:00-10:30 and 13:30-17:00 between night shifts 18:00-06:00 (lab)",
        391.6,
        17.6,
        lambda runs: sargent_tst(runs, "SGT-SPL"),
        "min",
    ),
    _jackson_row(
        "jackson2014-night",
        "sleep per day, 5 days in bed 22:00-08:00 (lab, predicted × efficiency)",
        8.4,
        13.4,
    ),
    _jackson_row("jackson2014-day", "sleep per day, 5 days in bed 10:00-20:00 (lab)", 6.4, 15.3),
    _jackson_row(
        "jackson2014-split",
        "sleep per day, 5 days in bed 03:00-08:00 and 15:00-20:00 (lab)",
        7.16,
        14.2,
    ),
    _row(
        "vejvoda2014-awake-early",
        VEJVODA_2014,
        "time awake at report, three early-starting duties 06:00-15:00 (3 sectors, ACC)",
        "1.1 h",
        (0.0, _VEJVODA_MID),
        f"< {_VEJVODA_MID:.2f} h",
        "no spread published: the band is below the midpoint of the early (1.1 h) and late "
        "(6.6 h) means, so the row tells an early start from a late finish",
        lambda runs: awake_at_report(runs["VEJ-E"]),
        "h",
    ),
    _row(
        "vejvoda2014-awake-late",
        VEJVODA_2014,
        "time awake at report, three late-finishing duties 16:00-01:00 (3 sectors, ACC)",
        "6.6 h",
        (_VEJVODA_MID, math.inf),
        f"> {_VEJVODA_MID:.2f} h",
        "no spread published: above the midpoint of the early and late means",
        lambda runs: awake_at_report(runs["VEJ-L"]),
        "h",
    ),
    _row(
        "vejvoda2014-sleep-late-vs-early",
        VEJVODA_2014,
        "preceding sleep, late-finishing minus early-starting duties (the two blocks above)",
        "+1.1 h",
        (0.001, math.inf),
        "> 0",
        "a direction check: the abstract gives the difference without its spread",
        vejvoda_sleep_contrast,
        "h",
    ),
    _row(
        "flynnevans2018-late-decline",
        FLYNN_EVANS_2018,
        "sleep before the 4th minus before the 1st of four late duties 15:30-00:30 (LATE block)",
        "sleep declined from the beginning to the end of the late shifts (P = .003)",
        (-math.inf, -0.001),
        "< 0",
        _DIRECTION + "; the LATE block is the fitted Arsintescu row's scenario, but "
        "this measure was never used",
        late_block_decline,
        "h",
    ),
)
