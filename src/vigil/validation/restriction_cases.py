"""Multi-day sleep restriction and recovery: laboratory protocols with the sleep given.

Each row runs a published protocol's time in bed (TIB) as given sleep (quality 1, the
body clock on local time) and reads the model at the study's test times: the final KSS
without workload (ref §2.5) and PVT lapses (the ``unified`` preset's own S + κ·C, not
below 0; under the Three-Process presets the ref §2.6 cross-walk of the KSS). The rows
are kept apart from the scenario rosters of :mod:`.cases` (which appends them to
``CASES``) because they need no roster: the laboratory fixed the sleep.

Bands come from each study's own spread (standard errors, between-subject SD, p-values);
each row says how. Kinds: ``axelsson2008-kss-slope`` is the *fitted* row, the
evidence that decided whether the slow (allostatic) process of the Unified Model enters
the default preset (``slow_weight``, docs/model.md); ``belenky2003-3h-recovery-unified``
is *fitted* too, because the UMP's parameters were fitted to that study; every other row
is *independent*.

Sources
-------
- Axelsson J, Kecklund G, Åkerstedt T, Donofrio P, Lekander M, Ingre M (2008).
  Sleepiness and performance in response to repeated sleep restriction and subsequent
  recovery during semi-laboratory conditions. Chronobiol Int 25(2):297-308.
  Protocol: sleep 23:00-07:00 on a habituation and two
  baseline nights, 03:00-07:00 on five nights, 23:00-07:00 on seven recovery nights;
  reaction-time test and KSS at 08:00, 14:00 and 20:00. Per restricted day: KSS +0.64 ±
  0.05, lapses/test +0.69 ± 0.16; after seven recovery days KSS was back to baseline,
  lapses were not; between-subject SD of the intercept = 1.1 days of restriction for KSS.
- Van Dongen HPA, Maislin G, Mullington JM, Dinges DF (2003). The cumulative cost of
  additional wakefulness. Sleep 26(2):117-126. doi:10.1093/sleep/26.2.117. 4, 6 or 8 h
  TIB ending 07:30 for 14 days after 3 baseline nights; tests every 2 h, 07:30-23:30.
  Sleepiness "did not significantly differentiate the 6 h and 4 h conditions"; lapses
  were worse in 4 h than 6 h (p = 0.036); on day 7 the 6-h group averaged 54 lapses a
  day (6 per test, 9 tests) and the 4-h group 70 (Banks S, Dinges DF 2007, J Clin Sleep
  Med 3(5):519-528, figure 1 legend, PMID 17803017).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.model.scales import pvt_lapses
from vigil.validation.cases import Case, Source, _case

__all__ = ["CASES", "KNOWN_FAILURES", "LabDay", "lab_protocol"]

AXELSSON_2008 = Source(
    "Axelsson et al. 2008",
    "Axelsson J, Kecklund G, Åkerstedt T, Donofrio P, Lekander M, Ingre M. Sleepiness and "
    "performance in response to repeated sleep restriction and subsequent recovery during "
    "semi-laboratory conditions. Chronobiol Int 2008;25(2):297-308 "
    "(PMID 18533328)",
)
VAN_DONGEN_2003 = Source(
    "Van Dongen et al. 2003",
    "Van Dongen HPA, Maislin G, Mullington JM, Dinges DF. The cumulative cost of additional "
    "wakefulness: dose-response effects on neurobehavioral functions and sleep physiology "
    "from chronic sleep restriction and total sleep deprivation. Sleep 2003;26(2):117-126. "
    "doi:10.1093/sleep/26.2.117 (day-7 lapses: Banks S, Dinges DF. Behavioral and "
    "physiological consequences of sleep restriction. J Clin Sleep Med 2007;3(5):519-528, "
    "figure 1 legend, PMID 17803017)",
)

BANKS_2010 = Source(
    "Banks et al. 2010",
    "Banks S, Van Dongen HPA, Maislin G, Dinges DF. Neurobehavioral dynamics following "
    "chronic sleep restriction: dose-response effects of one night for recovery. Sleep "
    "2010;33(8):1013-1026. doi:10.1093/sleep/33.8.1013 (figure legend as reprinted in PMID "
    "22877676: after 5 nights of 4 h TIB, 04:00-08:00, 'even at the highest sleep recovery "
    "dose [10 h TIB], functioning did not return to baseline')",
)
BELENKY_2003 = Source(
    "Belenky et al. 2003",
    "Belenky G, Wesensten NJ, Thorne DR, Thomas ML, Sing HC, Redmond DP, Russo MB, Balkin TJ. "
    "Patterns of performance degradation and restoration during sleep restriction and "
    "subsequent recovery: a sleep dose-response study. J Sleep Res 2003;12(1):1-12. "
    "doi:10.1046/j.1365-2869.2003.00337.x (3-h group: 'recovery was incomplete'; PVT at "
    "09:00, 12:00, 15:00 and 21:00, Banks & Dinges 2007 figure 1)",
)

#: One day of a protocol: the night before it as (bed, rise) hours of the clock, bed
#: before midnight written as e.g. 23.0, after it as 27.0 (03:00).
LabDay = tuple[float, float]
#: float64 arrays
Floats = npt.NDArray[np.float64]


def lab_protocol(
    nights: Sequence[LabDay], test_hours: Sequence[float], params: model.Parameters
) -> tuple[Floats, Floats]:
    """KSS and lapses at ``test_hours`` of each day after each night of ``nights``.

    Day 0 starts awake at 07:00 after a habitual night; night ``k`` (0-based) runs from
    ``bed`` on day ``k`` to ``rise`` on day ``k + 1`` (hours counted from day ``k``'s
    midnight), and day ``k + 1``'s tests are at ``test_hours``. Returns two
    ``(len(nights), len(test_hours))`` arrays: final KSS without workload (ref §2.5) and
    PVT lapses (the Unified Model's own, not below 0, for ``unified``; else the ref §2.6
    cross-walk of that KSS).
    """
    bed = np.array([24.0 * k + b for k, (b, _) in enumerate(nights)])
    rise = np.array([24.0 * k + r for k, (_, r) in enumerate(nights)])
    days = np.arange(1, len(nights) + 1)
    times = (24.0 * days[:, None] + np.asarray(test_hours)[None, :]).reshape(1, -1)
    timeline = model.CrewTimeline(
        start=np.array([7.0]),
        s_start=np.array([13.82]),  # S at waking after habitual sleep (ref §9.4)
        phase_start=np.zeros(1),
        sleep_start=bed[None, :],
        sleep_end=rise[None, :],
        sleep_quality=np.ones((1, bed.size)),
        zone_time=np.zeros((1, 1)),
        zone_offset=np.zeros((1, 1)),
    )
    x = model.simulate_alertness(timeline, times, params)
    kss = model.final_kss(x, 0.0, params)
    if params.alertness_model == "unified":
        lapses = np.maximum(x, 0.0)
    else:
        lapses = pvt_lapses(kss, params)
    shape = (len(nights), len(test_hours))
    return kss.reshape(shape), lapses.reshape(shape)


# --- Axelsson et al. 2008 -----------------------------------------------------------

_AX_TESTS = (8.0, 14.0, 20.0)
#: habituation night is day 0's (before the start); two baseline, five restricted (03-07),
#: seven recovery nights (23-07)
_AX_NIGHTS: tuple[LabDay, ...] = (
    (23.0, 31.0), (23.0, 31.0),
    *((27.0, 31.0),) * 5,
    *((23.0, 31.0),) * 7,
)  # fmt: skip
_AX_BASE, _AX_RESTRICTED, _AX_RECOVERY = slice(0, 2), slice(2, 7), slice(7, 14)


def _axelsson(params: model.Parameters, lapses: bool) -> Floats:
    """Daily means over the three tests of KSS (or lapses), days after nights 1..14."""
    kss, lap = lab_protocol(_AX_NIGHTS, _AX_TESTS, params)
    daily: Floats = (lap if lapses else kss).mean(axis=1)
    return daily


def axelsson_slope(params: model.Parameters, lapses: bool = False) -> float:
    """Least-squares slope of the daily mean over restricted nights 0 (second baseline
    day) to 5 [per day]: the study's "each day of restricted sleep" effect."""
    daily = _axelsson(params, lapses)
    y = np.concatenate([daily[1:2], daily[_AX_RESTRICTED]])
    return float(np.polyfit(np.arange(6.0), y, 1)[0])


