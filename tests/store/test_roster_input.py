"""Roster texts apart from the job's state (migration 0006): the migration keeps
every roster, result and setting on SQLite and PostgreSQL, and a progress write no longer
copies the roster text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, MetaData, Table, inspect, select, text
from sqlalchemy.orm import Session, sessionmaker

from vigil.store import uploads
from vigil.store.db import make_engine, make_session_factory, upgrade
from vigil.store.tables import RosterInput, utcnow
from vigil.worker import jobs


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


def _downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    from vigil.store.db import alembic_config

    command.downgrade(alembic_config(engine), revision)


def _old_rows(engine: Engine) -> None:
    """Two uploads at revision 0005, texts in ``roster_upload``; one with a result and a
    settings version (rows that reference the upload with ``ON DELETE CASCADE``)."""
    now = utcnow()
    with engine.begin() as conn:
        meta = MetaData()
        upload, result, settings = (
            Table(name, meta, autoload_with=conn)
            for name in ("roster_upload", "roster_result", "roster_settings")
        )
        for i, (roster, activity, sleep) in enumerate(
            [("R1,01/03/2026", "", "[]"), ("R2\r\nR2b", "A2", '[{"ScheduleName": "R2"}]')], 1
        ):
            conn.execute(
                upload.insert(),
                {
                    "id": i,
                    "token": f"t{i}",
                    "operator": "acme",
                    "roster_name": f"n{i}",
                    "status": "completedsuccessfully" if i == 1 else "queued",
                    "submitted_at": now,
                    "updated_at": now,
                    "roster_text": roster,
                    "activity_text": activity,
                    "sleep_json": sleep,
                    "date_format": "dmy",
                    "preferred_scale": "KSS",
                    "attempts": 1,
                },
            )
        conn.execute(
            result.insert(),
            {
                "upload_id": 1,
                "errors_json": "[]",
                "scores": b"s",
                "model_version": "m",
                "created_at": now,
            },
        )
        conn.execute(settings.insert(), {"upload_id": 1, "settings_version": 3})


def test_migration_moves_texts_and_keeps_every_row(engine: Engine) -> None:
    upgrade(engine, "0005_operator_settings")
    _old_rows(engine)
    upgrade(engine)
    columns = {c["name"] for c in inspect(engine).get_columns("roster_upload")}
    assert not columns & {"roster_text", "activity_text", "sleep_json"}
    sessions = make_session_factory(engine)
    with sessions() as s:
        second = uploads.get_upload(session=s, operator="acme", token="t2")
        assert second is not None
        assert (second.roster_text, second.activity_text, second.sleep_json) == (
            "R2\r\nR2b",
            "A2",
            '[{"ScheduleName": "R2"}]',
        )
        # SQLite's batch mode would have copied roster_upload and dropped it, and the
        # DROP deletes the referencing rows (foreign_keys=ON): these must survive
        assert uploads.get_result(session=s, upload_id=1) is not None
        assert s.execute(text("SELECT settings_version FROM roster_settings")).scalar() == 3
    _downgrade(engine, "0005_operator_settings")
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT roster_text, activity_text, sleep_json FROM roster_upload ORDER BY id")
        ).all()
        assert [tuple(r) for r in rows] == [
            ("R1,01/03/2026", "", "[]"),
            ("R2\r\nR2b", "A2", '[{"ScheduleName": "R2"}]'),
        ]
        assert conn.execute(text("SELECT count(*) FROM roster_result")).scalar() == 1
        assert "roster_input" not in inspect(conn).get_table_names()
    upgrade(engine)  # and up again


def test_deleting_an_upload_deletes_its_texts(engine: Engine) -> None:
    upgrade(engine)
    sessions = make_session_factory(engine)
    with sessions.begin() as s:
        upload = uploads.create_upload(
            session=s, operator="acme", roster_name="x", roster_text="R", activity_text="A"
        )
        token, upload_id = upload.token, upload.id
    with sessions.begin() as s:
        assert uploads.delete_upload(session=s, operator="acme", token=token)
    with sessions() as s:
        assert s.scalar(select(RosterInput).where(RosterInput.upload_id == upload_id)) is None


def _wal_bytes(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_progress_writes_do_not_copy_the_roster(tmp_path: Path) -> None:
    """Each progress write and lease renewal of a 4 MB roster adds a few pages to SQLite's
    write-ahead log, not the roster: with the text in the job's row, SQLite rewrote the
    whole row, 4 MB per write (so 40 MB here)."""
    path = tmp_path / "w.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    sessions: sessionmaker[Session] = make_session_factory(engine)
    with sessions.begin() as s:
        uploads.create_upload(
            session=s, operator="acme", roster_name="big", roster_text="x" * 4_000_000
        )
    with sessions.begin() as s:
        job = jobs.claim(session=s, owner="w", lease_seconds=60)
    assert job is not None and len(job.roster_text) == 4_000_000
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    assert _wal_bytes(path) == 0
    for done in range(5):
        with sessions.begin() as s:
            assert jobs.report_progress(session=s, job=job, done=done, total=10)
        with sessions.begin() as s:
            assert jobs.renew(session=s, job=job, lease_seconds=60)
    assert 0 < _wal_bytes(path) < 400_000
    engine.dispose()
