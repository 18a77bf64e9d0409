"""The duty explorer: every duty of a scored roster, filtered, sorted and paged.

:func:`explorer_columns` builds, once per stored roster, the columns a filter or a sort
reads (band, home base, Fleet, Rank, crew type, report day, duty kind, what drives the
risk, searchable route and Reference); :func:`select` answers one view from them with
numpy alone (a mask, one stable sort of the matched duties, a slice), so paging, sorting
and filtering 140,000 duties never touches the scores again. The CSV export of a view
(:func:`explorer_csv`) is the same selection, unpaged.

Filters (:class:`DutyQuery`, parsed from request parameters by :func:`parse_query`, which
names the parameter and the accepted values on bad input):

- ``band``: risk bands by their css name (``standard``, ``elevated``, ``high``,
  ``very-high``; several allowed); bands are the roster's (:mod:`vigil.fleet.thresholds`);
- ``base``, ``fleet``, ``rank``: exact (base as IATA, ICAO or as written);
- ``crew``: ``flight`` (2-4 pilots) or ``cabin`` (CrewComposition 9);
- ``from``/``to``: report day, inclusive, ``YYYY-MM-DD``, in the view's time (UTC or
  home-base time, ``time``);
- ``kind``: time of day, ``early``/``day``/``late``/``night`` (:data:`DUTY_KINDS`,
  home-base time; several allowed);
- ``driver``: what drives the risk (:data:`vigil.scoring.duty_risk.REASONS`);
- ``q``: a case-insensitive part of the Reference or the route (``LHR``, ``LHR–JFK`` or
  ``LHR-JFK``).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
import numpy.typing as npt

from vigil.fleet import drivers
from vigil.fleet.records import spreadsheet_safe
from vigil.fleet.table import DUTY_KINDS, DutyTable, IntArray
from vigil.scoring.duty_risk import REASONS

__all__ = [
    "CREW_TYPES",
    "DEFAULT_SIZE",
    "EXPLORER_HEADER",
    "MAX_SIZE",
    "SORTS",
    "DutyQuery",
    "ExplorerColumns",
    "QueryError",
    "Selection",
    "explorer_columns",
    "explorer_csv",
    "explorer_row",
    "ordered",
    "parse_query",
    "select",
]

#: duties per page by default, and at most
DEFAULT_SIZE = 50
MAX_SIZE = 500
#: crew types of the ``crew`` filter: flight crew (2-4 pilots) and cabin crew (9)
CREW_TYPES = ("flight", "cabin")
_CABIN = 9
#: sort keys: the risk, report time, duty length, sectors, top of descent, Reference
SORTS = ("risk", "report", "length", "sectors", "tod", "reference")
_DAY_S = 86_400
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

BoolArray = npt.NDArray[np.bool_]


class QueryError(ValueError):
    """A filter parameter that cannot be read: ``parameter`` and what it accepts."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(f"{parameter}: {message}")
        self.parameter = parameter
        self.message = message


@dataclass(frozen=True, slots=True)
class DutyQuery:
    """One view of the explorer (module doc); the defaults show every duty, riskiest first."""

    bands: tuple[str, ...] = ()
    base: str = ""
    fleet: str = ""
    rank: str = ""
    crew: str = ""
    day_from: date | None = None
    day_to: date | None = None
    kinds: tuple[str, ...] = ()
    driver: str = ""
    q: str = ""
    sort: str = "risk"
    descending: bool = True
    page: int = 1
    size: int = DEFAULT_SIZE
    home_time: bool = False  #: times (and the day filter) in home-base time, else UTC

    def params(self, **changes: Any) -> dict[str, str | list[str]]:
        """The query as request parameters (what :func:`parse_query` reads back), with
        ``changes`` (field names) applied; defaults are left out."""
        q = _replace(self, **changes)
        out: dict[str, str | list[str]] = {}
        if q.bands:
            out["band"] = list(q.bands)
        for name in ("base", "fleet", "rank", "crew", "driver", "q"):
            if getattr(q, name):
                out[name] = str(getattr(q, name))
        if q.day_from is not None:
            out["from"] = q.day_from.isoformat()
        if q.day_to is not None:
            out["to"] = q.day_to.isoformat()
        if q.kinds:
            out["kind"] = list(q.kinds)
        if q.sort != "risk":
            out["sort"] = q.sort
        if not q.descending:
            out["order"] = "asc"
        if q.page != 1:
            out["page"] = str(q.page)
        if q.size != DEFAULT_SIZE:
            out["size"] = str(q.size)
        if q.home_time:
            out["time"] = "home"
        return out


