"""The synthetic roster generator: deterministic, realistic mix, round-trips."""

from __future__ import annotations

from datetime import timedelta

from vigil.roster import parse_request
from vigil.roster.synthetic import generate_duties, generate_roster


def test_same_seed_same_roster_other_seed_other_roster() -> None:
    assert generate_roster(5, 10, 1) == generate_roster(5, 10, 1)
    assert generate_roster(5, 10, 1) != generate_roster(5, 10, 2)


def test_mix_of_short_and_long_haul_across_time_zones() -> None:
    duties = generate_duties(200, 28, 0)
    parsed = parse_request(generate_roster(200, 28, 0), "dmy")
    assert parsed.errors == ()
    zones = {d.start_airport.tz for s in parsed.schedules for d in s.duties}
    assert len(zones) >= 10
    lengths = [d.off_duty - d.on_duty for d in duties]
    assert min(lengths) < timedelta(hours=6) and max(lengths) > timedelta(hours=14)
    assert {d.time_reference for d in duties} == {0, 1, 2}
    assert {d.crew_composition for d in duties} >= {2, 3, 4, 9}
    assert any(d.first_rest for d in duties) and any("," in d.reference for d in duties)
    # about 15 rows per crew member per 28 days (10,000 x 28 -> ~150,000 rows)
    assert 12 <= len(duties) / 200 <= 19


def test_airline_month_has_issue_14s_mix_and_uses_every_column() -> None:
    """Half short-haul pilots (1-4 sectors, European bases), 30 % long-haul pilots in
    augmented crews with rests, 20 % long-haul cabin crew; every column used."""
    from vigil.roster.columns import COLUMNS
    from vigil.roster.synthetic import generate_airline_duties, generate_airline_roster

    text = generate_airline_roster(100, 28, 3)
    assert text == generate_airline_roster(100, 28, 3)
    assert text != generate_airline_roster(100, 28, 4)
    parsed = parse_request(text, "dmy")
    assert parsed.errors == ()
    rows = [line.split(",") for line in text.splitlines()[1:] if '"' not in line]
    assert text.splitlines()[0] == ",".join(c.name for c in COLUMNS)
    for position, column in enumerate(COLUMNS):
        assert any(r[position] for r in rows), column.name
    duties = generate_airline_duties(100, 28, 3)
    assert 12 <= len(duties) / 100 <= 16  # 136,056 rows for 10,000 crew
    by_crew: dict[str, set[int]] = {}
    for d in duties:
        by_crew.setdefault(d.reference, set()).add(d.crew_composition)
    kinds = [by_crew[r] for r in by_crew]
    short = [k for k in kinds if 9 not in k and not k & {3, 4}]
    long_pilots = [k for k in kinds if k <= {3, 4} and k]
    cabin = [k for k in kinds if k == {9}]
    assert (len(short), len(long_pilots), len(cabin)) == (50, 30, 20)
    short_sectors = {d.sectors for d in duties if d.crew_composition == 2}
    assert {1, 2, 3, 4} <= short_sectors
    augmented = [d for d in duties if d.crew_composition in (3, 4)]
    assert all(d.first_rest is not None for d in augmented)
    assert any(d.second_rest is not None for d in augmented if d.crew_composition == 4)
    assert any(d.partial_augment is not None for d in augmented)
    # rests across time zones: start and end zones differ on most long-haul duties
    crossing = [d for d in augmented if _zone(d.start) != _zone(d.end)]
    assert len(crossing) > 0.9 * len(augmented)


def _zone(code: str) -> str:
    from vigil import tz

    found = tz.airport(code)
    assert found is not None
    return found.tz


def test_max_fdp_follows_oro_ftl_205() -> None:
    # Regulation (EU) 83/2014, ORO.FTL.205(b)(1): acclimatised crew, start of FDP x sectors
    from vigil.roster.ftl import augmented_fdp, max_fdp

    assert max_fdp(6 * 60, 2) == 13.0 and max_fdp(13 * 60 + 29, 1) == 13.0
    assert max_fdp(13 * 60 + 30, 2) == 12.75 and max_fdp(16 * 60 + 45, 2) == 11.25
    assert max_fdp(17 * 60, 2) == 11.0 and max_fdp(4 * 60 + 59, 1) == 11.0
    assert max_fdp(5 * 60, 2) == 12.0 and max_fdp(5 * 60 + 50, 2) == 12.75
    assert max_fdp(8 * 60, 4) == 12.0 and max_fdp(20 * 60, 10) == 9.0  # 30 min a sector
    # CS FTL.1.205(c)(2): one extra pilot 16/15/14 h, two extra 17/16/15 h by class
    assert [augmented_fdp(3, c) for c in (1, 2, 3)] == [16.0, 15.0, 14.0]
    assert [augmented_fdp(4, c) for c in (1, 2, 3)] == [17.0, 16.0, 15.0]


def test_airline_month_is_easa_legal_by_default() -> None:
    """Max FDP by report time and sectors, augmented limits, minimum rest and cumulative
    duty and block hours hold for every crew member; ``legal=False`` keeps the earlier
    month (with short-haul duties beyond the limits) for robustness tests."""
    from collections import defaultdict

    from vigil.roster.ftl import violations
    from vigil.roster.synthetic import ftl_duties, generate_airline_duties

    def broken(legal: bool) -> list[str]:
        by_crew: dict[str, list] = defaultdict(list)
        for d in generate_airline_duties(300, 28, 7, legal=legal):
            by_crew[d.reference].append(d)
        return [v for duties in by_crew.values() for v in violations(ftl_duties(duties))]

    assert broken(True) == []
    illegal = broken(False)
    assert any("FDP" in v for v in illegal) and any("rest" in v for v in illegal)
