"""Two hand-built months compared: bands, groups and the pairings that recur, with the
matches and changes known by construction."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from vigil.fleet.compare import CSV_HEADER, Digest, Groups, compare, compare_csv, digest
from vigil.fleet.trips import group_trips

from .test_trips import DUTIES, HOMES
from .trip_tables import Duty, bases, table


def shifted(duty: Duty, days: int) -> Duty:
    """The same duty ``days`` later."""

    def later(text: str) -> str:
        day, clock = text.split()
        return f"{int(day) + days} {clock}"

    s, a, b, on, off, risk, tod = duty
    return (s, a, b, later(on), later(off), risk, tod)


def month_b() -> list[Duty]:
    """Month A a week later, with three changes: P1's return from New York riskier
    (2.4 → 2.9), P3's last duty less risky (2.1 → 1.8), P1's day trip reporting at 05:00
    instead of 06:00 (a different pairing)."""
    out = [shifted(d, 7) for d in DUTIES]
    out[1] = out[1][:5] + (2.9, out[1][6])
    out[9] = out[9][:5] + (1.8, out[9][6])
    out[2] = (0, "LHR", "LHR", "13 05:00", "13 11:00", 1.0, 4.0)
    return out


@pytest.fixture
def result():  # type: ignore[no-untyped-def]
    a, b = table(DUTIES, HOMES), table(month_b(), HOMES)
    return compare(digest(a, group_trips(a, bases(HOMES))), digest(b, group_trips(b, bases(HOMES))))


def test_recurring_pairings_are_matched_by_route_sequence_and_report_time(result) -> None:  # type: ignore[no-untyped-def]
    p = result["pairings"]
    # 11 pairing duties with a risk in each month; the day trip moved from 06:00 to 05:00
    assert (p["matched"], p["onlyA"], p["onlyB"]) == (10, 1, 1)
    assert [(r["key"], r["meanA"], r["meanB"], r["meanChange"]) for r in p["increases"]] == [
        ("LHR-JFK-LHR · 10:00 · duty 2", 2.4, 2.9, 0.5)
    ]
    assert [(r["key"], r["meanChange"]) for r in p["decreases"]] == [
        ("MAN-CDG-FRA-MAN · 06:00 · duty 3", -0.3)
    ]
    unchanged = [r for r in p["rows"] if r["meanChange"] == 0]
    assert len(unchanged) == 8


def test_band_shares_and_groups_both_months_and_the_change(result) -> None:  # type: ignore[no-untyped-def]
    bands = {b["words"]: b for b in result["bands"]}
    assert [b["countA"] for b in result["bands"]] == [5, 3, 2, 1]
    assert [b["countB"] for b in result["bands"]] == [5, 4, 1, 1]
    assert bands["monitor"]["shareChange"] == pytest.approx(1 / 11, abs=1e-4)
    assert bands["mitigate"]["shareChange"] == pytest.approx(-1 / 11, abs=1e-4)
    routes = {r["key"]: r for r in result["route"]}
    assert (routes["JFK–LHR"]["meanA"], routes["JFK–LHR"]["meanB"]) == (2.8, 3.05)
    assert routes["JFK–LHR"]["meanChange"] == 0.25
    assert result["route"][0]["key"] == "JFK–LHR"  # the worst change first
    base = {r["key"]: r for r in result["base"]}
    # LHR: P1, P2 (first HomeBase code) and P4; P1's duty without a risk is not counted
    assert base["LHR"]["dutiesA"] == 7 and base["LHR"]["meanA"] == pytest.approx(1.6)
    assert base["MAN"]["meanChange"] == pytest.approx(-0.075, abs=1e-3)
    patterns = {r["key"]: r for r in result["pattern"]}
    assert patterns["LHR-LHR, 0 nights"]["meanChange"] == 0.0  # same pattern, other hour
    assert result["summary"]["tripsA"] == result["summary"]["tripsB"] == 7


def test_the_csv_holds_every_row(result) -> None:  # type: ignore[no-untyped-def]
    rows = list(csv.reader(io.StringIO("".join(compare_csv(result)))))
    assert tuple(rows[0]) == CSV_HEADER
    sections = [r[0] for r in rows[1:]]
    assert sections.count("band") == 4
    assert sections.count("pairing duty") == result["pairings"]["matched"]
    assert sections.count("route") == len(result["route"])
    rise = next(r for r in rows if r[1] == "LHR-JFK-LHR · 10:00 · duty 2")
    assert rise[2:7] == ["1", "1", "2.4", "2.9", "0.5"]


def test_a_key_starting_like_a_formula_is_made_safe() -> None:
    empty = Groups([], np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64))
    route = Groups(["=HYPERLINK(1)"], np.ones(1, np.int64), np.ones(1), np.zeros(1, np.int64))
    groups = {"route": route, "base": empty, "pattern": empty, "pairing": empty}
    one = Digest(1, 1, ("acceptable",), ("standard",), (1,), groups)
    rows = list(csv.reader(io.StringIO("".join(compare_csv(compare(one, one))))))
    assert rows[2][:2] == ["route", "'=HYPERLINK(1)"]


def test_a_page_keeps_the_top_of_each_list(result) -> None:  # type: ignore[no-untyped-def]
    a, b = table(DUTIES, HOMES), table(month_b(), HOMES)
    da, db = digest(a, group_trips(a, bases(HOMES))), digest(b, group_trips(b, bases(HOMES)))
    page = compare(da, db, limit=2)
    assert page["route"] == result["route"][:2] and "rows" not in page["pairings"]
    assert page["pairings"]["increases"] == result["pairings"]["increases"]
