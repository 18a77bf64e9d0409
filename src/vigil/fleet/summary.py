"""A roster's dashboard figures from its :class:`~vigil.fleet.table.DutyTable`.

Answers "which duties and which patterns should we look at first" for a fatigue safety
officer's monthly review: distributions of duty risk and peak score, the share of duty
time at or above the scale's warning level, the riskiest duties and schedules, hot spots
(mean and 90th-percentile risk by report hour × weekday, city pair, duty kind, Fleet,
Rank) and work patterns (runs of consecutive early starts or nights, short rests).
Peaks and time at or above warning are those at work: the duty table leaves each crew
member's own in-flight rest out (:mod:`vigil.scoring.controls`), and shares are of the
time at work.

Every figure is JSON-ready (no NaN: absent values are ``None``). Pure: numpy only.

References
----------
.. [1] Folkard S, Tucker P (2003). Shift work, safety and productivity. Occup Med
   53:95-101 (risk by night/early number in a run: 1.00/1.06/1.17/1.36 and
   1.00/1.02/1.07/1.17 from the 1st to the 4th).
.. [2] EASA (2014). CS FTL.1.235 / ORO.FTL.235: minimum rest before a duty from home base
   12 h (or as long as the preceding duty).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vigil.fleet import drivers
from vigil.fleet.table import DUTY_KINDS, DutyTable, FloatArray, IntArray
from vigil.model import DEFAULT, SCALE_INFO, WARNING_KSS

__all__ = [
    "MIN_RUN",
    "duty_row",
    "RISK_EDGES",
    "SHORT_REST_HOURS",
    "TOP_N",
    "WEEKDAYS",
    "schedule_rows",
    "summarise",
]

#: entries of the top duties and top schedules lists
TOP_N = 20
#: a rest shorter than this between two duties is "short" [h] (EASA minimum rest [2]_)
SHORT_REST_HOURS = 12.0
#: the shortest run of consecutive early starts or nights reported as a pattern: from the
#: 3rd in a run the observed risk is 1.17x the first's or more [1]_
MIN_RUN = 3
#: risk histogram edges: 0.25 wide up to 6, then one open bin (band bounds fall inside)
RISK_EDGES: tuple[float, ...] = tuple(round(0.25 * i, 2) for i in range(25))
#: peak histogram: this many equal bins over the scale's range
PEAK_BINS = 16
#: city pairs listed in the hot spots (most duties first, then ranked by p90)
MAX_PAIRS = 40
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _num(value: float, digits: int = 3) -> float | None:
    return round(float(value), digits) if math.isfinite(float(value)) else None


def _histogram(values: FloatArray, edges: list[float], open_last: bool) -> dict[str, Any]:
    """Counts per ``[edges[i], edges[i+1])``; the last bin is closed (or open-ended)."""
    finite = values[np.isfinite(values)]
    bounds = np.asarray([*edges, np.inf] if open_last else edges, dtype=np.float64)
    index = np.searchsorted(bounds, finite, side="right") - 1
    index = np.clip(index, 0, len(bounds) - 2)
    counts = np.bincount(index, minlength=len(bounds) - 1)
    return {
        "edges": [*edges, None] if open_last else list(edges),
        "counts": [int(c) for c in counts],
        "missing": int(values.size - finite.size),
    }


def _groups(keys: IntArray, risk: FloatArray, size: int) -> list[dict[str, Any]]:
    """Count, mean, 90th percentile and max of ``risk`` per key ``0..size-1``."""
    ok = np.isfinite(risk) & (keys >= 0)
    k, r = keys[ok], risk[ok]
    order = np.lexsort((r, k))
    k, r = k[order], r[order]
    counts = np.bincount(k, minlength=size)
    sums = np.bincount(k, weights=r, minlength=size)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out: list[dict[str, Any]] = []
    for g in range(size):
        n = int(counts[g])
        if n == 0:
            out.append({"n": 0, "mean": None, "p90": None, "max": None})
            continue
        piece = r[starts[g] : starts[g] + n]
        out.append(
            {
                "n": n,
                "mean": _num(sums[g] / n),
                "p90": _num(float(np.quantile(piece, 0.9))),
                "max": _num(piece[-1]),
            }
        )
    return out


def _labelled(keys: IntArray, risk: FloatArray, labels: list[str]) -> list[dict[str, Any]]:
    rows = _groups(keys, risk, len(labels))
    return [{"key": label, **row} for label, row in zip(labels, rows, strict=True) if row["n"]]


def _codes(values: list[str]) -> tuple[IntArray, list[str]]:
    labels = sorted(set(values))
    where = {v: i for i, v in enumerate(labels)}
    return np.asarray([where[v] for v in values], dtype=np.int64), labels


def _local_hour_weekday(t: DutyTable) -> tuple[IntArray, IntArray]:
    """Report hour and weekday (Mon 0) local at the start airport."""
    local = t.on_s + t.start_offset * 60
    hour = (local // 3600) % 24
    weekday = (local // 86400 + 3) % 7  # 1970-01-01 was a Thursday
    return hour.astype(np.int64), weekday.astype(np.int64)


def _hour_grid(t: DutyTable) -> dict[str, Any]:
    hour, weekday = _local_hour_weekday(t)
    rows = _groups(hour * 7 + weekday, t.risk, 24 * 7)
    return {
        "hours": list(range(24)),
        "weekdays": list(WEEKDAYS),
        "n": [[rows[h * 7 + w]["n"] for w in range(7)] for h in range(24)],
        "mean": [[rows[h * 7 + w]["mean"] for w in range(7)] for h in range(24)],
        "p90": [[rows[h * 7 + w]["p90"] for w in range(7)] for h in range(24)],
    }


def _city_pairs(t: DutyTable) -> list[dict[str, Any]]:
    size = max(1, len(t.airports.code))
    ok = (t.start >= 0) & (t.end >= 0)
    keys = np.where(ok, t.start * size + t.end, -1)
    codes, inverse = np.unique(keys, return_inverse=True)
    rows = _groups(inverse.astype(np.int64), np.where(keys >= 0, t.risk, np.nan), len(codes))
    out = []
    for code, row in zip(codes.tolist(), rows, strict=True):
        if code < 0 or not row["n"]:
            continue
        a, b = divmod(int(code), size)
        out.append({"key": f"{t.airports.label(a)}–{t.airports.label(b)}", **row})
    out.sort(key=lambda r: -r["n"])
    kept = out[:MAX_PAIRS]
    kept.sort(key=lambda r: -(r["p90"] or 0.0))
    return kept


def _runs(t: DutyTable, kind: int) -> tuple[IntArray, IntArray]:
    """Per schedule: runs of >= :data:`MIN_RUN` consecutive duties of ``kind``, and the
    longest run (the risk model's rule: the previous duty of the same kind went off
    duty less than ``consecutive_gap`` before this one reports, reference §8)."""
    gap_s = DEFAULT.consecutive_gap * 3600.0
    n_sched = len(t.references)
    runs = np.zeros(n_sched, dtype=np.int64)
    longest = np.zeros(n_sched, dtype=np.int64)
    idx = np.flatnonzero(t.kind == kind)
    sched, on, off = t.sched[idx], t.on_s[idx], t.off_s[idx]
    length = 0
    for i in range(idx.size):
        if i and sched[i] == sched[i - 1] and on[i] - off[i - 1] < gap_s:
            length += 1
        else:
            length = 1
        s = sched[i]
        longest[s] = max(longest[s], length)
        if length == MIN_RUN:
            runs[s] += 1
    return runs, longest


def schedule_rows(t: DutyTable) -> dict[str, list[Any]]:
    """The schedules table, columnar: one entry per schedule in stored order."""
    n = len(t.references)
    counts = np.bincount(t.sched, minlength=n)
    peak = np.full(n, -np.inf)
    np.maximum.at(peak, t.sched, np.nan_to_num(t.peak, nan=-np.inf))
    risk = np.full(n, -np.inf)
    np.maximum.at(risk, t.sched, np.nan_to_num(t.risk, nan=-np.inf))
    above = np.bincount(t.sched, weights=t.above_minutes, minlength=n).astype(np.float64)
    minutes = np.bincount(t.sched, weights=t.minutes, minlength=n).astype(np.float64)
    # shares are of the time at work: own in-flight rest is in neither part
    working = np.bincount(t.sched, weights=t.working_minutes, minlength=n).astype(np.float64)
    short = np.bincount(t.sched, weights=(t.rest_before_h < SHORT_REST_HOURS), minlength=n)
    early_runs, early_longest = _runs(t, DUTY_KINDS.index("early"))
    night_runs, night_longest = _runs(t, DUTY_KINDS.index("night"))

    def finite(a: FloatArray, digits: int = 3) -> list[float | None]:
        return [_num(v, digits) for v in a.tolist()]

    return {
        "reference": list(t.references),
        "fleet": list(t.fleet),
        "rank": list(t.rank),
        "duties": counts.tolist(),
        "peak": finite(peak),
        "maxRisk": finite(risk),
        "aboveMinutes": finite(above, 1),
        "dutyMinutes": finite(minutes, 1),
        "workingMinutes": finite(working, 1),
        "aboveShare": finite(np.where(working > 0, above / np.maximum(working, 1e-9), 0.0), 4),
        "shortRests": short.astype(np.int64).tolist(),
        "earlyRuns": early_runs.tolist(),
        "longestEarlyRun": early_longest.tolist(),
        "nightRuns": night_runs.tolist(),
        "longestNightRun": night_longest.tolist(),
    }


def duty_row(t: DutyTable, i: int, airport_style: str = "iata") -> dict[str, Any]:
    """One duty as a JSON object (the top lists, the exports)."""
    s, e = int(t.start[i]), int(t.end[i])
    start = t.airports.label(s, airport_style) if s >= 0 else ""
    end = t.airports.label(e, airport_style) if e >= 0 else ""
    return {
        "reference": t.references[int(t.sched[i])],
        "duty": int(t.number[i]),
        "onUtc": int(t.on_s[i]),
        "offUtc": int(t.off_s[i]),
        "startOffsetMin": int(t.start_offset[i]),
        "endOffsetMin": int(t.end_offset[i]),
        "route": f"{start}–{end}" if start else "",
        "sectors": int(t.sectors[i]),
        "kind": DUTY_KINDS[int(t.kind[i])],
        "fleet": t.fleet[int(t.sched[i])],
        "rank": t.rank[int(t.sched[i])],
        "risk": _num(t.risk[i]),
        "peak": _num(t.peak[i]),
        "topOfDescent": _num(t.tod[i]),
        "mean": _num(t.mean[i]),
        "aboveMinutes": _num(t.above_minutes[i], 1),
        "minutes": _num(t.minutes[i], 1),
        "workingMinutes": _num(t.working_minutes[i], 1),
        "restBeforeH": _num(t.rest_before_h[i], 2),
        "crew": drivers.crew_words(t, i),
        # what drives the risk, in words (None: not stored with this roster's scores)
        "reasons": drivers.reasons(t, i) if t.drivers is not None else None,
    }


def _pattern(rows: dict[str, list[Any]], count: str, extra: str) -> dict[str, Any]:
    """Schedules having a pattern (most first), with the total count."""
    counts = rows[count]
    having = [i for i, c in enumerate(counts) if c]
    having.sort(key=lambda i: (-counts[i], -(rows[extra][i] or 0)))
    return {
        "count": int(sum(counts)),
        "schedules": len(having),
        "top": [
            {"reference": rows["reference"][i], "count": counts[i], extra: rows[extra][i]}
            for i in having[:TOP_N]
        ],
    }


def _band_counts(t: DutyTable, finite_risk: FloatArray) -> list[dict[str, Any]]:
    """Duties per risk band of ``t``, with each band's words and share of the scored duties."""
    band_counts = []
    for band in t.bands:
        inside = int(((finite_risk >= band.lower) & (finite_risk < band.upper)).sum())
        band_counts.append(
            {
                "band": band.css,
                "words": band.words,
                "action": band.action,
                "lower": band.lower,
                "upper": band.upper if math.isfinite(band.upper) else None,
                "kssUnits": band.kss_units,
                "count": inside,
                "share": round(inside / finite_risk.size, 4) if finite_risk.size else 0.0,
            }
        )
    return band_counts