def axelsson_recovery(params: model.Parameters, lapses: bool = False) -> float:
    """Mean on the seventh recovery day minus the mean of the two baseline days."""
    daily = _axelsson(params, lapses)
    return float(daily[13] - daily[_AX_BASE].mean())


# --- Van Dongen et al. 2003 ---------------------------------------------------------

_VD_TESTS = tuple(7.5 + 2.0 * k for k in range(9))  # 07:30 ... 23:30


def _van_dongen(params: model.Parameters, tib: float, day: int, lapses: bool) -> float:
    """Day ``day`` of restriction to ``tib`` h TIB ending 07:30, after 3 baseline nights
    of 8 h (23:30-07:30): mean over the 9 tests of KSS (or lapses)."""
    nights = ((23.5, 31.5),) * 3 + ((31.5 - tib, 31.5),) * 14
    kss, lap = lab_protocol(nights, _VD_TESTS, params)
    return float((lap if lapses else kss)[2 + day].mean())


def van_dongen_difference(params: model.Parameters, day: int, lapses: bool = False) -> float:
    """4-h minus 6-h condition on restriction day ``day`` (mean over the day's tests)."""
    return _van_dongen(params, 4.0, day, lapses) - _van_dongen(params, 6.0, day, lapses)


# --- Banks et al. 2010 and Belenky et al. 2003 (recovery) --------------------------

