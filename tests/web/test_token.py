"""POST /connect/token against a real uvicorn server (contract §1, RFC 6749 §4.4, §5)."""

from __future__ import annotations

import base64
import logging
from typing import TYPE_CHECKING
from urllib.parse import quote_plus

import httpx
import jwt
import pytest

if TYPE_CHECKING:
    from conftest import LiveService

FATIGUE = "svc_fast_safe_api"
RISK = "svc_fast_safe_risk_api"
UPLOAD = "svc_safe_upload_api"
#: a secret with every character the issue names: + / = % : and a space
AWKWARD_SECRET = "a+b/c=d%e:f g%2B h"


def basic(client_id: str, secret: str, *, encode: bool = True) -> str:
    """Authorization header per seed §5.3 (URL-encoded parts) or raw (what libraries send)."""
    if encode:
        client_id, secret = quote_plus(client_id), quote_plus(secret)
    raw = f"{client_id}:{secret}".encode()
    return "Basic " + base64.b64encode(raw).decode()


def post_token(
    service: LiveService, *, auth: str | None = None, data: dict[str, str] | None = None
) -> httpx.Response:
    headers = {"Authorization": auth} if auth else {}
    body = {"grant_type": "client_credentials"} if data is None else data
    return httpx.post(f"{service.base_url}/connect/token", data=body, headers=headers)


def claims_of(service: LiveService, token: str) -> dict[str, object]:
    """Decode with the service's published key (JWKS) and its issuer/audience."""
    jwks = httpx.get(f"{service.base_url}/.well-known/openid-configuration/jwks").json()
    kid = jwt.get_unverified_header(token)["kid"]
    (jwk,) = [k for k in jwks["keys"] if k["kid"] == kid]
    key = jwt.PyJWK(jwk).key
    return jwt.decode(
        token, key, algorithms=["RS256"], audience="vigil", issuer=service.settings.effective_issuer
    )


# --- real client libraries ---------------------------------------------------------------


@pytest.fixture
def loopback_http(monkeypatch: pytest.MonkeyPatch) -> None:
    """oauthlib refuses plain http unless told; the test server is http on 127.0.0.1."""
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")


def test_requests_oauthlib_backend_application_client(
    identity: LiveService, loopback_http: None
) -> None:
    from oauthlib.oauth2 import BackendApplicationClient
    from requests.auth import HTTPBasicAuth
    from requests_oauthlib import OAuth2Session

    client_id, secret = identity.create_client(secret=AWKWARD_SECRET)
    session = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
    token = session.fetch_token(
        token_url=f"{identity.base_url}/connect/token",
        auth=HTTPBasicAuth(client_id, secret),
        scope=[FATIGUE],
    )
    assert token["token_type"] == "Bearer"
    assert token["scope"] == [FATIGUE]  # oauthlib splits the echoed scope
    claims = claims_of(identity, token["access_token"])
    assert claims["client_id"] == client_id and claims["operator"] == "acme"
    # the token works on a guarded route through the same library
    response = session.get(f"{identity.base_url}/probe/fatigue")
    assert response.status_code == 200 and response.json()["client_id"] == client_id


def test_requests_oauthlib_with_client_secret_argument(
    identity: LiveService, loopback_http: None
) -> None:
    """fetch_token(client_secret=...) also sends Basic with unencoded parts."""
    from oauthlib.oauth2 import BackendApplicationClient
    from requests_oauthlib import OAuth2Session

    client_id, secret = identity.create_client(secret=AWKWARD_SECRET)
    session = OAuth2Session(client=BackendApplicationClient(client_id=client_id))
    token = session.fetch_token(
        token_url=f"{identity.base_url}/connect/token",
        client_id=client_id,
        client_secret=secret,
        scope=[RISK, UPLOAD],
    )
    assert token["scope"] == [RISK, UPLOAD]


