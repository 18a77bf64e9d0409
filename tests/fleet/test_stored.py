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
from vigil.store.tables import RosterResult

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


def test_summary_recorded_once_and_read_lightly(sessions: sessionmaker[Session]) -> None:
    whole = stored_from(KSS, TIMES, RISKS)
    blob = pack([CompactChunk(whole.schedules, whole.matrix)], whole.scales)
    with sessions.begin() as session:
        upload = uploads.create_upload(
            session=session, operator="acme", roster_name="m", roster_text=ROSTER,
            activity_text="", date_format="dmy", preferred_scale="SP", overwrite=False,
        )  # fmt: skip
        session.add(RosterResult(upload_id=upload.id, scores=blob, model_version="1.1.1+x"))
        session.flush()
        job = SimpleNamespace(id=upload.id, roster_text=ROSTER, date_format="dmy",
                              sleep_data=[], activity_text="", preferred_scale="SP")  # fmt: skip
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
