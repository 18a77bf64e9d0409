"""Route facts: what the roster text alone says about each stored duty (route, sectors,
Fleet, Rank, home base), gathered by the upload's chunk tasks from the schedules they parse
anyway and stored beside the scores, so the roster summary, exports and charts never parse
the roster again (docs/upload.md, "Stored results").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from vigil.domain import Airport, Duty, Schedule
from vigil.roster.arrays import DutyColumns

__all__ = ["Airports", "RouteFacts", "route_facts", "route_facts_of_columns"]


@dataclass(frozen=True, slots=True)
class Airports:
    """Airports of the roster: codes as written, IATA, ICAO and IANA zone (by index)."""

    code: list[str]
    iata: list[str]
    icao: list[str]
    zone: list[str]

    def label(self, index: int, style: str = "iata") -> str:
        """``index``'s code in ``style`` (``iata``/``icao``), else as written."""
        other = self.icao[index] if style == "icao" else self.iata[index]
        return other or self.code[index]


@dataclass(frozen=True, slots=True)
class RouteFacts:
    """The part of :class:`RosterFacts` only the roster text holds, without local offsets.

    One entry per scored schedule (``fleet``, ``rank``, ``home``, ``duties``: its number of
    stored duties; ``bases``: every airport its HomeBase cell lists, ``home`` first) and per
    stored duty (``start``, ``end``, ``sectors``; ``-1``/``0`` where
    the roster has no such duty), airports indexing :attr:`airports`. Chunk tasks gather it
    from the schedules they parsed anyway (:mod:`vigil.worker.tasks`), so the roster summary
    at finish needs no second parse of the roster (the worker's memory budget); :meth:`join`
    merges the chunks' parts in order, :func:`with_offsets` completes it.
    """

    airports: Airports
    fleet: list[str]
    rank: list[str]
    home: list[int]
    duties: list[int]
    start: list[int]
    end: list[int]
    sectors: list[int]
    #: per stored duty: its CrewComposition (2, 3, 4 pilots; 9 cabin crew; 0 unknown)
    crew: list[int] = field(default_factory=list)
    bases: list[list[int]] = field(default_factory=list)

    def base_lists(self) -> list[list[int]]:
        """:attr:`bases`, or ``[home]`` per schedule where it was not gathered."""
        if len(self.bases) == len(self.home):
            return self.bases
        return [[h] if h >= 0 else [] for h in self.home]

    @classmethod
    def join(cls, parts: Iterable[RouteFacts]) -> RouteFacts:
        """Consecutive parts as one, airports renumbered in order of first appearance
        (so the result equals :func:`route_facts` over all the parts' schedules)."""
        out = cls(Airports([], [], [], []), [], [], [], [], [], [], [])
        known: dict[str, int] = {}
        for part in parts:
            a = part.airports
            remap: list[int] = []
            for i, code in enumerate(a.code):
                found = known.get(code)
                if found is None:
                    found = known[code] = len(out.airports.code)
                    out.airports.code.append(code)
                    out.airports.iata.append(a.iata[i])
                    out.airports.icao.append(a.icao[i])
                    out.airports.zone.append(a.zone[i])
                remap.append(found)
            out.fleet.extend(part.fleet)
            out.rank.extend(part.rank)
            out.duties.extend(part.duties)
            out.sectors.extend(part.sectors)
            out.bases.extend([remap[i] for i in b] for b in part.base_lists())
            out.crew.extend(part.crew)
            for ours, theirs in (
                (out.home, part.home),
                (out.start, part.start),
                (out.end, part.end),
            ):
                ours.extend(remap[i] if i >= 0 else -1 for i in theirs)
        return out


