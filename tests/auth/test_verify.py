"""TokenVerifier caching and refetch (contract §0, §2); tokens and scopes."""

from __future__ import annotations

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
