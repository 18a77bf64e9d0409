"""TokenVerifier caching and refetch (contract §0, §2); tokens and scopes."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vigil.auth.errors import InvalidTokenError
from vigil.auth.keys import KeySet, generate_key
from vigil.auth.scopes import ScopeKind, ScopeTable, parse_kinds
from vigil.auth.tokens import issue_access_token
from vigil.auth.verify import KeySetUnavailableError, TokenVerifier

KEY_A = generate_key()
KEY_B = generate_key()


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def token(key: Any, **kw: Any) -> str:
    args = dict(
        signing_key=key, issuer="https://id", audience="vigil", client_id="c",
        operator="acme", scopes=["svc_fast_safe_api"], lifetime=3600,
    )  # fmt: skip
    args.update(kw)
    return issue_access_token(**args).access_token


def test_refetch_on_unknown_kid_is_rate_limited() -> None:
    published = {"jwks": KeySet(KEY_A).jwks()}
    clock = Clock()
    verifier = TokenVerifier(
        lambda: published["jwks"], issuer="https://id", audience="vigil",
        min_refresh_interval=10, clock=clock,
    )  # fmt: skip
    assert verifier.verify(token(KEY_A)).operator == "acme"
    assert verifier.fetch_count == 1
    published["jwks"] = KeySet(KEY_B, (KEY_A,)).jwks()  # rotation at the identity server
    with pytest.raises(InvalidTokenError):
        verifier.verify(token(KEY_B))  # too soon after the last fetch: no refetch
    assert verifier.fetch_count == 1
    clock.now = 11
    assert verifier.verify(token(KEY_B)).client_id == "c"
    assert verifier.fetch_count == 2
    for _ in range(5):  # unknown kids cannot hammer the identity server
        with pytest.raises(InvalidTokenError):
            verifier.verify(token(generate_key()))
    assert verifier.fetch_count <= 3


def test_unreachable_jwks() -> None:
    def broken() -> dict[str, Any]:
        raise OSError("down")

    verifier = TokenVerifier(broken, issuer="https://id", audience="vigil")
    with pytest.raises(KeySetUnavailableError):
        verifier.verify(token(KEY_A))


def test_static_verifier_checks_claims() -> None:
    verifier = TokenVerifier.from_jwks(KeySet(KEY_A).jwks(), issuer="https://id", audience="vigil")
    with pytest.raises(InvalidTokenError, match="issuer"):
        verifier.verify(token(KEY_A, issuer="https://other"))
    with pytest.raises(InvalidTokenError, match="audience"):
        verifier.verify(token(KEY_A, audience="x"))


def test_scope_table() -> None:
    table = ScopeTable("frmsc")
    assert table.names() == (
        "frmsc_fast_safe_api",
        "frmsc_fast_safe_risk_api",
        "frmsc_safe_upload_api",
    )  # fmt: skip  (seed §5.5)
    assert table.for_endpoint("GetResults") == "frmsc_safe_upload_api"
    assert table.kind_of("svc_fast_safe_api") is None
    assert parse_kinds("all") == set(ScopeKind)
    assert parse_kinds("fatigue, upload") == {ScopeKind.FATIGUE, ScopeKind.UPLOAD}
    with pytest.raises(ValueError):
        parse_kinds("admin")


# --- remembered tokens: verified once, still checked on every call -------------

#: issue instant of the tokens below; full verification reads the real clock (≈ BASE)
BASE = float(int(time.time()))


def remembering_verifier(published: dict[str, Any], clock: Clock, **kw: Any) -> TokenVerifier:
    verifier = TokenVerifier(
        lambda: published["jwks"], issuer="https://id", audience="vigil", clock=clock, **kw
    )
    verifier.wall_clock = lambda: BASE + clock.now
    return verifier


def test_remembered_token_skips_the_signature_but_not_expiry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from vigil.auth.tokens import verify_access_token

    clock = Clock()
    verifier = remembering_verifier({"jwks": KeySet(KEY_A).jwks()}, clock)
    good = token(KEY_A, now=BASE, lifetime=60)
    calls: list[str] = []

    def counting(tok: str, **kw: Any) -> Any:  # full verification, at the verifier's clock
        calls.append(tok)
        return verify_access_token(tok, now=verifier.wall_clock(), **kw)

    monkeypatch.setattr("vigil.auth.verify.verify_access_token", counting)
    first = verifier.verify(good)
    assert verifier.verify(good) == first == verifier.verify_now(good)
    assert calls == [good]  # verified in full once, then remembered
    # one character of the signature changed: another token, verified in full, refused
    forged = good[:-2] + ("A" if good[-2] != "A" else "B") + good[-1]
    with pytest.raises(InvalidTokenError):
        verifier.verify(forged)
    assert calls == [good, forged]
    clock.now = 60  # exp reached: remembered or not, it is expired
    with pytest.raises(InvalidTokenError, match="expired"):
        verifier.verify(good)
    with pytest.raises(InvalidTokenError, match="expired"):
        verifier.verify_now(good)


def test_remembered_token_is_refused_once_its_key_leaves_the_jwks() -> None:
    published = {"jwks": KeySet(KEY_A).jwks()}
    clock = Clock()
    verifier = remembering_verifier(published, clock, cache_ttl=30)
    old = token(KEY_A, now=BASE)
    assert verifier.verify(old).client_id == "c"
    published["jwks"] = KeySet(KEY_B).jwks()  # KEY_A withdrawn
    clock.now = 31  # the routine refetch
    with pytest.raises(InvalidTokenError, match="unknown key"):
        verifier.verify(old)


def test_unchanged_keys_keep_remembered_tokens_across_a_refetch() -> None:
    published = {"jwks": KeySet(KEY_A).jwks()}
    clock = Clock()
    verifier = remembering_verifier(published, clock, cache_ttl=30)
    tok = token(KEY_A, now=BASE)
    verifier.verify(tok)
    clock.now = 31
    assert verifier.verify(tok).operator == "acme"
    assert verifier.fetch_count == 2
    assert verifier._seen(tok)  # still remembered: the same key object verified it


def test_verify_now_does_no_io() -> None:
    published = {"jwks": KeySet(KEY_A).jwks()}
    clock = Clock()
    verifier = remembering_verifier(published, clock, cache_ttl=30)
    tok = token(KEY_A, now=BASE)
    assert verifier.verify_now(tok) is None  # no keys loaded yet: fetching is I/O
    assert verifier.fetch_count == 0
    assert verifier.verify(tok).client_id == "c"
    assert verifier.verify_now(tok) is not None
    assert verifier.verify_now(token(KEY_B, now=BASE)) is None  # unknown kid
    with pytest.raises(InvalidTokenError, match="malformed"):
        verifier.verify_now("not-a-token")  # refused on the loop, as verify() refuses it
    clock.now = 30  # keys due for a refetch
    assert verifier.verify_now(tok) is None
    assert verifier.fetch_count == 1


def test_remembered_token_is_checked_against_revocation_on_every_call() -> None:
    from vigil.auth.revocation import RevocationChecker, client_key

    clock = Clock()
    document: dict[str, Any] = {"built_at": 0, "clients": {}, "kids": [KEY_A.kid]}
    checker = RevocationChecker(lambda: document, ttl=5, clock=clock)
    verifier = remembering_verifier(
        {"jwks": KeySet(KEY_A).jwks()}, clock, revocations=checker, cache_ttl=300
    )
    tok = token(KEY_A, now=BASE)
    assert verifier.verify(tok).client_id == "c"
    document = {
        "built_at": 0,
        "clients": {client_key("c"): {"version": 0, "disabled": True}},
        "kids": [KEY_A.kid],
    }
    assert verifier.verify_now(tok) is not None  # the list in force still allows it
    clock.now = 5  # the list is refreshed: the disable applies to the remembered token
    assert verifier.verify_now(tok) is None  # refreshing is I/O: not on the loop
    with pytest.raises(InvalidTokenError, match="disabled"):
        verifier.verify(tok)
    with pytest.raises(InvalidTokenError, match="disabled"):
        verifier.verify_now(tok)
