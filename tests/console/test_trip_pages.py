"""Trips, hot spots and months compared in the console, over HTTP on scored rosters.

Two hand-built months: the same pairings a week apart, one return flight an hour later in
the second month and one day trip moved to another hour, so which pairing duties match
is known by construction; the risks themselves are read back from each roster's own
per-duty CSV export, so the comparison is checked against what the roster says.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from conftest import LiveService

from .test_fleet_pages import upload_and_wait

HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
)


def _rows(week: int, *, late_return: bool = False, day_trip: str = "06:00") -> str:
    """A week of March 2026 (UTC, London's winter time), ``week`` weeks on."""

    def d(day: int) -> str:
        return f"{day + 7 * week:02d}/03/2026"

    back = "23:00" if late_return else "22:00"
    back_off = "07:00" if late_return else "06:00"
    trip_off = f"{int(day_trip[:2]) + 6:02d}:00"
    return HEADER + "".join(
        f"{row}\r\n"
        for row in (
            # P1: LHR-JFK, back into LHR written by its ICAO code; a day trip
            f"P1,{d(2)},10:00,LHR,{d(2)},18:00,JFK,LHR,0",
            f"P1,{d(3)},{back},JFK,{d(4)},{back_off},EGLL,LHR,0",
            f"P1,{d(6)},{day_trip},LHR,{d(6)},{trip_off},LHR,LHR,0",
            # P2: based at LHR and LGW, leaves from LGW
            f"P2,{d(2)},10:00,LGW,{d(2)},18:00,JFK,LHR/LGW,0",
            f"P2,{d(3)},22:00,JFK,{d(4)},06:00,LHR,LHR/LGW,0",
        )
    )


MONTH_A = _rows(0)
MONTH_B = _rows(1, late_return=True, day_trip="07:00")


def risks(client: httpx.Client, token: str) -> dict[tuple[str, int], float]:
    """(Reference, duty number) → R, from the roster's per-duty CSV export."""
    text = client.get(f"/console/rosters/{token}/export.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    risk_column = next(k for k in rows[0] if k.lower().startswith("risk"))
    return {(r["Reference"], int(r["Duty"])): float(r[risk_column]) for r in rows}


@pytest.fixture
def months(alice: httpx.Client) -> tuple[str, str]:
    return upload_and_wait(alice, MONTH_A, "march-1"), upload_and_wait(alice, MONTH_B, "march-2")


def test_trips_page_and_json(alice: httpx.Client, months: tuple[str, str]) -> None:
    a, _ = months
    page = alice.get(f"/console/rosters/{a}/trips")
    assert page.status_code == 200
    assert 'data-figure="trips">3<' in page.text
    assert 'data-pattern="LHR-JFK-LHR, 1 night"' in page.text
    assert 'data-pattern="LGW-JFK-LHR, 1 night"' in page.text  # LGW is home too
    assert 'data-pattern="LHR-LHR, 0 nights"' in page.text
    body = alice.get(f"/console/rosters/{a}/trips.json").json()
    rows = body["trips"]["rows"]
    assert body["trips"]["matched"] == 3 and len(rows) == 3
    r = risks(alice, a)
    by_pattern = {x["pattern"]: x for x in rows}
    # the worker kept the second HomeBase code: the trip from LGW starts at home
    assert by_pattern["LGW-JFK-LHR, 1 night"]["startsHome"] is True
    assert all(x["endsHome"] for x in rows)
    p1 = by_pattern["LHR-JFK-LHR, 1 night"]
    assert (p1["reference"], p1["duties"], p1["days"], p1["nights"]) == ("P1", 2, 3, 1)
    assert p1["maxRisk"] == pytest.approx(max(r[("P1", 1)], r[("P1", 2)]), abs=1e-3)
    assert p1["sumRisk"] == pytest.approx(r[("P1", 1)] + r[("P1", 2)], abs=2e-3)
    # most hazardous first: by duties in the upper bands, then the highest R
    keys = [(-x["upper"], -(x["maxRisk"] or 0)) for x in rows]
    assert keys == sorted(keys)
    hot = body["hotSpots"]
    routes = {g["key"]: g for g in hot["route"]}
    assert routes["JFK–LHR"]["duties"] == 2  # LHR and EGLL: one airport
    assert routes["JFK–LHR"]["meanRisk"] == pytest.approx(
        (r[("P1", 2)] + r[("P2", 2)]) / 2, abs=2e-3
    )
    assert {g["key"] for g in hot["pattern"]} == set(by_pattern)
    assert 'data-testid="hot-reportHour"' in page.text
    search = alice.get(f"/console/rosters/{a}/trips.json", params={"q": "p2"}).json()
    assert [x["reference"] for x in search["trips"]["rows"]] == ["P2"]


def test_months_compared_page_json_and_csv(alice: httpx.Client, months: tuple[str, str]) -> None:
    a, b = months
    ra, rb = risks(alice, a), risks(alice, b)
    body = alice.get("/console/compare.json", params={"a": a, "b": b}).json()
    p = body["pairings"]
    # the day trip moved from 06:00 to 07:00: one pairing duty only in each month
    assert (p["matched"], p["onlyA"], p["onlyB"]) == (4, 1, 1)
    rows = {x["key"]: x for x in p["rows"]}
    back = rows["LHR-JFK-LHR · 10:00 · duty 2"]
    assert back["meanA"] == pytest.approx(ra[("P1", 2)], abs=1e-3)
    assert back["meanB"] == pytest.approx(rb[("P1", 2)], abs=1e-3)
    assert back["meanChange"] == pytest.approx(rb[("P1", 2)] - ra[("P1", 2)], abs=2e-3)
    # P2's trip recurs a week later: matched, its change read from both exports
    same = rows["LGW-JFK-LHR · 10:00 · duty 2"]
    assert same["meanChange"] == pytest.approx(rb[("P2", 2)] - ra[("P2", 2)], abs=2e-3)
    assert sum(x["countA"] for x in body["bands"]) == len(ra)
    assert (body["a"]["token"], body["b"]["token"]) == (a, b)
    page = alice.get("/console/compare", params={"a": a, "b": b})
    assert page.status_code == 200 and 'data-matched="4"' in page.text
    exported = alice.get("/console/compare.csv", params={"a": a, "b": b})
    assert exported.headers["content-type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(exported.text)))
    assert sum(1 for x in lines if x[0] == "pairing duty") == 4
    # the pickers preselect the newest other roster
    picker = alice.get("/console/compare", params={"b": a})
    assert picker.status_code == 200 and f'<option value="{b}" selected' in picker.text


def test_bad_ids_unscored_and_same_roster_are_clear_errors(
    service: LiveService, alice: httpx.Client, months: tuple[str, str]
) -> None:
    a, _ = months
    assert alice.get("/console/rosters/nope/trips").status_code == 404
    missing = alice.get("/console/compare.json", params={"a": a, "b": "nope"})
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    assert missing.json()["detail"] == "No such roster."
    same = alice.get("/console/compare.json", params={"a": a, "b": a})
    assert same.status_code == 400 and "same" in same.json()["detail"]
    assert alice.get("/console/compare.csv", params={"a": a}).status_code == 400
    assert alice.get("/console/compare", params={"a": a, "b": "x" * 500}).status_code == 404
    waiting = processing_upload(service, "acme")
    busy = alice.get("/console/compare.json", params={"a": a, "b": waiting})
    assert busy.status_code == 409 and "not scored yet" in busy.json()["detail"]
    page = alice.get(f"/console/rosters/{waiting}/trips")
    assert page.status_code == 409 and "not scored yet" in page.text


def processing_upload(service: LiveService, operator: str) -> str:
    """A roster the worker is busy with (claimed by another worker for an hour)."""
    from vigil.contract import JobStatus
    from vigil.store import uploads

    with service.runtime.sessions.begin() as session:
        upload = uploads.create_upload(
            session=session, operator=operator, roster_name="busy", roster_text=MONTH_A,
            activity_text="", date_format="dmy", preferred_scale="KSS",
        )  # fmt: skip
        upload.status = JobStatus.PROCESSING
        upload.lease_owner = "elsewhere"
        upload.lease_expires_at = datetime.now(UTC) + timedelta(hours=1)
        return upload.token


def test_operators_never_see_each_others_trips_or_months(
    alice: httpx.Client, bob: httpx.Client, months: tuple[str, str]
) -> None:
    a, b = months
    own = upload_and_wait(bob, MONTH_A, "globex-march")
    assert bob.get(f"/console/rosters/{a}/trips").status_code == 404
    assert bob.get(f"/console/rosters/{a}/trips.json").status_code == 404
    for path in ("/console/compare.json", "/console/compare.csv", "/console/compare"):
        assert bob.get(path, params={"a": a, "b": b}).status_code == 404
        assert bob.get(path, params={"a": own, "b": a}).status_code == 404
        assert alice.get(path, params={"a": a, "b": own}).status_code == 404
    picker = bob.get("/console/compare").text
    assert own in picker and a not in picker and b not in picker


def test_a_trip_and_a_pattern_are_reviewed_from_the_trips_page(
    alice: httpx.Client, months: tuple[str, str]
) -> None:
    import re

    from .conftest import csrf_of

    a, _ = months
    page = alice.get(f"/console/rosters/{a}/trips").text
    labels = re.findall(r'name="kind" value="(trip|pattern)">\s*<input type="hidden" '
                        r'name="label" value="([^"]+)"', page)  # fmt: skip
    trip = next(label for kind, label in labels if kind == "trip" and "P2" in label)
    assert trip.startswith("P2: trip LGW-JFK-LHR, 1 night reporting 2026-03-02T10:00Z")
    assert ("pattern", "LHR-JFK-LHR, 1 night") in labels
    for kind, label, decision in (
        (("trip", trip, "accept")),
        ("pattern", "LHR-JFK-LHR, 1 night", "change"),
    ):
        sent = alice.post(
            "/console/hazards",
            data={
                "csrf_token": csrf_of(page),
                "kind": kind,
                "label": label,
                "decision": decision,
                "reason": "reviewed in the monthly meeting",
                "back": f"/console/rosters/{a}/trips#trips",
            },  # fmt: skip
        )
        assert sent.status_code == 303 and sent.headers["location"].endswith("/trips#trips")
    again = alice.get(f"/console/rosters/{a}/trips").text
    states = re.findall(r'data-review-state="(\w+)"[^>]*>(\w+)<', again)
    assert ("reviewed", "accept") in states and ("reviewed", "change") in states
    assert sum(1 for s, _ in states if s == "open") == len(states) - 2
