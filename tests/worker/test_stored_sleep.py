"""The stored sleep of uploaded rosters: what the scores rest on, exactly."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from vigil.domain import DateFormat
from vigil.results.stored_sleep import (
    KINDS,
    StoredSleep,
    decode_sleep,
    encode_sleep,
    sleep_columns,
)
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.report import sleep_json
from vigil.scoring.service import ScoreRequest, score

from ._rosters import ROSTER

#: P1 sleeps the night before its first duty (given, main) and on its 2nd duty (in flight)
GIVEN = [
    {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-01T22:00:00Z",
        "SleepEnd": "2026-03-02T05:00:00Z",
    },
    {
        "ScheduleName": "P1",
        "SleepStart": "2026-03-03T10:00:00Z",
        "SleepEnd": "2026-03-03T11:00:00Z",
    },
]


def _report(roster: str, sleep: Sequence[Mapping[str, object]] = ()):  # type: ignore[no-untyped-def]
    with np.errstate(invalid="ignore"):
        return score(
            ScoreRequest(roster, DateFormat.DMY, risk=True, include_sleep=True, sleep_data=sleep)
        )


@pytest.fixture(scope="module")
def airline():  # type: ignore[no-untyped-def]
    """Ten crew of the realistic mix: short-haul, augmented long-haul with in-flight rest."""
    return _report(generate_airline_roster(10, 28, seed=5))


def _as_json(sleep: dict[str, list[StoredSleep]]) -> dict[str, list[dict[str, object]]]:
    return {ref: [sleep_json(e.episode()) for e in eps] for ref, eps in sleep.items()}


def test_round_trip_equals_include_sleep_of_the_service(airline) -> None:  # type: ignore[no-untyped-def]
    blob = encode_sleep([sleep_columns(airline.schedules)])
    decoded = decode_sleep(blob)
    assert list(decoded) == [r.reference for r in airline.schedules]
    want = {r.reference: [sleep_json(e) for e in r.sleep] for r in airline.schedules}
    assert _as_json(decoded) == want
    kinds = Counter(e.kind for eps in decoded.values() for e in eps)
    assert kinds["predicted"] > 0 and kinds["inflight"] > 0  # long-haul rests are kept
    assert all(e.start_s < e.end_s for eps in decoded.values() for e in eps)


def test_chunks_concatenate_like_one(airline) -> None:  # type: ignore[no-untyped-def]
    results = airline.schedules
    whole = encode_sleep([sleep_columns(results)])
    parts = encode_sleep([sleep_columns(results[:3]), sleep_columns(results[3:])])
    assert decode_sleep(parts) == decode_sleep(whole)
    joined = encode_sleep([sleep_columns(results[:3])]) + encode_sleep([sleep_columns(results[3:])])
    assert decode_sleep(joined) == decode_sleep(whole)  # segments of chunk tasks, joined
    assert decode_sleep(b"") == {}
    assert decode_sleep(encode_sleep([])) == {}


def test_given_sleep_kinds_and_warm_up_nights() -> None:
    report = _report(ROSTER, GIVEN)
    decoded = decode_sleep(encode_sleep([sleep_columns(report.schedules)]))
    p1 = decoded["P1"]
    assert [e.kind for e in p1 if e.source == "given"] == ["given", "given-inflight"]
    given = [e for e in p1 if e.source == "given"]
    assert (given[0].start_s, given[0].end_s) == (1772402400, 1772427600)  # 22:00-05:00Z
    assert given[0].quality == 1.0 and given[1].contract_kind == "inflight"
    # before the first record: predicted habitual nights (the warm-up), nothing after
    assert all(e.kind == "predicted" for e in p1[: p1.index(given[0])])
    assert {e.source for e in decoded["P2"]} == {"predicted"}  # no records: predicted
    assert _as_json(decoded) == {
        r.reference: [sleep_json(e) for e in r.sleep] for r in report.schedules
    }


def test_every_kind_maps_to_one_contract_pair() -> None:
    pairs = [(source, kind) for _, source, kind in KINDS]
    assert len(set(pairs)) == len(KINDS)
    assert {s for s, _ in pairs} == {"given", "predicted"}
    assert {k for _, k in pairs} == {"main", "nap", "inflight"}


def test_bad_blobs_are_refused() -> None:
    with pytest.raises(ValueError, match="not a Vigil sleep blob"):
        decode_sleep(b"VGS1" + b"\x00" * 8)
    blob = encode_sleep([sleep_columns(_report(ROSTER).schedules)])
    for cut in (5, len(blob) - 1):
        with pytest.raises(ValueError, match="truncated"):
            decode_sleep(blob[:cut])