_BANKS_TESTS = tuple(10.0 + 2.0 * k for k in range(6))  # every 2 h awake, 10:00-20:00 [C]


def banks_recovery(params: model.Parameters) -> float:
    """Lapses per test after one 10-h recovery night (22:00-08:00) that follows 5 nights of
    4 h (04:00-08:00), minus the second baseline day (10 h TIB, 22:00-08:00)."""
    nights = ((22.0, 32.0),) * 2 + ((28.0, 32.0),) * 5 + ((22.0, 32.0),)
    _, lapses = lab_protocol(nights, _BANKS_TESTS, params)
    return float(lapses[7].mean() - lapses[1].mean())


_BELENKY_TESTS = (9.0, 12.0, 15.0, 21.0)


def belenky_recovery(params: model.Parameters) -> float:
    """3-h group: lapses per test on the third 8-h recovery day (23:00-07:00) minus the
    last baseline day; 7 nights of 3 h (04:00-07:00) after 3 baseline nights of 8 h."""
    nights = ((23.0, 31.0),) * 3 + ((28.0, 31.0),) * 7 + ((23.0, 31.0),) * 3
    _, lapses = lab_protocol(nights, _BELENKY_TESTS, params)
    return float(lapses[12].mean() - lapses[2].mean())


_UNIFIED = model.PRESETS["unified"]
_DEFAULT = model.DEFAULT

_DIRECTION = (
    "a direction check (the source gives no number here); 0.1 lapse per test, below what "
    "a 10-min PVT resolves, keeps rounding from passing as recovery"
)

#: Rows that fail today, with the reason (merged into ``cases.KNOWN_FAILURES``).
KNOWN_FAILURES: dict[str, str] = {
    "axelsson2008-kss-slope": "S saturates after one or two 4-h nights (+0.33 KSS/day); the "
    "slow process that fits 0.64 (slow_weight 8.98) was not adopted: it worsens "
    "vandongen2003-kss-4h-vs-6h (1.33 -> 2.10), docs/model.md",
    "vandongen2003-kss-4h-vs-6h": "the model rates 4-h sleepers 1.3 KSS sleepier than 6-h "
    "sleepers on day 14; the subjects rated them alike (SSS), unaware of their deficits",
    "axelsson2008-lapses-slope-unified": "the UMP (fitted to Belenky 2003's 10-min PVT) "
    "rises 1.5 lapses/day on 4-h nights, twice the study's reaction-time test",
    "vandongen2003-lapses-4h-vs-6h-unified": "the UMP matches 6 h (6.1 vs 6.0 lapses/test "
    "on day 7) but overpredicts 4 h (10.6 vs 7.8)",
    "belenky2003-3h-recovery-default": "S is back within three 8-h nights (0.09 lapses/test "
    "above baseline through the cross-walk); the study found recovery incomplete",
}


