"""Upload repository on SQLite and PostgreSQL: scoping, overwrite, listing, retention."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from vigil.store import uploads
from vigil.store.db import make_engine, make_session_factory, upgrade
from vigil.store.repo import AlreadyExistsError
from vigil.store.tables import RosterResult, RosterUpload, utcnow


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    upgrade(engine)
    yield make_session_factory(engine)
    engine.dispose()


def test_create_get_list_delete_scoped_by_operator(sessions: sessionmaker[Session]) -> None:
    t0 = utcnow()
    with sessions.begin() as s:
        a = uploads.create_upload(session=s, operator="acme", roster_name="a", roster_text="x")
        b = uploads.create_upload(
            session=s, operator="acme", roster_name="b", roster_text="y", now=t0 + timedelta(1)
        )
        uploads.create_upload(session=s, operator="globex", roster_name="a", roster_text="z")
        tokens = (a.token, b.token)
    assert len(set(tokens)) == 2 and all(len(t) == 32 for t in tokens)
    with sessions() as s:
        found = uploads.get_upload(session=s, operator="acme", token=tokens[0])
        assert found is not None and found.status == "queued" and found.attempts == 0
        assert uploads.get_upload(session=s, operator="globex", token=tokens[0]) is None
        names = [u.roster_name for u in uploads.list_uploads(session=s, operator="acme")]
        assert names == ["b", "a"]  # newest first
    with sessions.begin() as s:
        assert not uploads.delete_upload(session=s, operator="globex", token=tokens[0])
        assert uploads.delete_upload(session=s, operator="acme", token=tokens[0])
    with sessions() as s:
        assert uploads.get_upload(session=s, operator="acme", token=tokens[0]) is None


def test_duplicate_name_and_overwrite(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as s:
        old = uploads.create_upload(session=s, operator="acme", roster_name="w", roster_text="1")
        s.add(RosterResult(upload_id=old.id, scores=b"", model_version="m"))
    with pytest.raises(AlreadyExistsError), sessions.begin() as s:
        uploads.create_upload(session=s, operator="acme", roster_name="w", roster_text="2")
    with sessions.begin() as s:
        new = uploads.create_upload(
            session=s, operator="acme", roster_name="w", roster_text="2", overwrite=True
        )
    with sessions() as s:
        # SQLite may reuse the row id; the old token and the old result are gone
        assert uploads.get_upload(session=s, operator="acme", token=old.token) is None
        assert s.get(RosterResult, new.id) is None
        assert [u.roster_text for u in s.query(RosterUpload)] == ["2"]
        assert uploads.get_upload(session=s, operator="acme", token=new.token) is not None


def test_retention_purges_only_old_finished(sessions: sessionmaker[Session]) -> None:
    now = utcnow()
    with sessions.begin() as s:
        rows = [
            uploads.create_upload(session=s, operator="o", roster_name=n, roster_text="")
            for n in ("old-done", "new-done", "old-queued")
        ]
        rows[0].status, rows[0].finished_at = "completedsuccessfully", now - timedelta(days=40)
        rows[1].status, rows[1].finished_at = "failed", now - timedelta(days=5)
        rows[2].submitted_at = now - timedelta(days=400)
        s.add(RosterResult(upload_id=rows[0].id, scores=b"", model_version="m"))
    with sessions.begin() as s:
        assert uploads.purge_finished_before(session=s, cutoff=now - timedelta(days=30)) == 1
    with sessions() as s:
        left = [u.roster_name for u in uploads.list_uploads(session=s, operator="o")]
        assert sorted(left) == ["new-done", "old-queued"]