def _replace(q: DutyQuery, **changes: Any) -> DutyQuery:
    values = {name: getattr(q, name) for name in DutyQuery.__slots__}
    values.update(changes)
    return DutyQuery(**values)


def _one(params: Mapping[str, Sequence[str]], name: str) -> str:
    values = [v for v in params.get(name, ()) if v.strip()]
    if len(values) > 1:
        raise QueryError(name, "give it once")
    return values[0].strip() if values else ""


def _day(params: Mapping[str, Sequence[str]], name: str) -> date | None:
    text = _one(params, name)
    if not text:
        return None
    try:
        if not _DATE.fullmatch(text):
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise QueryError(name, f"a date as YYYY-MM-DD, got {text!r}") from None


def _choices(
    params: Mapping[str, Sequence[str]], name: str, allowed: Sequence[str]
) -> tuple[str, ...]:
    values = [v.strip() for v in params.get(name, ()) if v.strip()]
    bad = [v for v in values if v not in allowed]
    if bad:
        raise QueryError(name, f"one of {', '.join(allowed)}; got {bad[0]!r}")
    return tuple(dict.fromkeys(values))


def _whole(params: Mapping[str, Sequence[str]], name: str, default: int, lo: int, hi: int) -> int:
    text = _one(params, name)
    if not text:
        return default
    if not text.isdigit() or not lo <= int(text) <= hi:
        raise QueryError(name, f"a whole number from {lo} to {hi}, got {text!r}")
    return int(text)


def parse_query(params: Mapping[str, Sequence[str]], band_names: Sequence[str]) -> DutyQuery:
    """The :class:`DutyQuery` of request parameters (each name to its values), bands
    checked against the roster's ``band_names``; :class:`QueryError` names the first
    parameter that cannot be read."""
    day_from, day_to = _day(params, "from"), _day(params, "to")
    if day_from is not None and day_to is not None and day_to < day_from:
        raise QueryError("to", f"on or after from ({day_from.isoformat()})")
    sort = _one(params, "sort") or "risk"
    if sort not in SORTS:
        raise QueryError("sort", f"one of {', '.join(SORTS)}; got {sort!r}")
    order = _one(params, "order") or "desc"
    if order not in ("asc", "desc"):
        raise QueryError("order", f"asc or desc, got {order!r}")
    time = _one(params, "time") or "utc"
    if time not in ("utc", "home"):
        raise QueryError("time", f"utc or home, got {time!r}")
    crew = _choices(params, "crew", CREW_TYPES)
    driver = _choices(params, "driver", tuple(REASONS))
    q = _one(params, "q")
    if len(q) > 100:
        raise QueryError("q", "at most 100 characters")
    for name in ("base", "fleet", "rank"):
        if len(_one(params, name)) > 100:
            raise QueryError(name, "at most 100 characters")
    return DutyQuery(
        bands=_choices(params, "band", band_names),
        base=_one(params, "base"),
        fleet=_one(params, "fleet"),
        rank=_one(params, "rank"),
        crew=crew[0] if len(crew) == 1 else "",
        day_from=day_from,
        day_to=day_to,
        kinds=_choices(params, "kind", DUTY_KINDS),
        driver=driver[0] if len(driver) == 1 else "",
        q=q,
        sort=sort,
        descending=order == "desc",
        page=_whole(params, "page", 1, 1, 1_000_000),
        size=_whole(params, "size", DEFAULT_SIZE, 1, MAX_SIZE),
        home_time=time == "home",
    )


