"""What drives each stored duty's risk, read from the stored drivers of its scores.

The scorer keeps, for every duty scored with risk, the components of its R, the sleep in
the 24 h before report, and the duty's kind and place in its run of nights or earlies
(:data:`vigil.scoring.duty_risk.DRIVER_FIELDS`, stored by :mod:`vigil.results.frames`).
The words are the API's ``riskReasons`` (:func:`vigil.scoring.duty_risk.duty_reasons`),
and the "driven by" filter applies the same rules to every duty at once
(:func:`vigil.scoring.duty_risk.reason_flags`). Rosters stored before the drivers were
kept have none: their duties read as unexplained ("" and no flags), never as "standard".
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vigil.fleet.table import DutyTable, FloatArray
from vigil.scoring.duty_risk import (
    COMPONENT_FIELDS,
    DRIVER_FIELDS,
    REASONS,
    duty_reasons,
    reason_flags,
)

__all__ = [
    "CREW_WORDS",
    "components",
    "crew_words",
    "driver",
    "flags",
    "reasons",
    "reasons_text",
]

#: CrewComposition (roster column 9) in words; 0: not known (facts stored before)
CREW_WORDS = {2: "2 pilots", 3: "3 pilots", 4: "4 pilots", 9: "cabin crew", 0: ""}

BoolArray = npt.NDArray[np.bool_]


def driver(t: DutyTable, name: str) -> FloatArray:
    """One stored driver column (:data:`DRIVER_FIELDS`) of every duty; NaN if not stored."""
    if t.drivers is None:
        return np.full(len(t), np.nan)
    return np.asarray(t.drivers[:, DRIVER_FIELDS.index(name)], dtype=np.float64)


def flags(t: DutyTable) -> dict[str, BoolArray]:
    """Per reason of :data:`vigil.scoring.duty_risk.REASONS`: which duties it drives
    (all ``False`` without stored drivers)."""
    if t.drivers is None:
        return {key: np.zeros(len(t), dtype=bool) for key in REASONS}
    return reason_flags(
        np.rint(driver(t, "kind")).astype(np.int64),
        np.rint(driver(t, "position")).astype(np.int64),
        t.minutes / 60.0,
        t.sectors,
        driver(t, "priorSleep"),
        driver(t, "sleepiness"),
    )


def reasons(t: DutyTable, i: int) -> list[str]:
    """Duty ``i``'s reasons in a safety officer's words (empty: nothing beyond a
    standard duty, or not stored)."""
    if t.drivers is None:
        return []
    row = t.drivers[i].tolist()
    at = DRIVER_FIELDS.index
    return list(
        duty_reasons(
            round(row[at("kind")]),
            round(row[at("position")]),
            float(t.minutes[i]) / 60.0,
            int(t.sectors[i]),
            row[at("priorSleep")],
            row[at("sleepiness")],
        )
    )


def reasons_text(t: DutyTable, rows: npt.ArrayLike | None = None) -> list[str]:
    """``"; "``-joined reasons of the duties at ``rows`` (default all), for sheets."""
    picked = range(len(t)) if rows is None else np.asarray(rows, dtype=np.int64).tolist()
    if t.drivers is None:
        return ["" for _ in picked]
    return ["; ".join(reasons(t, i)) for i in picked]


def components(t: DutyTable, i: int) -> dict[str, float]:
    """Duty ``i``'s stored risk components as the API's ``riskComponents`` names them
    (empty when not stored)."""
    if t.drivers is None:
        return {}
    row = t.drivers[i].tolist()
    return {name: round(row[k], 3) for k, name in enumerate(COMPONENT_FIELDS)}


def crew_words(t: DutyTable, i: int) -> str:
    """Duty ``i``'s crew composition in words ("" when not known)."""
    code = int(t.crew[i]) if t.crew is not None else 0
    return CREW_WORDS.get(code, str(code))
