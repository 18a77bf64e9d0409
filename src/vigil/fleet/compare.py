"""Two scored rosters compared: what got better and what got worse.

For two rosters of one operator (this month and last, or planned and flown), each
reduced once to a :class:`Digest` of its duties with a risk R:

- the share of duties in each risk band (both rosters' bands as scored; positions, not
  bounds, are compared, so an operator's own bounds still pair "mitigate" with "mitigate");
- by duty route, by home base and by trip pattern (:mod:`vigil.fleet.trips`): duties,
  mean R and the share in the upper bands (:data:`vigil.fleet.hot_spots.UPPER_BANDS`),
  in each roster and the change (B minus A);
- duty by duty where the same pairing recurs. A pairing is matched by its trip's route
  sequence (the airports from leaving home base to landing there again, spelled as the
  airports' IATA codes) and the home-base local time of day (HH:MM) of the trip's first
  report; its duties are matched by position in the trip (1st, 2nd, …). Dates and
  References are not part of the match, so a pairing flown on many days, or by several
  crew members, is one row with the mean R of its occurrences in each roster. A row is
  listed only where both rosters have it; the biggest increases and decreases of mean R
  come first.

Groups are keyed by their text (airport labels), not by roster-internal indexes, so two
rosters whose airports were numbered differently compare correctly. JSON-ready.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from vigil.fleet.hot_spots import UPPER_BANDS, route_keys
from vigil.fleet.records import spreadsheet_safe
from vigil.fleet.table import DutyTable, IntArray
from vigil.fleet.trips import Trips, band_index

__all__ = ["CSV_HEADER", "GROUPS", "TOP_CHANGES", "Digest", "compare", "compare_csv", "digest"]

#: pairing duties listed per direction (increases, decreases) on the page
TOP_CHANGES = 25
#: the groupings compared, in page order
GROUPS = ("route", "base", "pattern")
CSV_HEADER = (
    "Section",
    "Key",
    "Duties A",
    "Duties B",
    "Mean R A",
    "Mean R B",
    "Change in mean R",
    "Share A",
    "Share B",
    "Change in share",
)

#: per group: duties with a risk, their summed R, duties in the upper bands
Stats = tuple[int, float, int]


@dataclass(frozen=True, slots=True)
class Digest:
    """One roster's duties reduced for comparing: band counts, and per group label
    (route, base, pattern, pairing duty) the :data:`Stats`."""

    duties: int
    trips: int
    band_words: tuple[str, ...]
    band_css: tuple[str, ...]
    band_counts: tuple[int, ...]
    groups: dict[str, dict[str, Stats]]


def _stats(keys: IntArray, labels: list[str], risk: Any, upper: Any) -> dict[str, Stats]:
    ok = (keys >= 0) & np.isfinite(risk)
    k = keys[ok]
    size = len(labels)
    n = np.bincount(k, minlength=size).tolist()
    total = np.bincount(k, weights=risk[ok], minlength=size).tolist()
    high = np.bincount(k, weights=upper[ok], minlength=size).tolist()
    out: dict[str, Stats] = {}
    for g in range(size):
        if n[g]:  # labels may repeat (one base spelled two ways): their duties add up
            before = out.get(labels[g], (0, 0.0, 0))
            out[labels[g]] = (before[0] + n[g], before[1] + total[g], before[2] + round(high[g]))
    return out


def _pairing_keys(t: DutyTable, trips: Trips) -> tuple[IntArray, list[str]]:
    """Each duty's pairing-duty group (module docstring) and the groups' labels."""
    trip = trips.trip
    position = np.arange(len(t)) - trips.first[trip]  # 0-based within the trip
    width = int(position.max()) + 1 if len(t) else 1
    raw = (trips.sequence[trip] * 1440 + trips.report_minute[trip]) * width + position
    codes, inverse = np.unique(raw, return_inverse=True)
    labels = []
    for code in codes.tolist():
        rest, pos = divmod(int(code), width)
        seq, minute = divmod(rest, 1440)
        labels.append(
            f"{trips.sequences[seq]} · {minute // 60:02d}:{minute % 60:02d} · duty {pos + 1}"
        )
    return inverse.reshape(-1).astype(np.int64), labels


def digest(t: DutyTable, trips: Trips) -> Digest:
    """``t``'s figures for :func:`compare` (airports by IATA code where known)."""
    band = band_index(t)
    upper = band >= len(t.bands) - UPPER_BANDS
    risk = t.risk
    route, route_labels = route_keys(t, "iata")
    home = np.asarray(t.home, dtype=np.int64)[t.sched] if len(t) else np.zeros(0, np.int64)
    base_codes, base_inverse = np.unique(home, return_inverse=True)
    base_labels = [t.airports.label(int(b)) if b >= 0 else "(none)" for b in base_codes.tolist()]
    pairing, pairing_labels = _pairing_keys(t, trips)
    ok = band >= 0
    return Digest(
        duties=len(t),
        trips=len(trips),
        band_words=tuple(b.words for b in t.bands),
        band_css=tuple(b.css for b in t.bands),
        band_counts=tuple(np.bincount(band[ok], minlength=len(t.bands)).tolist()),
        groups={
            "route": _stats(route, route_labels, risk, upper),
            "base": _stats(base_inverse.reshape(-1).astype(np.int64), base_labels, risk, upper),
            "pattern": _stats(trips.pattern[trips.trip], trips.patterns, risk, upper),
            "pairing": _stats(pairing, pairing_labels, risk, upper),
        },
    )