CASES: tuple[Case, ...] = (
    _case(
        "axelsson2008-kss-slope",
        AXELSSON_2008,
        "KSS rise per night of 4-h sleep (03-07), daily mean of 08/14/20 h, 5 nights, "
        "default preset",
        "+0.64 ± 0.05 KSS/day",
        (0.54, 0.74),
        "0.64 ± 2 SE",
        "the study's SE of the per-day effect (0.05), two SE either side",
        lambda runs: axelsson_slope(_DEFAULT),
        "KSS/day",
        kind="fitted",
        fits=("slow_weight",),  # whether the Unified Model's slow process enters ingre2014_5c
    ),
    _case(
        "axelsson2008-kss-recovery",
        AXELSSON_2008,
        "KSS on the 7th recovery day (23-07) minus baseline, default preset",
        "back to baseline (n.s.)",
        (-0.47, 0.47),
        "0 ± 0.47",
        "two SE of a 9-subject mean from the study's between-subject SD (1.1 restricted "
        "days × 0.64 KSS/day = 0.70 KSS; 0.70/√9 = 0.23)",
        lambda runs: axelsson_recovery(_DEFAULT),
        "KSS",
        kind="independent",
    ),
    _case(
        "vandongen2003-kss-4h-vs-6h",
        VAN_DONGEN_2003,
        "KSS, 4-h minus 6-h TIB on restriction day 14 (mean of 9 tests), default preset",
        "not different (n.s.; rated on the SSS)",
        (-0.54, 0.54),
        "0 ± 0.54",
        "1.96 SE of a 13-vs-13 difference with Axelsson 2008's between-subject SD 0.70 KSS "
        "(0.70·√(2/13) = 0.27): the largest gap that is not significant",
        lambda runs: van_dongen_difference(_DEFAULT, 14),
        "KSS",
        kind="independent",
    ),
    _case(
        "axelsson2008-lapses-slope-unified",
        AXELSSON_2008,
        "PVT lapses rise per night of 4-h sleep, daily mean of 08/14/20 h, unified preset",
        "+0.69 ± 0.16 lapses/test/day",
        (0.37, 1.01),
        "0.69 ± 2 SE",
        "the study's SE of the per-day effect (0.16), two SE either side (its reaction-time "
        "test; the UMP predicts 10-min PVT lapses)",
        lambda runs: axelsson_slope(_UNIFIED, lapses=True),
        "lapses/day",
        kind="independent",
    ),
    _case(
        "axelsson2008-lapses-recovery-unified",
        AXELSSON_2008,
        "PVT lapses on the 7th recovery day minus baseline, unified preset",
        "still above baseline (significant)",
        (0.32, 3.45),
        "0.32-3.45",
        "significant: at least 2 SE (2 × 0.16); at most the 5-night rise (5 × 0.69)",
        lambda runs: axelsson_recovery(_UNIFIED, lapses=True),
        "lapses",
        kind="independent",
    ),
    _case(
        "vandongen2003-lapses-4h-vs-6h-unified",
        VAN_DONGEN_2003,
        "PVT lapses per test, 4-h minus 6-h TIB on restriction day 7, unified preset",
        "7.8 - 6.0 = 1.8 lapses/test (p = 0.036)",
        (0.08, 3.52),
        "1.8 ± 2 SE",
        "SE from the study's p = 0.036 (z = 2.10): 1.8/2.10 = 0.86; two SE either side",
        lambda runs: van_dongen_difference(_UNIFIED, 7, lapses=True),
        "lapses",
        kind="independent",
    ),
    _case(
        "banks2010-lapses-after-10h-default",
        BANKS_2010,
        "PVT lapses per test after one 10-h recovery night (5 nights of 4 h before) minus "
        "baseline, default preset (ref §2.6 cross-walk)",
        "not back to baseline",
        (0.1, math.inf),
        "≥ 0.1",
        _DIRECTION,
        lambda runs: banks_recovery(_DEFAULT),
        "lapses",
        kind="independent",
    ),
    _case(
        "banks2010-lapses-after-10h-unified",
        BANKS_2010,
        "PVT lapses per test after one 10-h recovery night (5 nights of 4 h before) minus "
        "baseline, unified preset",
        "not back to baseline",
        (0.1, math.inf),
        "≥ 0.1",
        _DIRECTION,
        lambda runs: banks_recovery(_UNIFIED),
        "lapses",
        kind="independent",
    ),
    _case(
        "belenky2003-3h-recovery-default",
        BELENKY_2003,
        "3-h group: PVT lapses per test on the 3rd 8-h recovery day minus baseline, default "
        "preset (ref §2.6 cross-walk)",
        "recovery incomplete",
        (0.1, math.inf),
        "≥ 0.1",
        _DIRECTION,
        lambda runs: belenky_recovery(_DEFAULT),
        "lapses",
        kind="independent",
    ),
    _case(
        "belenky2003-3h-recovery-unified",
        BELENKY_2003,
        "3-h group: PVT lapses per test on the 3rd 8-h recovery day minus baseline, unified preset",
        "recovery incomplete",
        (0.1, math.inf),
        "≥ 0.1",
        _DIRECTION,
        lambda runs: belenky_recovery(_UNIFIED),
        "lapses",
        kind="fitted",
        # the unified preset's parameters: Ramakrishnan et al. 2016 fitted them to this study
        fits=("ump_upper", "ump_tau_w", "ump_tau_s", "ump_tau_la", "ump_kappa", "ump_phase"),
    ),
)