@dataclass(frozen=True, slots=True)
class ExplorerColumns:
    """The filterable and sortable columns of one stored roster's duties (built once:
    :func:`explorer_columns`), with its :class:`DutyTable` for the rows shown."""

    table: DutyTable
    band: IntArray  #: index into ``table.bands`` (-1: no risk)
    base: IntArray  #: home airport of each duty (-1: unknown)
    fleet: IntArray  #: index into ``fleets``
    rank: IntArray  #: index into ``ranks``
    cabin: BoolArray
    flight: BoolArray
    utc_day: IntArray  #: report day (days since 1970) in UTC
    home_day: IntArray  #: and in home-base time
    pair: IntArray  #: index into ``pairs`` (start and end airport)
    reasons: dict[str, BoolArray]
    fleets: list[str]
    ranks: list[str]
    pairs: list[str]  #: "lhr–jfk egll–kjfk lhr-jfk …", casefolded, per airport pair
    bases: list[str]  #: the home bases present, as labelled
    references: list[str] = field(default_factory=list)  #: casefolded, per schedule

    @property
    def nbytes(self) -> int:
        """Memory held by the columns' arrays (the cache's bound counts it)."""
        arrays = [getattr(self, n) for n in ("band", "base", "fleet", "rank", "cabin")]
        arrays += [self.flight, self.utc_day, self.home_day, self.pair, *self.reasons.values()]
        t = self.table
        arrays += [getattr(t, f) for f in t.__slots__ if isinstance(getattr(t, f), np.ndarray)]
        return sum(a.nbytes for a in arrays)


def _codes(values: list[str], per: IntArray) -> tuple[IntArray, list[str]]:
    labels = sorted(set(values))
    where = {v: i for i, v in enumerate(labels)}
    return np.asarray([where[v] for v in values], dtype=np.int64)[per], labels


def _band_index(t: DutyTable) -> IntArray:
    uppers = np.asarray([b.upper for b in t.bands])
    finite = np.isfinite(t.risk)
    index = np.searchsorted(uppers, np.where(finite, t.risk, 0.0), "right")
    return np.where(finite, np.minimum(index, len(t.bands) - 1), -1).astype(np.int64)


def explorer_columns(t: DutyTable) -> ExplorerColumns:
    """The filter and sort columns of ``t`` (vectorised; a few Python loops over
    schedules and airport pairs only)."""
    a = t.airports
    home = np.asarray(t.home, dtype=np.int64)[t.sched] if t.home else np.full(len(t), -1)
    fleet, fleets = _codes(list(t.fleet), t.sched)
    rank, ranks = _codes(list(t.rank), t.sched)
    size = max(1, len(a.code))
    known = (t.start >= 0) & (t.end >= 0)
    keys = np.where(known, t.start * size + t.end, -1)
    unique, inverse = np.unique(keys, return_inverse=True)
    pairs = []
    for key in unique.tolist():
        if key < 0:
            pairs.append("")
            continue
        s, e = divmod(int(key), size)
        words = [f"{a.label(s, style)}–{a.label(e, style)}" for style in ("iata", "icao")]
        words += [f"{a.code[s]}–{a.code[e]}"]
        pairs.append(" ".join(words + [w.replace("–", "-") for w in words]).casefold())
    crew = t.crew if t.crew is not None else np.zeros(len(t), dtype=np.int64)
    present = sorted({int(h) for h in t.home if h >= 0})
    return ExplorerColumns(
        table=t,
        band=_band_index(t),
        base=home,
        fleet=fleet,
        rank=rank,
        cabin=crew == _CABIN,
        flight=(crew >= 2) & (crew <= 4),
        utc_day=t.on_s // _DAY_S,
        home_day=(t.on_s + t.home_offset * 60) // _DAY_S,
        pair=inverse.reshape(-1).astype(np.int64),
        reasons=drivers.flags(t),
        fleets=fleets,
        ranks=ranks,
        pairs=pairs,
        bases=[a.label(h) for h in present],
        references=[r.casefold() for r in t.references],
    )


def _airport_indexes(c: ExplorerColumns, label: str) -> list[int]:
    a = c.table.airports
    want = label.casefold()
    return [
        i
        for i in range(len(a.code))
        if want in (a.code[i].casefold(), a.iata[i].casefold(), a.icao[i].casefold())
    ]


def _epoch_day(day: date) -> int:
    return (day - date(1970, 1, 1)).days