def _risk_quantiles(finite_risk: FloatArray) -> dict[str, float | None]:
    """Median, 90th and 99th percentile and max of the scored duties' risk."""
    quantiles = (
        np.quantile(finite_risk, [0.5, 0.9, 0.99]).tolist() if finite_risk.size else [math.nan] * 3
    )
    return {
        "p50": _num(quantiles[0]),
        "p90": _num(quantiles[1]),
        "p99": _num(quantiles[2]),
        "max": _num(finite_risk.max()) if finite_risk.size else None,
    }


def _top_duties(t: DutyTable) -> list[dict[str, Any]]:
    """The :data:`TOP_N` riskiest duties (highest peak first among equal risks)."""
    top = np.lexsort((-np.nan_to_num(t.peak, nan=-1.0), -np.nan_to_num(t.risk, nan=-1.0)))[:TOP_N]
    return [duty_row(t, int(i)) for i in top]


def _top_schedules(rows: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The :data:`TOP_N` riskiest schedules (highest peak first among equal risks)."""
    sched_risk = np.asarray([r if r is not None else -1.0 for r in rows["maxRisk"]])
    sched_peak = np.asarray([p if p is not None else -1.0 for p in rows["peak"]])
    top_sched = np.lexsort((-sched_peak, -sched_risk))[:TOP_N]
    return [{k: rows[k][int(i)] for k in rows if k != "longestEarlyRun"} for i in top_sched]


def _hot_spots(t: DutyTable) -> dict[str, Any]:
    """Risk by report hour × weekday, city pair, duty kind, Fleet and Rank."""
    fleet_codes, fleet_labels = _codes([t.fleet[s] for s in t.sched.tolist()])
    rank_codes, rank_labels = _codes([t.rank[s] for s in t.sched.tolist()])
    return {
        "reportHour": _hour_grid(t),
        "cityPair": _city_pairs(t),
        "dutyKind": _labelled(t.kind, t.risk, list(DUTY_KINDS)),
        "fleet": _labelled(fleet_codes, t.risk, fleet_labels),
        "rank": _labelled(rank_codes, t.risk, rank_labels),
    }


def _patterns(rows: dict[str, list[Any]]) -> dict[str, Any]:
    """Work patterns: runs of early starts or nights [1]_ and short rests [2]_."""
    return {
        "minRun": MIN_RUN,
        "shortRestHours": SHORT_REST_HOURS,
        "earlyRuns": _pattern(rows, "earlyRuns", "longestEarlyRun"),
        "nightRuns": _pattern(rows, "nightRuns", "longestNightRun"),
        "shortRests": _pattern(rows, "shortRests", "maxRisk"),
    }


def summarise(t: DutyTable, schedules: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    """The dashboard's figures for ``t`` (one scale); ``schedules`` from
    :func:`schedule_rows` when already computed."""
    rows = schedules if schedules is not None else schedule_rows(t)
    info = SCALE_INFO[t.scale]
    working_min = float(t.working_minutes.sum())
    above_min = float(t.above_minutes.sum())
    finite_risk = t.risk[np.isfinite(t.risk)]
    peak_edges = np.linspace(info.low, info.high, PEAK_BINS + 1).round(3).tolist()
    return {
        "scale": t.scale,
        "scaleName": info.name,
        "unit": info.unit,
        "warningLevel": round(t.level, 3),
        "warningKss": WARNING_KSS,
        "counts": {
            "schedules": len(t.references),
            "duties": len(t),
            "dutyHours": round(float(t.minutes.sum()) / 60.0, 1),
            "workingHours": round(working_min / 60.0, 1),
            "withRisk": int(finite_risk.size),
        },
        "aboveWarning": {
            "minutes": round(above_min, 1),
            "share": round(above_min / working_min, 4) if working_min else 0.0,
            "duties": int((t.above_minutes > 0).sum()),
            "schedules": int(sum(1 for m in rows["aboveMinutes"] if m)),
        },
        "risk": _risk_quantiles(finite_risk),
        "riskHistogram": _histogram(t.risk, list(RISK_EDGES), open_last=True),
        "peakHistogram": _histogram(t.peak, peak_edges, open_last=False),
        "bands": _band_counts(t, finite_risk),
        "topDuties": _top_duties(t),
        "topSchedules": _top_schedules(rows),
        "hotSpots": _hot_spots(t),
        "patterns": _patterns(rows),
    }
