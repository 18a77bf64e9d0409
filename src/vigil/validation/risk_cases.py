"""Validation rows of the duty risk beyond rows 16-18 of :mod:`.cases`.

Each row states whether it was used to choose a parameter (``kind="fitted"``, with the
parameters in ``fits``), checks a definition (``"identity"``) or was held out
(``"independent"``). The joint fit of the fitted rows is :data:`.risk_fit.RISK_FIT`.
"""

from __future__ import annotations

import numpy as np

from vigil import model
from vigil.model import risk
from vigil.validation import risk_measures as rm
from vigil.validation.cases import Case, Source, _case
from vigil.validation.fit import FitGroup
from vigil.validation.scenarios import Runs

FOLKARD_LOMBARDI_2006 = Source(
    "Folkard & Tucker 2003; Folkard & Lombardi 2006",
    "Folkard S, Tucker P. Shift work, safety and productivity. Occup Med 2003;53:95-101. "
    "doi:10.1093/occmed/kqg047; Folkard S, Lombardi DA. Modeling the impact of the "
    "components of long work hours on injuries and 'accidents'. Am J Ind Med "
    "2006;49:953-963 (risk per hour on duty relative to 8-h shifts: 10 h +13 %, 12 h "
    "+27.5 %, as the reference quotes them; unverified: both papers are in the stored "
    "sources only as their first page)",
)
SCENARIO_TABLE = Source(
    "Validation scenarios SHIFT-M/A/N",
    "vigil.validation.scenarios: the first 8-h morning, afternoon and night shift after "
    "days off (ACC, predicted sleep); Parameters.risk_typical_alertness holds their hourly "
    "alertness (model.risk.typical_kss)",
)


def typical_table_error(runs: Runs) -> float:
    """Largest |K_typ - the scenarios' hourly mean KSS| over the 24 body hours [KSS]."""
    table = risk.typical_kss(model.DEFAULT)
    worst = 0.0
    for name, first in (("SHIFT-M", 6), ("SHIFT-A", 14), ("SHIFT-N", 22)):
        kss = np.asarray(runs[name].scores["KSS"], dtype=np.float64).reshape(8, 4).mean(axis=1)
        hours = (first + np.arange(8)) % 24
        worst = max(worst, float(np.max(np.abs(table[hours] - kss))))
    return worst


RISK_CASES: tuple[Case, ...] = (
    _case(
        "folkard2003-12h",
        FOLKARD_LOMBARDI_2006,
        "risk per hour on duty of a 12-h day shift (07-19) / an 8-h one (07-15)",
        "1.275 (12-h shifts 27.5 % above 8-h)",
        (1.205, 1.345),
        "±0.07",
        "half the gap to the 10-h figure (1.13): the row tells 12 h from 10 h",
        lambda runs: rm.hourly_rate_ratio(runs, "DAY-12H", "DAY-8H"),
        "",
        kind="fitted",
        fits=("tot_coefficient",),
    ),
    _case(
        "folkard2003-10h",
        FOLKARD_LOMBARDI_2006,
        "risk per hour on duty of a 10-h day shift (07-17) / an 8-h one (07-15)",
        "1.13 (10-h shifts 13 % above 8-h)",
        (1.065, 1.195),
        "±0.065",
        "half the gap to the 8-h shift's 1.0; held out of the fit (the 12-h row is fitted)",
        lambda runs: rm.hourly_rate_ratio(runs, "DAY-10H", "DAY-8H"),
        "",
        kind="independent",
    ),
    _case(
        "risk-typical-kss",
        SCENARIO_TABLE,
        "largest |K_typ - the three-shift scenarios' hourly KSS| over the day",
        "0 (K_typ is defined as those scenarios' sleepiness)",
        (0.0, 0.05),
        "≤ 0.05 KSS",
        "the table is stored to 0.01 alertness units (0.005 KSS); a sleep-model change "
        "that moves the scenarios fails this row until the table is recomputed",
        typical_table_error,
        "KSS",
        3,
        kind="identity",
    ),
)

#: The rows the catalog collects (:mod:`vigil.validation.catalog`).
CASES = RISK_CASES


def FIT_GROUPS() -> list[FitGroup]:  # noqa: N802 (the registry name the catalog reads)
    """The duty-risk group (:data:`vigil.validation.risk_fit.RISK_FIT`) for ``vigil report fit``."""
    from vigil.validation.risk_fit import RISK_FIT

    return [RISK_FIT]