def mask(c: ExplorerColumns, q: DutyQuery) -> BoolArray:
    """Which duties match every filter of ``q``."""
    t = c.table
    keep = np.ones(len(t), dtype=bool)
    if q.bands:
        names = [b.css for b in t.bands]
        keep &= np.isin(c.band, [names.index(b) for b in q.bands if b in names])
    if q.base:
        keep &= np.isin(c.base, _airport_indexes(c, q.base))
    if q.fleet:
        keep &= c.fleet == (c.fleets.index(q.fleet) if q.fleet in c.fleets else -1)
    if q.rank:
        keep &= c.rank == (c.ranks.index(q.rank) if q.rank in c.ranks else -1)
    if q.crew:
        keep &= c.cabin if q.crew == "cabin" else c.flight
    day = c.home_day if q.home_time else c.utc_day
    if q.day_from is not None:
        keep &= day >= _epoch_day(q.day_from)
    if q.day_to is not None:
        keep &= day <= _epoch_day(q.day_to)
    if q.kinds:
        keep &= np.isin(t.kind, [DUTY_KINDS.index(k) for k in q.kinds])
    if q.driver:
        keep &= c.reasons[q.driver]
    needle = q.q.casefold()
    if needle:
        by_pair = np.asarray([needle in p for p in c.pairs], dtype=bool)
        by_ref = np.asarray([needle in r for r in c.references], dtype=bool)
        keep &= by_pair[c.pair] | by_ref[t.sched]
    return keep


def _sort_key(c: ExplorerColumns, sort: str) -> npt.NDArray[Any]:
    t = c.table
    if sort == "report":
        return t.on_s
    if sort == "length":
        return t.minutes
    if sort == "sectors":
        return t.sectors
    if sort == "tod":
        return t.tod
    if sort == "reference":
        return t.sched  # schedules are in stored order; ties by report below
    return t.risk


@dataclass(frozen=True, slots=True)
class Selection:
    """One view: the duties of the page (positions in the table), how many matched, and
    the page numbers after clamping."""

    rows: IntArray
    matched: int
    page: int
    pages: int


def ordered(c: ExplorerColumns, q: DutyQuery) -> IntArray:
    """Every matching duty in the view's order: by ``q.sort`` (absent values last), ties
    by report time then stored order."""
    t = c.table
    idx = np.flatnonzero(mask(c, q))
    key = np.asarray(_sort_key(c, q.sort), dtype=np.float64)[idx]
    if q.sort == "reference":
        names = np.asarray(t.references, dtype=object)
        rank_of = np.empty(len(names), dtype=np.int64)
        rank_of[np.argsort(names, kind="stable")] = np.arange(len(names))
        key = rank_of[t.sched[idx]].astype(np.float64)
    missing = ~np.isfinite(key)
    signed = np.where(missing, 0.0, -key if q.descending else key)
    # lexsort: last key first; absent values go last whatever the order
    order = np.lexsort((idx, t.on_s[idx], signed, missing))
    return idx[order].astype(np.int64)