class _RouteBuilder:
    """Appends schedules to a :class:`RouteFacts`, numbering airports by first appearance."""

    def __init__(self) -> None:
        self.facts = RouteFacts(Airports([], [], [], []), [], [], [], [], [], [], [])
        self._known: dict[str, int] = {}

    def place(self, airport: Airport) -> int:
        """``airport``'s index in the facts' airports (added when new)."""
        found = self._known.get(airport.code)
        if found is None:
            airports = self.facts.airports
            found = self._known[airport.code] = len(airports.code)
            airports.code.append(airport.code)
            airports.iata.append(airport.iata)
            airports.icao.append(airport.icao)
            airports.zone.append(airport.tz)
        return found

    def add(
        self,
        count: int,
        fleet: Iterable[str],
        rank: Iterable[str],
        base: Airport | None,
        route: Sequence[tuple[Airport, Airport, int, int]],
        others: Sequence[Airport] = (),
    ) -> None:
        """One stored schedule of ``count`` duties: its duties' Fleet and Rank cells (the
        first non-blank of each is kept), home base (and the HomeBase cell's ``others``),
        and (start, end, sectors) of its parsed duties in order, with each one's
        CrewComposition (those beyond ``count``
        are not stored; missing ones are blank)."""
        facts = self.facts
        facts.fleet.append(next((f for f in fleet if f), ""))
        facts.rank.append(next((r for r in rank if r), ""))
        facts.home.append(self.place(base) if base is not None else -1)
        facts.bases.append([self.place(a) for a in (base, *others)] if base is not None else [])
        facts.duties.append(count)
        for start, end, sectors, crew in route[:count]:
            facts.start.append(self.place(start))
            facts.end.append(self.place(end))
            facts.sectors.append(sectors)
            facts.crew.append(crew)
        missing = count - min(count, len(route))
        facts.start.extend([-1] * missing)
        facts.end.extend([-1] * missing)
        facts.sectors.extend([0] * missing)
        facts.crew.extend([0] * missing)


def route_facts(entries: Iterable[tuple[str, int]], schedules: Sequence[Schedule]) -> RouteFacts:
    """Route, sectors, Fleet, Rank and home base of every stored duty.

    ``entries`` are the stored schedules in order, as ``(reference, number of duties)``.
    Schedules are matched by Reference and duties by position (the worker stores one
    entry per duty of each parsed schedule, in order); a stored schedule the roster no
    longer has keeps blank route fields (airport -1).
    """
    by_ref = {s.reference: s for s in schedules}
    out = _RouteBuilder()
    for reference, count in entries:
        parsed = by_ref.get(reference)
        duties: tuple[Duty, ...] = parsed.duties if parsed is not None else ()
        out.add(
            count,
            (d.fleet for d in duties),
            (d.rank for d in duties),
            duties[0].home_base[0] if duties else None,
            [(d.start_airport, d.end_airport, d.sectors, int(d.crew_composition)) for d in duties],
            duties[0].home_base[1:] if duties else (),
        )
    return out.facts


def route_facts_of_columns(entries: Iterable[tuple[str, int]], columns: DutyColumns) -> RouteFacts:
    """:func:`route_facts` of the columnar reader's duties, read from the arrays (no
    :class:`~vigil.domain.Duty` objects): same matching, same result."""
    by_ref = {ref: i for i, ref in enumerate(columns.references)}
    bounds = columns.offsets.tolist()
    airports, home_bases = columns.airports, columns.home_bases
    start, end = columns.start_airport.tolist(), columns.end_airport.tolist()
    home, sectors = columns.home_base.tolist(), columns.sectors.tolist()
    crew = columns.crew_composition.tolist()
    out = _RouteBuilder()
    for reference, count in entries:
        i = by_ref.get(reference)
        lo, hi = (bounds[i], bounds[i + 1]) if i is not None else (0, 0)
        out.add(
            count,
            columns.fleet[lo:hi],
            columns.rank[lo:hi],
            home_bases[home[lo]][0] if hi > lo else None,
            [(airports[start[d]], airports[end[d]], sectors[d], crew[d]) for d in range(lo, hi)],
            home_bases[home[lo]][1:] if hi > lo else (),
        )
    return out.facts