def _mean(s: Stats | None) -> float | None:
    return s[1] / s[0] if s is not None and s[0] else None


def _share(s: Stats | None) -> float | None:
    return s[2] / s[0] if s is not None and s[0] else None


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def _change(b: float | None, a: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 4)


def _row(key: str, a: Stats | None, b: Stats | None) -> dict[str, Any]:
    ma, mb, sa, sb = _mean(a), _mean(b), _share(a), _share(b)
    return {
        "key": key,
        "dutiesA": a[0] if a else 0,
        "dutiesB": b[0] if b else 0,
        "meanA": _round(ma),
        "meanB": _round(mb),
        "meanChange": _change(_round(mb), _round(ma)),
        "upperShareA": _round(sa, 4),
        "upperShareB": _round(sb, 4),
        "upperShareChange": _change(_round(sb, 4), _round(sa, 4)),
    }


def _worse_first(row: dict[str, Any]) -> tuple[bool, float, float, str]:
    """Rows in both rosters by change of mean R, biggest rise first; then the others."""
    change = row["meanChange"]
    return (change is None, -(change or 0.0), -(row["upperShareChange"] or 0.0), row["key"])


def _grouped(a: dict[str, Stats], b: dict[str, Stats]) -> list[dict[str, Any]]:
    rows = [_row(k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys())]
    rows.sort(key=_worse_first)
    return rows


def compare(a: Digest, b: Digest, *, top: int = TOP_CHANGES) -> dict[str, Any]:
    """What changed from roster A to roster B (module docstring). Changes are B − A:
    positive is worse. ``pairings.rows`` holds every matched pairing duty (the CSV);
    ``increases`` and ``decreases`` the ``top`` biggest of each."""
    ta, tb = sum(a.band_counts), sum(b.band_counts)
    bands = []
    for i, (words, css) in enumerate(zip(b.band_words, b.band_css, strict=True)):
        ca = a.band_counts[i] if i < len(a.band_counts) else 0
        cb = b.band_counts[i]
        sa = ca / ta if ta else None
        sb = cb / tb if tb else None
        bands.append(
            {
                "band": css,
                "words": words,
                "countA": ca,
                "countB": cb,
                "shareA": _round(sa, 4),
                "shareB": _round(sb, 4),
                "shareChange": _change(_round(sb, 4), _round(sa, 4)),
            }
        )
    pa, pb = a.groups["pairing"], b.groups["pairing"]
    matched = [_row(k, pa[k], pb[k]) for k in sorted(pa.keys() & pb.keys())]
    rising = sorted(matched, key=lambda r: (-r["meanChange"], r["key"]))
    return {
        "summary": {
            "dutiesA": a.duties,
            "dutiesB": b.duties,
            "tripsA": a.trips,
            "tripsB": b.trips,
            "withRiskA": ta,
            "withRiskB": tb,
        },
        "bands": bands,
        **{name: _grouped(a.groups[name], b.groups[name]) for name in GROUPS},
        "pairings": {
            "matched": len(matched),
            "onlyA": len(pa.keys() - pb.keys()),
            "onlyB": len(pb.keys() - pa.keys()),
            "increases": [r for r in rising[:top] if r["meanChange"] > 0],
            "decreases": [r for r in reversed(rising[-top:]) if r["meanChange"] < 0],
            "rows": rising,
        },
    }


def _cells(section: str, r: dict[str, Any], share: tuple[str, str, str]) -> list[object]:
    def text(value: object) -> object:
        return "" if value is None else value

    return [
        section,
        spreadsheet_safe(r["key"]),
        r.get("dutiesA", r.get("countA")),
        r.get("dutiesB", r.get("countB")),
        text(r.get("meanA")),
        text(r.get("meanB")),
        text(r.get("meanChange")),
        *(text(r[k]) for k in share),
    ]


def compare_csv(result: dict[str, Any]) -> Iterator[str]:
    """The comparison as CSV lines: bands (share = the band's share of duties), then
    routes, bases, patterns and matched pairing duties (share = upper bands' share)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    writer.writerow(CSV_HEADER)
    for r in result["bands"]:
        row = {**r, "key": r["words"]}
        writer.writerow(_cells("band", row, ("shareA", "shareB", "shareChange")))
    yield flush()
    upper = ("upperShareA", "upperShareB", "upperShareChange")
    for name in GROUPS:
        for r in result[name]:
            writer.writerow(_cells(name, r, upper))
        yield flush()
    for r in result["pairings"]["rows"]:
        writer.writerow(_cells("pairing duty", r, upper))
    yield flush()