def test_authlib_requests_session_client_secret_basic(identity: LiveService) -> None:
    from authlib.integrations.requests_client import OAuth2Session

    client_id, secret = identity.create_client(secret=AWKWARD_SECRET)
    with OAuth2Session(
        client_id, secret, token_endpoint_auth_method="client_secret_basic", scope=RISK
    ) as session:
        token = session.fetch_token(
            f"{identity.base_url}/connect/token", grant_type="client_credentials"
        )
    assert token["scope"] == RISK
    assert claims_of(identity, token["access_token"])["scope"] == RISK


# Authlib 1.9 deprecates its httpx integration in favour of httpx2; the client still works
@pytest.mark.filterwarnings("ignore:The httpx module is deprecated")
def test_authlib_httpx_client_secret_basic_and_post(identity: LiveService) -> None:
    from authlib.integrations.httpx_client import OAuth2Client

    client_id, secret = identity.create_client(secret=AWKWARD_SECRET)
    for method in ("client_secret_basic", "client_secret_post"):
        with OAuth2Client(
            client_id, secret, token_endpoint_auth_method=method, scope=UPLOAD
        ) as client:
            token = client.fetch_token(
                f"{identity.base_url}/connect/token", grant_type="client_credentials"
            )
            assert token["scope"] == UPLOAD, method
            assert client.get(f"{identity.base_url}/probe/upload").status_code == 200


# --- success shape -----------------------------------------------------------------------


def test_seed_encoding_success_body_and_headers(identity: LiveService) -> None:
    client_id, secret = identity.create_client(secret=AWKWARD_SECRET)
    response = post_token(
        identity,
        auth=basic(client_id, secret),
        data={"grant_type": "client_credentials", "scope": FATIGUE},
    )
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "scope"}
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600
    header = jwt.get_unverified_header(body["access_token"])
    assert header["alg"] == "RS256" and header["typ"] == "at+jwt" and header["kid"]
    claims = claims_of(identity, body["access_token"])
    # contract §1's claims plus ours, cver (the client's version, for revocation)
    assert set(claims) == {
        "iss", "aud", "sub", "client_id", "scope", "operator", "iat", "nbf", "exp", "jti",
        "cver",
    }  # fmt: skip
    assert claims["cver"] == 0  # a client never rotated nor disabled
    assert claims["sub"] == claims["client_id"] == client_id
    assert claims["exp"] - claims["iat"] == 3600  # type: ignore[operator]


def test_scope_echo_keeps_requested_order(identity: LiveService) -> None:
    client_id, secret = identity.create_client()
    for order in ([UPLOAD, FATIGUE, RISK], [RISK, FATIGUE]):
        response = post_token(
            identity,
            auth=basic(client_id, secret),
            data={"grant_type": "client_credentials", "scope": " ".join(order)},
        )
        assert response.json()["scope"] == " ".join(order)


def test_no_scope_grants_every_held_scope(identity: LiveService) -> None:
    client_id, secret = identity.create_client(scopes="upload fatigue")
    response = post_token(identity, auth=basic(client_id, secret))
    assert response.json()["scope"] == f"{FATIGUE} {UPLOAD}"


def test_generated_secret_works_encoded_and_raw(identity: LiveService) -> None:
    client_id, secret = identity.create_client()
    assert set(secret) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    for encode in (True, False):
        assert post_token(identity, auth=basic(client_id, secret, encode=encode)).status_code == 200


# --- failures (contract §1) --------------------------------------------------------------


@pytest.mark.parametrize("case", ["unknown", "wrong", "disabled", "none"])
def test_invalid_client(identity: LiveService, case: str) -> None:
    from vigil.store import repo

    client_id, secret = identity.create_client()
    if case == "disabled":
        with identity.runtime.sessions.begin() as session:
            repo.set_client_disabled(session=session, client_id=client_id)
    auth = {
        "unknown": basic("nobody", secret),
        "wrong": basic(client_id, secret + "x"),
        "disabled": basic(client_id, secret),
        "none": None,
    }[case]
    response = post_token(identity, auth=auth)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Basic")
    assert response.headers["cache-control"] == "no-store"
    assert response.json()["error"] == "invalid_client"


