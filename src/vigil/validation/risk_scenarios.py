"""Scenarios of the duty-risk rows: day shifts of 8, 10 and 12 h (Folkard & Tucker 2003).

Ground shifts (no sectors) reported at 07:00 at ACC (UTC+0) on day 3 after days off,
predicted sleep, like the three-shift scenarios SHIFT-M/A/N of :mod:`.scenarios`.
"""

from __future__ import annotations

from vigil.validation import rosters as r

#: Day-shift lengths of the shift-length rows [h], by scenario name.
SHIFT_LENGTHS: dict[str, float] = {"DAY-8H": 8.0, "DAY-10H": 10.0, "DAY-12H": 12.0}
#: Report hour of the shift-length scenarios (local = UTC) [h].
DAY_REPORT = 7.0


def risk_scenarios() -> list[r.Scenario]:
    """The 8-, 10- and 12-h day shifts."""
    return [
        r.Scenario(
            name,
            (
                r.duty(
                    name,
                    r.at(3, DAY_REPORT),
                    r.at(3, DAY_REPORT + h),
                    "ACC",
                    "ACC",
                    "ACC",
                    sectors=0,
                ),
            ),
        )  # fmt: skip
        for name, h in SHIFT_LENGTHS.items()
    ]
