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
from vigil.fleet.table import DutyTable, FloatArray, IntArray
from vigil.fleet.trips import Trips, band_index

__all__ = [
    "CSV_HEADER",
    "GROUPS",
    "TOP_CHANGES",
    "Digest",
    "Groups",
    "compare",
    "compare_csv",
    "digest",
]

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


@dataclass(frozen=True, slots=True)
class Groups:
    """Duties grouped by a text label (each label once): per group the duties with a
    risk, their summed R and how many are in the upper bands."""

    labels: list[str]
    n: IntArray
    total: FloatArray
    upper: IntArray


@dataclass(frozen=True, slots=True)
class Digest:
    """One roster's duties reduced for comparing: band counts and the :class:`Groups`
    by route, base, pattern and pairing duty."""

    duties: int
    trips: int
    band_words: tuple[str, ...]
    band_css: tuple[str, ...]
    band_counts: tuple[int, ...]
    groups: dict[str, Groups]


def _groups(keys: IntArray, labels: list[str], risk: FloatArray, upper: Any) -> Groups:
    """Per distinct label over the duties with a risk (labels may repeat, e.g. one base
    spelled two ways: their duties add up)."""
    seen: dict[str, int] = {}
    remap = np.asarray([seen.setdefault(label, len(seen)) for label in labels], dtype=np.int64)
    ok = (keys >= 0) & np.isfinite(risk)
    k = remap[keys[ok]] if labels else keys[ok]
    size = len(seen)
    n = np.bincount(k, minlength=size)
    has = np.flatnonzero(n)
    names = list(seen)
    return Groups(
        labels=[names[g] for g in has.tolist()],
        n=n[has].astype(np.int64),
        total=np.asarray(np.bincount(k, weights=risk[ok], minlength=size)[has], dtype=np.float64),
        upper=np.rint(np.bincount(k, weights=upper[ok], minlength=size)[has]).astype(np.int64),
    )


def _pairing_keys(t: DutyTable, trips: Trips) -> tuple[IntArray, list[str]]:
    """Each duty's pairing-duty group (module docstring) and the groups' labels."""
    trip = trips.trip
    position = np.arange(len(t)) - trips.first[trip]  # 0-based within the trip
    width = int(position.max()) + 1 if len(t) else 1
    raw = (trips.sequence[trip] * 1440 + trips.report_minute[trip]) * width + position
    codes, inverse = np.unique(raw, return_inverse=True)
    rest, pos = np.divmod(codes, width)
    seq, minute = np.divmod(rest, 1440)
    names = trips.sequences
    labels = [
        f"{names[q]} · {m // 60:02d}:{m % 60:02d} · duty {k + 1}"
        for q, m, k in zip(seq.tolist(), minute.tolist(), pos.tolist(), strict=True)
    ]
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
            "route": _groups(route, route_labels, risk, upper),
            "base": _groups(base_inverse.reshape(-1).astype(np.int64), base_labels, risk, upper),
            "pattern": _groups(trips.pattern[trips.trip], trips.patterns, risk, upper),
            "pairing": _groups(pairing, pairing_labels, risk, upper),
        },
    )


@dataclass(frozen=True, slots=True)
class _Joined:
    """Two rosters' :class:`Groups` side by side over the union of their labels."""

    labels: list[str]
    n_a: IntArray
    n_b: IntArray
    mean_a: FloatArray  #: NaN where the group is not in A (rounded as shown)
    mean_b: FloatArray
    share_a: FloatArray
    share_b: FloatArray
    change: FloatArray  #: mean R, B − A (NaN unless in both)
    share_change: FloatArray

    def order(self, *, matched_only: bool = False) -> IntArray:
        """Rows in both rosters by change of mean R, biggest rise first (then by the
        upper-band share's change, then by label); rows in one roster only last."""
        change, share = self.change, self.share_change
        keys = np.arange(len(self.labels))
        if matched_only:
            keys = keys[np.isfinite(change)]
        by_label = np.argsort(np.asarray(self.labels, dtype=str)[keys], kind="stable")
        keys = keys[by_label]
        c, sc = change[keys], share[keys]
        ranked = np.lexsort((-np.nan_to_num(sc), -np.nan_to_num(c), ~np.isfinite(c)))
        return keys[ranked]

    def rows(self, picked: IntArray) -> list[dict[str, Any]]:
        """The groups ``picked`` as JSON rows (NaN: ``None``), built column by column."""

        def col(a: FloatArray) -> list[float | None]:
            return [x if x == x else None for x in a[picked].tolist()]  # NaN != NaN

        labels = self.labels
        return [
            {
                "key": labels[i],
                "dutiesA": na,
                "dutiesB": nb,
                "meanA": ma,
                "meanB": mb,
                "meanChange": mc,
                "upperShareA": sa,
                "upperShareB": sb,
                "upperShareChange": sc,
            }
            for i, na, nb, ma, mb, mc, sa, sb, sc in zip(
                picked.tolist(),
                self.n_a[picked].tolist(),
                self.n_b[picked].tolist(),
                col(self.mean_a),
                col(self.mean_b),
                col(self.change),
                col(self.share_a),
                col(self.share_b),
                col(self.share_change),
                strict=True,
            )
        ]