def select(c: ExplorerColumns, q: DutyQuery) -> Selection:
    """The page ``q.page`` of ``q``'s duties (clamped to the pages there are)."""
    rows = ordered(c, q)
    pages = max(1, -(-rows.size // q.size))
    page = min(q.page, pages)
    start = (page - 1) * q.size
    return Selection(rows[start : start + q.size], int(rows.size), page, pages)


def _clock(epoch_s: int, offset_min: int) -> str:
    return (datetime.fromtimestamp(epoch_s, UTC) + timedelta(minutes=offset_min)).strftime(
        "%Y-%m-%d %H:%M"
    )


def _num(value: float, digits: int) -> float | None:
    return round(float(value), digits) if math.isfinite(float(value)) else None


def explorer_row(
    c: ExplorerColumns,
    i: int,
    *,
    home_time: bool,
    style: str = "iata",
    reasons: str | None = None,
) -> dict[str, Any]:
    """Duty ``i`` as one explorer row (JSON-ready): route, report and off in the view's
    time, length, sectors, crew, R with its band and reasons (``reasons``: already
    joined by :func:`vigil.fleet.drivers.reasons_text`, else read here), top of descent."""
    t = c.table
    s = int(t.sched[i])
    start, end = int(t.start[i]), int(t.end[i])
    a = t.airports
    offset = int(t.home_offset[i]) if home_time else 0
    band = int(c.band[i])
    home = int(c.base[i])
    minutes = float(t.minutes[i])
    return {
        "index": int(i),
        "reference": t.references[s],
        "duty": int(t.number[i]),
        "route": f"{a.label(start, style)}–{a.label(end, style)}" if start >= 0 <= end else "",
        "base": a.label(home, style) if home >= 0 else "",
        "fleet": t.fleet[s],
        "rank": t.rank[s],
        "onUtc": int(t.on_s[i]),
        "offUtc": int(t.off_s[i]),
        "report": _clock(int(t.on_s[i]), offset),
        "off": _clock(int(t.off_s[i]), offset),
        "length": f"{int(minutes // 60)}:{int(minutes % 60):02d}",
        "hours": round(minutes / 60.0, 2),
        "sectors": int(t.sectors[i]),
        "crew": drivers.crew_words(t, i),
        "kind": DUTY_KINDS[int(t.kind[i])],
        "risk": _num(t.risk[i], 3),
        "band": t.bands[band].css if band >= 0 else "",
        "bandText": t.bands[band].words if band >= 0 else "",
        "reasons": drivers.reasons(t, i)
        if reasons is None
        else reasons.split("; ")
        if reasons
        else [],
        "explained": t.drivers is not None,
        "components": drivers.components(t, i),
        "topOfDescent": _num(t.tod[i], 3),
    }


#: the risk's factors as the export names them (vigil.model.risk: R's S, T, D, B, M)
COMPONENT_COLUMNS = (
    ("S", "Sleepiness"),
    ("T", "Time of day"),
    ("D", "Time on duty"),
    ("B", "Breaks"),
    ("M", "Consecutive"),
)
_COMPONENT_KEYS = ("sleepiness", "timeOfDay", "timeOnDuty", "breaks", "consecutive")

#: the explorer export's columns (one row per duty of the view, in its order)
EXPLORER_HEADER = (
    "Reference",
    "Duty",
    "Route",
    "Home base",
    "Fleet",
    "Rank",
    "Crew",
    "Kind",
    "Report",
    "Off",
    "Time",
    "Hours",
    "Sectors",
    "Risk",
    "Band",
    "What drives the risk",
    "Top of descent",
    *(f"{words} {symbol}" for symbol, words in COMPONENT_COLUMNS),
    "Prior sleep (h)",
)
_ROWS_PER_PIECE = 2000


def explorer_csv(
    c: ExplorerColumns, q: DutyQuery, style: str = "iata", rows: IntArray | None = None
) -> Iterator[bytes]:
    """Every duty of the view ``q`` (unpaged, in its order) as CSV pieces (UTF-8, header
    first, text cells formula-safe): exactly what the view filters. ``rows`` are the
    view's duties when already selected (:func:`ordered`; the console announces their
    number before the file streams, for its progress bar)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(EXPLORER_HEADER)
    time = "home-base" if q.home_time else "UTC"
    if rows is None:
        rows = ordered(c, q)
    words = drivers.reasons_text(c.table, rows)  # grouped: not one call per duty
    for n, (i, why) in enumerate(zip(rows.tolist(), words, strict=True), start=1):
        r = explorer_row(c, i, home_time=q.home_time, style=style, reasons=why)
        text = [
            spreadsheet_safe(str(r[k])) for k in ("reference", "route", "base", "fleet", "rank")
        ]
        writer.writerow(
            [
                text[0],
                r["duty"],
                text[1],
                text[2],
                text[3],
                text[4],
                r["crew"],
                r["kind"],
                r["report"],
                r["off"],
                time,
                r["hours"],
                r["sectors"],
                "" if r["risk"] is None else r["risk"],
                r["bandText"],
                spreadsheet_safe(why),
                "" if r["topOfDescent"] is None else r["topOfDescent"],
                *(r["components"].get(key, "") for key in _COMPONENT_KEYS),
                r["components"].get("priorSleep", ""),
            ]
        )
        if n % _ROWS_PER_PIECE == 0:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode()
