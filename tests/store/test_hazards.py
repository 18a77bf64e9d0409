"""The hazard log's store (migration 0007): append-only, superseding, per operator, and
kept across roster deletion and re-upload; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from vigil.store import hazards, uploads
from vigil.store.db import alembic_config, make_engine, make_session_factory, upgrade
from vigil.store.hazards import DutyIdentity, HazardError, StaleDecisionError
from vigil.store.tables import HazardEntry

REPORT = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
DUTY = DutyIdentity("P1", REPORT, "lhr", "JFK")


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    upgrade(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with make_session_factory(engine).begin() as s:
        yield s


def decide(session: Session, operator: str = "acme", **kw: object) -> int:
    args: dict[str, object] = {
        "session": session,
        "operator": operator,
        "kind": "duty",
        "label": "P1 #1 LHR–JFK",
        "decision": "accept",
        "reason": "within the FRMS envelope",
        "recorded_by": "alice",
        "duty": DUTY,
        "risk": 3.1,
    }
    args.update(kw)
    return hazards.record_decision(**args).id  # type: ignore[arg-type]


def test_duty_key_is_the_stable_identity() -> None:
    assert DUTY.key == "P1|2026-03-01T06:00:00Z|LHR|JFK"
    same = DutyIdentity("P1", REPORT.astimezone(UTC).replace(tzinfo=UTC), "LHR", "jfk")
    assert same.key == DUTY.key
    assert DutyIdentity("P1", REPORT + timedelta(minutes=5), "LHR", "JFK").key != DUTY.key
    with pytest.raises(HazardError):
        hazards.duty_key("P1", datetime(2026, 3, 1, 6, 0), "LHR", "JFK")  # noqa: DTZ001


def test_a_change_supersedes_and_history_is_kept(session: Session) -> None:
    first = decide(session)
    with pytest.raises(StaleDecisionError):  # the reviewer did not see the first entry
        decide(session, decision="change", reason="swap the night")
    second = decide(
        session, decision="mitigate", reason="controlled rest", mitigation="add a pilot", seen=first
    )
    with pytest.raises(StaleDecisionError):  # saw the first, but the second is in force
        decide(session, decision="change", reason="late", seen=first)
    kept = hazards.history(session=session, operator="acme", kind="duty", key=DUTY.key)
    assert [e.id for e in kept] == [second, first]
    assert kept[0].supersedes_id == first and kept[1].supersedes_id is None
    assert (kept[1].decision, kept[1].reason) == ("accept", "within the FRMS envelope")
    current = hazards.current_decisions(
        session=session, operator="acme", kind="duty", keys=[DUTY.key, "P9|x|A|B"]
    )
    assert list(current) == [DUTY.key] and current[DUTY.key].id == second
    assert hazards.superseded_ids(session=session, operator="acme") == {first: second}
    entries, replaced = hazards.list_entries(session=session, operator="acme", state="current")
    assert [e.id for e in entries] == [second] and replaced == {first: second}
    entries, _ = hazards.list_entries(session=session, operator="acme", state="superseded")
    assert [e.id for e in entries] == [first]
    entries, _ = hazards.list_entries(session=session, operator="acme", decision="accept")
    assert [e.id for e in entries] == [first]


def test_bad_decisions_are_refused_with_the_reason(session: Session) -> None:
    for kw, words in [
        ({"decision": "ignore"}, "unknown decision"),
        ({"reason": "  "}, "needs a reason"),
        ({"decision": "mitigate"}, "needs the mitigation"),
        ({"kind": "trip", "label": " ", "duty": None}, "name the trip"),
        ({"kind": "roster", "duty": None}, "unknown subject kind"),
        ({"reason": "x" * 4001}, "at most 4000"),
    ]:
        with pytest.raises(HazardError, match=words):
            decide(session, **kw)
    assert hazards.list_entries(session=session, operator="acme")[0] == []


def test_trips_and_patterns_are_named_subjects(session: Session) -> None:
    one = decide(session, kind="pattern", label="3+ early  starts at MAN", duty=None)
    again = decide(
        session, kind="pattern", label="3+ Early starts at MAN", duty=None, seen=one,
        decision="change", reason="re-pair",
    )  # fmt: skip
    kept = hazards.history(
        session=session, operator="acme", kind="pattern", key="3+ early starts at man"
    )
    assert [e.id for e in kept] == [again, one]
    assert kept[0].reference == "" and kept[0].report_at is None


def test_operators_never_see_each_others_entries(session: Session) -> None:
    mine = decide(session, operator="acme")
    theirs = decide(session, operator="globex", reason="their own reason")
    assert [e.id for e in hazards.list_entries(session=session, operator="acme")[0]] == [mine]
    assert [e.id for e in hazards.list_entries(session=session, operator="globex")[0]] == [theirs]
    found = hazards.current_decisions(
        session=session, operator="acme", kind="duty", keys=[DUTY.key]
    )
    assert found[DUTY.key].id == mine
    assert [e.id for e in hazards.history(
        session=session, operator="globex", kind="duty", key=DUTY.key
    )] == [theirs]  # fmt: skip
    # globex's entry is globex's first: it supersedes nothing of acme's
    assert (
        hazards.history(session=session, operator="globex", kind="duty", key=DUTY.key)[
            0
        ].supersedes_id
        is None
    )
    assert hazards.superseded_ids(session=session, operator="acme") == {}


def test_kept_when_the_roster_is_deleted_and_the_duty_recurs(engine: Engine) -> None:
    sessions = make_session_factory(engine)
    with sessions.begin() as s:
        upload = uploads.create_upload(
            session=s, operator="acme", roster_name="march", roster_text="P1,…"
        )
        token = upload.token
        entry = decide(s, roster_name="march")
    with sessions.begin() as s:  # overwritten: the old roster and its results are deleted
        newer = uploads.create_upload(
            session=s, operator="acme", roster_name="march", roster_text="P1,…", overwrite=True
        )
        assert uploads.get_upload(session=s, operator="acme", token=token) is None
        uploads.delete_upload(session=s, operator="acme", token=newer.token)
    with sessions.begin() as s:
        again = DutyIdentity("P1", REPORT, "LHR", "JFK")
        found = hazards.current_decisions(session=s, operator="acme", kind="duty", keys=[again.key])
        assert found[DUTY.key].id == entry and found[DUTY.key].roster_name == "march"


def test_the_database_refuses_edits_and_deletes(engine: Engine) -> None:
    sessions = make_session_factory(engine)
    with sessions.begin() as s:
        entry = decide(s)
    for sql in (
        "UPDATE hazard_entry SET decision = 'change' WHERE id = :id",
        "DELETE FROM hazard_entry WHERE id = :id",
    ):
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
            conn.execute(text(sql), {"id": entry})
    with sessions() as s:
        kept = hazards.history(session=s, operator="acme", kind="duty", key=DUTY.key)
        assert [(e.id, e.decision) for e in kept] == [(entry, "accept")]


def test_each_subject_is_one_chain(engine: Engine) -> None:
    """A second first entry, or a second successor of one entry, is refused by the
    database itself (what two reviewers deciding at the same instant would write)."""
    sessions = make_session_factory(engine)
    with sessions.begin() as s:
        first = decide(s)
        decide(s, decision="change", reason="r", seen=first)
    for supersedes in (None, first):
        with pytest.raises(IntegrityError), sessions.begin() as s:
            row = s.get(HazardEntry, first)
            assert row is not None
            s.add(
                HazardEntry(
                    operator="acme", subject_kind="duty", subject_key=row.subject_key,
                    subject_label="x", decision="accept", reason="r", recorded_by="eve",
                    recorded_at=row.recorded_at, supersedes_id=supersedes,
                )
            )  # fmt: skip
    with sessions() as s:  # another operator's first entry on the same duty is its own
        assert decide(s, operator="globex") > first


def test_migration_goes_down_and_up_again(engine: Engine) -> None:
    from alembic import command

    command.downgrade(alembic_config(engine), "0006_roster_input")
    assert "hazard_entry" not in inspect(engine).get_table_names()
    upgrade(engine)
    assert "hazard_entry" in inspect(engine).get_table_names()
    with make_session_factory(engine).begin() as s:
        assert decide(s) >= 1
