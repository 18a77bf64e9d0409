"""Hot spots of a roster: where its hazardous duties concentrate.

As SAFTE-FAST Manager ranks a schedule set to find its outliers, the duties are grouped
three ways, each group's figures over its duties with a risk:

- by duty route (start–end airport; the route of a one-sector duty is its sector);
- by report hour in home-base local time (the crew member's body clock at home);
- by trip pattern (:func:`vigil.fleet.trips.group_trips`: route sequence and nights).

Figures per group: duties (and trips, by pattern), mean and highest R, the share in the
upper bands (the top two in force: "mitigate" and "redesign", :mod:`vigil.settings.bands`)
and the mean top of descent (the highest score at work in a duty's last hour,
:attr:`vigil.fleet.table.DutyTable.tod`, on the table's scale). Groups are ranked worst
first by mean R; groups of fewer than :data:`MIN_DUTIES` duties come after all others,
so a single bad duty does not hide a route flown every day. JSON-ready: no NaN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from vigil.fleet.table import DutyTable, FloatArray, IntArray
from vigil.fleet.trips import DAY_S, Trips, band_index, canonical_airports, home_local

__all__ = ["MIN_DUTIES", "UPPER_BANDS", "group_figures", "hot_spots", "route_keys"]

#: groups of fewer duties are ranked after the others
MIN_DUTIES = 3
#: how many of the highest bands count as "upper" (mitigate and redesign)
UPPER_BANDS = 2


def _num(value: float, digits: int = 3) -> float | None:
    return round(float(value), digits) if math.isfinite(float(value)) else None


def group_figures(
    keys: IntArray,
    size: int,
    risk: FloatArray,
    upper: npt.NDArray[np.bool_],
    tod: FloatArray,
) -> dict[str, FloatArray]:
    """Per key ``0 … size-1`` over the duties with a risk: duties, sum and max of R,
    duties in the upper bands, sum of top of descent and duties having one."""
    ok = (keys >= 0) & np.isfinite(risk)
    k, r = keys[ok], risk[ok]
    has_tod = np.isfinite(tod[ok])
    peak = np.full(size, -np.inf)
    np.maximum.at(peak, k, r)
    return {
        "n": np.bincount(k, minlength=size).astype(np.float64),
        "sum": np.bincount(k, weights=r, minlength=size),
        "max": peak,
        "upper": np.bincount(k, weights=upper[ok], minlength=size),
        "tod_sum": np.bincount(k, weights=np.where(has_tod, tod[ok], 0.0), minlength=size),
        "tod_n": np.bincount(k, weights=has_tod, minlength=size),
    }


def _rows(
    figures: dict[str, FloatArray], labels: list[str], extra: dict[str, list[int]] | None = None
) -> list[dict[str, Any]]:
    """JSON rows of the groups having duties, worst first (module docstring)."""
    out: list[dict[str, Any]] = []
    for g, label in enumerate(labels):
        n = int(figures["n"][g])
        if n == 0:
            continue
        tod_n = figures["tod_n"][g]
        row: dict[str, Any] = {
            "key": label,
            "duties": n,
            "meanRisk": _num(figures["sum"][g] / n),
            "maxRisk": _num(figures["max"][g]),
            "upper": int(figures["upper"][g]),
            "upperShare": round(float(figures["upper"][g]) / n, 4),
            "meanTopOfDescent": _num(figures["tod_sum"][g] / tod_n) if tod_n else None,
        }
        for name, values in (extra or {}).items():
            row[name] = values[g]
        out.append(row)
    out.sort(
        key=lambda r: (r["duties"] < MIN_DUTIES, -(r["meanRisk"] or 0.0), -(r["maxRisk"] or 0.0))
    )
    return out


def route_keys(t: DutyTable, style: str = "iata") -> tuple[IntArray, list[str]]:
    """Each duty's route as a group code (``-1``: an airport unknown) and the labels;
    an airport written both ways (IATA, ICAO) is one airport."""
    size = max(1, len(t.airports.code))
    ok = (t.start >= 0) & (t.end >= 0)
    canon = np.append(canonical_airports(t), -1)  # one airport however it is spelled
    raw = np.where(ok, canon[t.start] * size + canon[t.end], -1)
    codes, inverse = np.unique(raw, return_inverse=True)
    keys = inverse.reshape(-1).astype(np.int64)
    labels = []
    for code in codes.tolist():
        a, b = divmod(int(code), size)
        labels.append(
            f"{t.airports.label(a, style)}–{t.airports.label(b, style)}" if code >= 0 else ""
        )
    if codes.size and codes[0] < 0:  # the unknown route: no group
        keys = keys - 1
        labels = labels[1:]
    return keys, labels


def hot_spots(t: DutyTable, trips: Trips, *, style: str = "iata") -> dict[str, Any]:
    """The three rankings of the module docstring, each every group worst first."""
    band = band_index(t)
    upper = band >= len(t.bands) - UPPER_BANDS
    route, route_labels = route_keys(t, style)
    hour = (home_local(t, t.on_s) % DAY_S) // 3600
    pattern = trips.pattern[trips.trip]
    size = len(trips.patterns)
    trip_count = np.bincount(trips.pattern, minlength=size).tolist()
    return {
        "minDuties": MIN_DUTIES,
        "upperBands": [b.words for b in t.bands[len(t.bands) - UPPER_BANDS :]],
        "scale": t.scale,
        "route": _rows(group_figures(route, len(route_labels), t.risk, upper, t.tod), route_labels),
        "reportHour": _rows(
            group_figures(hour, 24, t.risk, upper, t.tod),
            [f"{h:02d}:00–{h:02d}:59" for h in range(24)],
        ),
        "pattern": _rows(
            group_figures(pattern, size, t.risk, upper, t.tod),
            trips.patterns,
            {"trips": trip_count},
        ),
    }
