"""The stored summary and light reads of a result, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np
import pytest
from sqlalchemy.orm import Session, sessionmaker

from reference.vgs1_writer import CompactChunk, pack
from vigil.fleet import stored as fleet_stored
from vigil.results.one import one_schedule
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.db import make_engine, make_session_factory, upgrade
from vigil.store.tables import RosterResult, RosterUpload

from .test_summary import KSS, RISKS, TIMES, stored_from

ROSTER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference,Fleet,Rank\r\n"
)


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    upgrade(engine)
    yield make_session_factory(engine)
    engine.dispose()


def finished_roster(
    session: Session, roster: str, blob: bytes, model_version: str
) -> tuple[RosterUpload, SimpleNamespace]:
    """An upload of ``roster`` (on SP) with its result stored, and its job as the worker's
    summary hook gets it."""
    upload = uploads.create_upload(
        session=session, operator="acme", roster_name="m", roster_text=roster,
        activity_text="", date_format="dmy", preferred_scale="SP", overwrite=False,
    )  # fmt: skip
    session.add(RosterResult(upload_id=upload.id, scores=blob, model_version=model_version))
    session.flush()
    job = SimpleNamespace(id=upload.id, roster_text=roster, date_format="dmy",
                          sleep_data=[], activity_text="", preferred_scale="SP")  # fmt: skip
    return upload, job


def test_summary_recorded_once_and_read_lightly(sessions: sessionmaker[Session]) -> None:
    whole = stored_from(KSS, TIMES, RISKS)
    blob = pack([CompactChunk(whole.schedules, whole.matrix)], whole.scales)
    with sessions.begin() as session:
        upload, job = finished_roster(session, ROSTER, blob, "1.1.1+x")
        fleet_stored.record_summary(session, job, blob, "completedsuccessfully")
        upload_id = upload.id
    with sessions() as session:
        light = results_store.light_result(session, upload_id)
        assert light is not None and light.sleep is None and light.model_version == "1.1.1+x"
        summary = fleet_stored.load(light.summary_json)
        assert summary is not None and summary.preset == "x"
        # the roster text has no rows for A and B: scores are summarised, routes blank
        assert summary.summary["scale"] == "SP" and summary.summary["counts"]["duties"] == 4
        assert summary.summary["topDuties"][0]["risk"] == 3.5
        assert summary.summary["topDuties"][0]["route"] == ""
        read = results_store.scores_reader(session, upload_id)
        from_db, from_bytes = one_schedule(read, "B"), one_schedule(blob, "B")
        assert from_db is not None and from_bytes is not None
        assert from_db.stored.schedules == from_bytes.stored.schedules
        assert np.array_equal(from_db.stored.matrix, from_bytes.stored.matrix)
        assert results_store.light_result(session, upload_id + 1) is None


def test_record_summary_does_nothing_when_the_lease_was_lost(
    sessions: sessionmaker[Session],
) -> None:
    with sessions.begin() as session:
        fleet_stored.record_summary(session, SimpleNamespace(id=1), b"", None)


def test_a_summary_built_from_the_text_equals_one_from_the_schedules() -> None:
    """Built without the worker's route facts (first view, or the summariser), the facts
    come from the columnar reader's arrays: the same summary as from parsed schedules."""
    import orjson

    from vigil.domain import DateFormat
    from vigil.fleet.table import roster_facts
    from vigil.results.compact import StoredScores
    from vigil.roster import parse_request
    from vigil.roster.synthetic import generate_airline_roster
    from vigil.scoring.service import ScoreRequest, score

    text = generate_airline_roster(160, 14, seed=9)  # over COLUMNAR_MIN_LINES rows
    stored = StoredScores.of_results(
        score(ScoreRequest(text, DateFormat.DMY, risk=True)).schedules, ("KSS",)
    )
    parsed = parse_request(text, DateFormat.DMY)
    assert parsed.columns is not None  # the path under test
    from_text = fleet_stored.build(stored, roster_text=text, scale="KSS", model_version="m")
    from_schedules = fleet_stored.build(
        stored, scale="KSS", model_version="m", facts=roster_facts(stored, parsed.schedules)
    )
    assert orjson.loads(from_text) == orjson.loads(from_schedules)
    assert orjson.loads(from_text)["facts"]["start"]  # routes were read
