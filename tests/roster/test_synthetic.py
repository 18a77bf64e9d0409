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
    # about 15 rows per crew member per 28 days (issue 2: 10,000 x 28 -> ~150,000 rows)
    assert 12 <= len(duties) / 200 <= 19
