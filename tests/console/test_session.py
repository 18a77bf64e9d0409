"""Signed session cookies and CSRF tokens (``vigil.web.console._session``)."""

from __future__ import annotations

from pathlib import Path

from vigil.config.settings import Settings
from vigil.web.console import _session as s

KEY = b"k" * 32


def test_round_trip() -> None:
    session = s.new_session("sid-7", now=1_000)
    assert s.decode(s.encode(session, KEY), KEY, now=1_000 + 60) == session


def test_tampering_and_other_keys_are_rejected() -> None:
    value = s.encode(s.new_session("sid-7", now=1_000), KEY)
    payload, tag = value.split(".")
    forged_payload = s.encode(s.new_session("sid-8", now=1_000), KEY).split(".")[0]
    assert s.decode(f"{forged_payload}.{tag}", KEY, now=1_000) is None
    assert s.decode(value, b"x" * 32, now=1_000) is None
    for junk in ("", "abc", "a.b.c", "!!!.???", None):
        assert s.decode(junk, KEY) is None


def test_signed_in_sessions_expire_anonymous_do_not() -> None:
    user = s.new_session("sid-7", now=0)
    anon = s.new_session(None, now=0)
    late = s.MAX_AGE + 1
    assert s.decode(s.encode(user, KEY), KEY, now=late) is None
    assert s.decode(s.encode(user, KEY), KEY, now=s.MAX_AGE) == user
    assert s.decode(s.encode(anon, KEY), KEY, now=late) == anon


def test_csrf_compare() -> None:
    session = s.new_session()
    assert s.csrf_ok(session, session.csrf)
    assert not s.csrf_ok(session, session.csrf + "x")
    assert not s.csrf_ok(session, "")
    assert not s.csrf_ok(None, session.csrf)
    assert s.signed_out(session).csrf != session.csrf


def test_key_derives_from_secret_key_or_key_file(tmp_path: Path) -> None:
    fernet = "A" * 43 + "="
    from_setting = s.session_key(Settings.from_mapping({"secret_key": f"{fernet},other"}))
    assert len(from_setting) == 32
    assert from_setting != fernet.encode()
    by_file = Settings.from_mapping({"data_dir": str(tmp_path)})
    first = s.session_key(by_file)
    assert (tmp_path / "secret.key").exists()
    assert s.session_key(by_file) == first != from_setting