def test_unsupported_grant_type(identity: LiveService) -> None:
    client_id, secret = identity.create_client()
    response = post_token(identity, auth=basic(client_id, secret), data={"grant_type": "password"})
    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"


@pytest.mark.parametrize("scope", ["svc_nope", UPLOAD, f"{FATIGUE} other_fast_safe_api"])
def test_invalid_scope(identity: LiveService, scope: str) -> None:
    client_id, secret = identity.create_client(scopes="fatigue risk")
    response = post_token(
        identity,
        auth=basic(client_id, secret),
        data={"grant_type": "client_credentials", "scope": scope},
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_scope"


@pytest.mark.parametrize(
    "case", ["long_id", "long_secret", "long_scope", "no_grant", "twice", "json", "bad_b64"]
)
def test_invalid_request(identity: LiveService, case: str) -> None:
    client_id, secret = identity.create_client()
    url = f"{identity.base_url}/connect/token"
    auth = basic(client_id, secret)
    form = "grant_type=client_credentials"
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if case == "long_id":
        auth = basic("i" * 101, secret)  # contract §1: at most 100 characters
    elif case == "long_secret":
        auth = basic(client_id, "s" * 101)
    elif case == "long_scope":
        form += "&scope=" + "+".join([FATIGUE] * 20)  # 359 characters > 300
    elif case == "no_grant":
        form = "scope=" + FATIGUE
    elif case == "twice":
        form += "&grant_type=client_credentials"  # RFC 6749 §3.2
    elif case == "json":
        headers = {"Content-Type": "application/json"}
        form = '{"grant_type": "client_credentials"}'
    elif case == "bad_b64":
        auth = "Basic !!!not-base64!!!"
    response = httpx.post(url, content=form, headers={**headers, "Authorization": auth})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert response.headers["cache-control"] == "no-store"


def test_two_auth_methods_refused(identity: LiveService) -> None:
    client_id, secret = identity.create_client()
    response = post_token(
        identity,
        auth=basic(client_id, secret),
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )
    assert response.status_code == 400 and response.json()["error"] == "invalid_request"


def test_brute_force_429_after_ten_failures(identity: LiveService) -> None:
    victim, secret = identity.create_client()
    bystander, bystander_secret = identity.create_client()
    for _ in range(10):  # contract §8: 10 failures within 5 minutes
        assert post_token(identity, auth=basic(victim, "guess")).status_code == 401
    # from the same address, even the right secret (keyed by source and client)
    refused = post_token(identity, auth=basic(victim, secret))
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 300
    ok = post_token(identity, auth=basic(bystander, bystander_secret))
    assert ok.status_code == 200  # other clients are unaffected


def test_v1_authentication_endpoint_is_gone(identity: LiveService) -> None:
    response = httpx.post(f"{identity.base_url}/authentication", json={"user": "x"})
    assert response.status_code == 410
    assert response.headers["content-type"] == "application/problem+json"
    assert "/connect/token" in response.json()["detail"]


def test_secrets_never_logged(identity: LiveService, caplog: pytest.LogCaptureFixture) -> None:
    client_id, secret = identity.create_client(secret="Sup3r-S3cret-Value")
    caplog.set_level(logging.DEBUG)
    post_token(identity, auth=basic(client_id, secret))
    post_token(identity, auth=basic(client_id, secret + "-wrong"))
    post_token(identity, data={"grant_type": "client_credentials", "client_id": client_id,
                               "client_secret": secret})  # fmt: skip
    assert caplog.records, "the token endpoint logs its decisions"
    text = "\n".join(r.getMessage() + repr(r.args) for r in caplog.records)
    assert client_id in text
    assert secret not in text
