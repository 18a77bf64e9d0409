"""Trips, hot spots and trip rows on a hand-built roster whose answers are known by
construction (tests/fleet/trip_tables.py)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vigil.fleet.hot_spots import MIN_DUTIES, hot_spots
from vigil.fleet.trip_rows import trip_order, trip_row
from vigil.fleet.trips import group_trips

from .trip_tables import Duty, bases, table

NAN = math.nan
HOMES = ["LHR", "LHR/LGW", "MAN", "LHR"]
#: (schedule, start, end, report, off, R, top of descent); days of March 2026, UTC
DUTIES: list[Duty] = [
    # P1: out to New York and back, landing at LHR written as EGLL; a day trip; then
    # a duty out with no risk, not back when the roster ends
    (0, "LHR", "JFK", "2 10:00", "2 18:00", 1.1, 5.0),
    (0, "JFK", "EGLL", "3 22:00", "4 06:00", 2.4, 7.5),
    (0, "LHR", "LHR", "6 06:00", "6 12:00", 1.0, 4.0),
    (0, "LHR", "CDG", "8 07:00", "8 09:00", NAN, NAN),
    # P2: based at LHR and LGW; leaves from LGW, comes back to LHR
    (1, "LGW", "JFK", "2 10:00", "2 18:00", 1.2, 5.5),
    (1, "JFK", "LHR", "3 22:00", "4 06:00", 3.2, 8.0),
    # P3: the roster begins mid-trip (CDG-MAN), then a three-duty trip with two nights
    (2, "CDG", "MAN", "1 07:00", "1 09:00", 0.9, 4.0),
    (2, "MAN", "CDG", "3 06:00", "3 10:00", 1.4, 5.0),
    (2, "CDG", "FRA", "4 06:00", "4 08:00", 1.6, 6.0),
    (2, "FRA", "MAN", "5 06:00", "5 09:00", 2.1, 6.5),
    # P4: lands at JFK, next reports at CDG (positioned off the roster): one trip
    (3, "LHR", "JFK", "2 10:00", "2 18:00", 1.0, 5.0),
    (3, "CDG", "LHR", "4 10:00", "4 12:00", 1.3, 5.0),
]


@pytest.fixture
def t():  # type: ignore[no-untyped-def]
    return table(DUTIES, HOMES)


def test_trips_run_from_home_base_to_home_base(t) -> None:  # type: ignore[no-untyped-def]
    trips = group_trips(t, bases(HOMES))
    assert trips.trip.tolist() == [0, 0, 1, 2, 3, 3, 4, 5, 5, 5, 6, 6]
    assert [trips.patterns[p] for p in trips.pattern] == [
        "LHR-JFK-LHR, 1 night",
        "LHR-LHR, 0 nights",
        "LHR-CDG, 0 nights",
        "LGW-JFK-LHR, 1 night",
        "CDG-MAN, 0 nights",
        "MAN-CDG-FRA-MAN, 2 nights",
        "LHR-JFK / CDG-LHR, 2 nights",
    ]
    assert trips.count.tolist() == [2, 1, 1, 2, 1, 3, 2]
    assert trips.layovers.tolist() == [1, 0, 0, 1, 0, 2, 1]
    assert trips.days.tolist() == [3, 1, 1, 3, 1, 3, 3]
    assert trips.nights.tolist() == [1, 0, 0, 1, 0, 2, 2]
    assert trips.starts_home.tolist() == [True, True, True, True, False, True, True]
    assert trips.ends_home.tolist() == [True, True, False, True, True, True, True]
    assert trips.report_minute.tolist() == [600, 360, 420, 600, 420, 360, 600]


def test_trip_risk_figures(t) -> None:  # type: ignore[no-untyped-def]
    trips = group_trips(t, bases(HOMES))
    assert trips.worst.tolist() == [1, 2, -1, 5, 6, 9, 11]
    assert np.allclose(trips.max_risk, [2.4, 1.0, NAN, 3.2, 0.9, 2.1, 1.3], equal_nan=True)
    assert np.allclose(trips.sum_risk, [3.5, 1.0, NAN, 4.4, 0.9, 5.1, 2.3], equal_nan=True)
    # built-in bands: < 1.3 acceptable, < 2 monitor, < 3 mitigate, else redesign
    assert trips.band_counts.tolist() == [
        [1, 0, 1, 0],
        [1, 0, 0, 0],
        [0, 0, 0, 0],
        [1, 0, 0, 1],
        [1, 0, 0, 0],
        [0, 2, 1, 0],
        [1, 1, 0, 0],
    ]


def test_without_the_other_home_codes_a_trip_from_the_second_base_is_not_from_home(
    t,  # type: ignore[no-untyped-def]
) -> None:
    # the HomeBase cell's first code only (summaries stored before every code was kept)
    trips = group_trips(t)
    assert trips.starts_home.tolist()[3] is False
    assert trips.patterns[trips.pattern[3]] == "LGW-JFK-LHR, 1 night"


def test_the_most_hazardous_trips_come_first_and_search_narrows(t) -> None:  # type: ignore[no-untyped-def]
    trips = group_trips(t, bases(HOMES))
    # one duty in the upper bands each, by highest R; then the others by highest R
    assert trip_order(t, trips).tolist() == [3, 0, 5, 6, 1, 4, 2]
    assert trip_order(t, trips, "p3").tolist() == [5, 4]
    assert trip_order(t, trips, "jfk-lhr").tolist() == [3, 0]
    row = trip_row(t, trips, 5)
    assert row["reference"] == "P3" and row["base"] == "MAN"
    assert (row["firstDuty"], row["lastDuty"], row["worstDuty"]) == (2, 4, 4)
    assert row["worstRoute"] == "FRA–MAN" and row["upper"] == 1
    assert row["reportHome"] == "2026-03-03 06:00 +00:00"
    assert row["offHome"] == "2026-03-05 09:00 +00:00"
    assert trip_row(t, trips, 2)["worstDuty"] is None


def test_hot_spots_by_route_hour_and_pattern(t) -> None:  # type: ignore[no-untyped-def]
    hot = hot_spots(t, group_trips(t, bases(HOMES)))
    routes = {g["key"]: g for g in hot["route"]}
    # LHR spelled EGLL is the same airport: one JFK-LHR route of two duties
    jfk = routes["JFK–LHR"]
    assert (jfk["duties"], jfk["meanRisk"], jfk["maxRisk"]) == (2, 2.8, 3.2)
    assert (jfk["upper"], jfk["upperShare"], jfk["meanTopOfDescent"]) == (2, 1.0, 7.75)
    assert "LHR–CDG" not in routes  # its only duty has no risk
    hours = hot["reportHour"]
    assert [g["key"][:5] for g in hours] == ["06:00", "10:00", "22:00", "07:00"]
    assert hours[0]["duties"] == 4 and hours[0]["meanRisk"] == pytest.approx(1.525, abs=1e-3)
    assert hours[0]["upperShare"] == 0.25
    assert hours[2]["duties"] < MIN_DUTIES < hours[0]["duties"]  # small groups last
    patterns = {g["key"]: g for g in hot["pattern"]}
    assert patterns["MAN-CDG-FRA-MAN, 2 nights"]["trips"] == 1
    assert patterns["MAN-CDG-FRA-MAN, 2 nights"]["meanRisk"] == pytest.approx(1.7)
    assert hot["upperBands"] == ["mitigate", "redesign"]


def test_a_hundred_forty_thousand_duties_group_vectorised() -> None:
    # the airline-size month's shape: 10,000 schedules of 14 duties, out-and-back pairs
    n_sched, per = 10_000, 14
    duties: list[Duty] = []
    for s in range(3):  # a small table, then the same arrays tiled (only shape matters)
        for k in range(per):
            out = k % 2 == 0
            day = 1 + k
            duties.append(
                (s, "LHR" if out else "JFK", "JFK" if out else "LHR",
                 f"{day} 10:00", f"{day} 18:00", 1.0 + 0.1 * k, 5.0)
            )  # fmt: skip
    small = table(duties, ["LHR"] * 3)
    reps = n_sched // 3
    big_sched = np.concatenate([small.sched + 3 * r for r in range(reps)])

    tiled = {
        name: np.tile(getattr(small, name), reps)
        for name in ("number", "on_s", "off_s", "start", "end", "sectors", "start_offset",
                     "end_offset", "home_offset", "kind", "risk", "peak", "mean", "minutes",
                     "above_minutes", "working_minutes", "tod", "rest_before_h")
    }  # fmt: skip
    big = replace(
        small,
        references=[f"C{i}" for i in range(3 * reps)],
        fleet=["A320"] * 3 * reps,
        rank=["CPT"] * 3 * reps,
        home=[0] * 3 * reps,
        sched=big_sched,
        **tiled,
    )
    trips = group_trips(big)
    assert len(big) == 3 * reps * per and len(trips) == 3 * reps * per // 2
    assert set(trips.patterns) == {"LHR-JFK-LHR, 1 night"}  # out one day, back the next