def _join(a: Groups, b: Groups) -> _Joined:
    where = {label: i for i, label in enumerate(a.labels)}
    extra = [label for label in b.labels if label not in where]
    labels = a.labels + extra
    size = len(labels)
    union = {label: i for i, label in enumerate(labels)}
    at_b = np.asarray([union[label] for label in b.labels], dtype=np.int64)
    n_a = np.zeros(size, dtype=np.int64)
    n_b = np.zeros(size, dtype=np.int64)
    n_a[: len(a.labels)] = a.n
    n_b[at_b] = b.n
    total_a, total_b = np.zeros(size), np.zeros(size)
    total_a[: len(a.labels)] = a.total
    total_b[at_b] = b.total
    upper_a, upper_b = np.zeros(size), np.zeros(size)
    upper_a[: len(a.labels)] = a.upper
    upper_b[at_b] = b.upper
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_a = np.round(np.where(n_a > 0, total_a / n_a, np.nan), 3)
        mean_b = np.round(np.where(n_b > 0, total_b / n_b, np.nan), 3)
        share_a = np.round(np.where(n_a > 0, upper_a / n_a, np.nan), 4)
        share_b = np.round(np.where(n_b > 0, upper_b / n_b, np.nan), 4)
    return _Joined(
        labels=labels,
        n_a=n_a,
        n_b=n_b,
        mean_a=np.asarray(mean_a, dtype=np.float64),
        mean_b=np.asarray(mean_b, dtype=np.float64),
        share_a=np.asarray(share_a, dtype=np.float64),
        share_b=np.asarray(share_b, dtype=np.float64),
        change=np.round(mean_b - mean_a, 4),
        share_change=np.round(share_b - share_a, 4),
    )


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, digits)


def _change(b: float | None, a: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 4)


def _band_changes(a: Digest, b: Digest) -> list[dict[str, Any]]:
    """Duties per risk band of B (A's count 0 past its own bands) and the change of each
    band's share of the scored duties."""
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
    return bands


def _pairing_changes(a: Digest, b: Digest, top: int, limit: int | None) -> dict[str, Any]:
    """Pairing duties matched, in A or B only, the ``top`` biggest increases and
    decreases, and (without ``limit``) every matched one."""
    pairs = _join(a.groups["pairing"], b.groups["pairing"])
    ranked = pairs.order(matched_only=True)
    change = pairs.change[ranked]
    rising = ranked[change > 0][:top]
    falling = ranked[change < 0][::-1][:top]
    pairings: dict[str, Any] = {
        "matched": int(ranked.size),
        "onlyA": int(((pairs.n_a > 0) & (pairs.n_b == 0)).sum()),
        "onlyB": int(((pairs.n_b > 0) & (pairs.n_a == 0)).sum()),
        "increases": pairs.rows(rising),
        "decreases": pairs.rows(falling),
    }
    if limit is None:
        pairings["rows"] = pairs.rows(ranked)
    return pairings


def compare(
    a: Digest, b: Digest, *, top: int = TOP_CHANGES, limit: int | None = None
) -> dict[str, Any]:
    """What changed from roster A to roster B (module docstring). Changes are B − A:
    positive is worse. ``increases`` and ``decreases`` hold the ``top`` biggest matched
    pairing duties of each; ``pairings.rows`` every matched one and the route, base and
    pattern lists every group, unless ``limit`` (a page) keeps that many of each and
    leaves ``pairings.rows`` out."""
    bands = _band_changes(a, b)
    grouped = {}
    for name in GROUPS:
        joined = _join(a.groups[name], b.groups[name])
        grouped[name] = joined.rows(joined.order()[:limit])
    return {
        "summary": {
            "dutiesA": a.duties,
            "dutiesB": b.duties,
            "tripsA": a.trips,
            "tripsB": b.trips,
            "withRiskA": sum(a.band_counts),
            "withRiskB": sum(b.band_counts),
        },
        "bands": bands,
        **grouped,
        "pairings": _pairing_changes(a, b, top, limit),
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
