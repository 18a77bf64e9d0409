"""Review state of the duties and patterns a console page lists (the hazard log's reads).

The dashboard's top duties, a duty's chart rows and the dashboard's pattern rows each show
the decision in force for their subject (:mod:`vigil.store.hazards`), matched by a stable
identity (Reference, report instant UTC, start and end airport; or the pattern's name), so
the state shows again wherever the same duty or pattern recurs. Shared by the roster pages
and the hazard-log page, which import it rather than each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from vigil.fleet.table import DutyTable
from vigil.settings.bands import RiskBand, risk_band
from vigil.store import hazards
from vigil.store.hazards import DutyIdentity
from vigil.store.tables import HazardEntry
from vigil.web.console._web import Console

__all__ = [
    "HIGH_BANDS",
    "PATTERN_SUBJECTS",
    "Review",
    "SubjectReview",
    "chart_reviews",
    "pattern_reviews",
    "subject_reviews",
    "top_duty_reviews",
]

#: bands whose duties the dashboard counts as reviewed or open
HIGH_BANDS = ("high", "very-high")


@dataclass(frozen=True, slots=True)
class Review:
    """One duty's review control: its identity and the decision in force, if any."""

    duty: DutyIdentity
    label: str
    risk: float | None
    entry: HazardEntry | None

    @property
    def report_s(self) -> int:
        return int(self.duty.report_at.timestamp())

    @property
    def state(self) -> str:
        return "open" if self.entry is None else "reviewed"


@dataclass(frozen=True, slots=True)
class SubjectReview:
    """A named trip or pattern's review control and its decision in force, if any."""

    kind: str
    label: str
    entry: HazardEntry | None

    @property
    def state(self) -> str:
        return "open" if self.entry is None else "reviewed"


#: the dashboard's patterns as hazard-log subjects, per schedule (``{n}``: the run length,
#: ``{h}``: the short-rest bound)
PATTERN_SUBJECTS = {
    "earlyRuns": "{ref}: runs of {n}+ consecutive early starts",
    "nightRuns": "{ref}: runs of {n}+ consecutive nights",
    "shortRests": "{ref}: rests under {h:g} h",
}


def pattern_reviews(console: Console, patterns: dict[str, Any]) -> dict[str, list[SubjectReview]]:
    """The dashboard's pattern rows as pattern subjects (one per schedule and pattern,
    named by its Reference, so the decision shows again where the schedule recurs), each
    with its decision in force; in the rows' order."""
    labels = {
        key: [
            words.format(ref=x["reference"], n=patterns["minRun"], h=patterns["shortRestHours"])
            for x in patterns[key]["top"]
        ]
        for key, words in PATTERN_SUBJECTS.items()
    }
    keyed = {label: hazards.subject_key("pattern", label) for ls in labels.values() for label in ls}
    found = hazards.current_decisions(
        session=console.db, operator=console.operator, kind="pattern", keys=keyed.values()
    )
    return {
        key: [SubjectReview("pattern", label, found.get(keyed[label])) for label in ls]
        for key, ls in labels.items()
    }


def subject_reviews(console: Console, kind: str, labels: list[str]) -> list[SubjectReview]:
    """Named trips or patterns (``kind``) with their decisions in force, in order (the
    trips page: a trip named by crew member, pattern and report; a pattern by itself)."""
    keyed = [hazards.subject_key(kind, label) for label in labels]
    found = hazards.current_decisions(
        session=console.db, operator=console.operator, kind=kind, keys=keyed
    )
    return [
        SubjectReview(kind, label, found.get(key)) for label, key in zip(labels, keyed, strict=True)
    ]


def _identity(reference: str, on_s: int, route: str) -> DutyIdentity:
    start, _, end = route.partition("–")
    return DutyIdentity(reference, datetime.fromtimestamp(on_s, UTC), start, end)


def _with_entries(console: Console, items: list[tuple[DutyIdentity, str, Any]]) -> list[Review]:
    found = hazards.current_decisions(
        session=console.db,
        operator=console.operator,
        kind="duty",
        keys=[duty.key for duty, _, _ in items],
    )
    return [
        Review(duty, label, None if risk is None else float(risk), found.get(duty.key))
        for duty, label, risk in items
    ]


def top_duty_reviews(
    console: Console, top: list[dict[str, Any]], bands: tuple[RiskBand, ...]
) -> dict[str, Any]:
    """The dashboard's top duties' reviews (in list order) and how many of those in the
    high and very high bands are reviewed and open."""
    items = [
        (
            _identity(d["reference"], int(d["onUtc"]), d["route"]),
            f"{d['reference']} #{d['duty']} {d['route']}".strip(),
            d["risk"],
        )
        for d in top
    ]
    reviews = _with_entries(console, items)
    high = [
        r
        for r, d in zip(reviews, top, strict=True)
        if (band := risk_band(d["risk"], bands)) is not None and band.css in HIGH_BANDS
    ]
    reviewed = sum(1 for r in high if r.entry is not None)
    return {
        "rows": reviews,
        "high": len(high),
        "reviewed": reviewed,
        "open": len(high) - reviewed,
    }


def chart_reviews(console: Console, table: DutyTable, reference: str) -> list[Review]:
    """A chart page's duties' reviews, in duty order (airports keyed by IATA code, as the
    dashboard's, whatever codes the user shows)."""
    items = []
    for i in range(len(table)):
        s, e = int(table.start[i]), int(table.end[i])
        route = f"{table.airports.label(s)}–{table.airports.label(e)}" if s >= 0 and e >= 0 else ""
        items.append(
            (
                _identity(reference, int(table.on_s[i]), route),
                f"{reference} #{int(table.number[i])} {route}".strip(),
                float(table.risk[i]) if math.isfinite(table.risk[i]) else None,
            )
        )
    return _with_entries(console, items)
