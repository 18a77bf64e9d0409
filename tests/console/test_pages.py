"""Console pages over HTTP (no browser): sign-in, sessions, CSRF, clients, try it, tenancy."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from conftest import LiveService, live_service

from .conftest import PASSWORD, ROSTER, create_user, csrf_of


def test_pages_need_sign_in(service: LiveService) -> None:
    with httpx.Client(base_url=service.base_url) as anon:
        for path in ("/console/", "/console/clients", "/console/rosters", "/console/try"):
            answer = anon.get(path)
            assert answer.status_code == 303
            assert answer.headers["location"].startswith("/console/login?next=/console/")


def test_sign_in_sets_a_hardened_cookie_and_signs_out(service: LiveService) -> None:
    create_user(service, "acme", "alice")
    with httpx.Client(base_url=service.base_url) as client:
        form = client.get("/console/login")
        assert form.status_code == 200
        assert "script-src 'self'" in form.headers["content-security-policy"]
        answer = client.post(
            "/console/login",
            data={
                "username": "alice",
                "password": PASSWORD,
                "csrf_token": csrf_of(form.text),
                "next": "/console/clients",
            },
        )
        assert answer.status_code == 303
        assert answer.headers["location"] == "/console/clients"
        cookie = answer.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/console" in cookie
        assert "secure" not in cookie  # public URL is http://127.0.0.1 here
        home = client.get("/console/")
        assert home.status_code == 200 and "alice · acme" in home.text
        out = client.post("/console/logout", data={"csrf_token": csrf_of(home.text)})
        assert out.status_code == 303
        assert client.get("/console/").status_code == 303


def test_wrong_password_and_open_redirects_are_refused(service: LiveService) -> None:
    create_user(service, "acme", "alice")
    with httpx.Client(base_url=service.base_url) as client:
        token = csrf_of(client.get("/console/login").text)
        bad = client.post(
            "/console/login", data={"username": "alice", "password": "nope", "csrf_token": token}
        )
        assert bad.status_code == 401 and "wrong password" in bad.text
        # each failure issues a new CSRF token (the form carries it)
        fresh = csrf_of(bad.text)
        assert fresh != token
        good = client.post(
            "/console/login",
            data={
                "username": "alice",
                "password": PASSWORD,
                "csrf_token": fresh,
                "next": "https://evil.example/",
            },
        )
        assert good.headers["location"] == "/console/"


def test_sign_in_without_csrf_token_is_refused(service: LiveService) -> None:
    create_user(service, "acme", "alice")
    with httpx.Client(base_url=service.base_url) as client:
        client.get("/console/login")
        answer = client.post("/console/login", data={"username": "alice", "password": PASSWORD})
        assert answer.status_code == 403
        assert client.get("/console/").status_code == 303


def test_post_forms_need_the_session_csrf_token(alice: httpx.Client) -> None:
    answer = alice.post("/console/clients", data={"scope": ["fatigue"], "csrf_token": "forged"})
    assert answer.status_code == 403
    listing = alice.get("/console/clients")
    assert "No clients yet." in listing.text


def test_forged_cookie_is_ignored(service: LiveService, alice: httpx.Client) -> None:
    value = alice.cookies["vigil_console"]
    payload, tag = value.split(".")
    with httpx.Client(base_url=service.base_url) as other:
        other.cookies.set("vigil_console", f"{payload}.{tag[:-2]}AA", path="/console")
        assert other.get("/console/").status_code == 303


def test_client_lifecycle(service: LiveService, alice: httpx.Client) -> None:
    page = alice.get("/console/clients")
    created = alice.post(
        "/console/clients",
        data={"name": "planner", "scope": ["fatigue", "upload"], "csrf_token": csrf_of(page.text)},
    )
    assert created.status_code == 200
    assert created.headers["cache-control"] == "no-store"
    client_id = re.search(r'data-testid="shown-client-id">([^<]+)<', created.text).group(1)
    secret = re.search(r'data-testid="shown-secret">([^<]+)<', created.text).group(1)
    assert "svc_fast_safe_api" in created.text and "svc_safe_upload_api" in created.text
    # the secret works at the token endpoint, with exactly the chosen scopes
    token = httpx.post(
        f"{service.base_url}/connect/token",
        auth=(client_id, secret),
        data={"grant_type": "client_credentials"},
    )
    assert token.status_code == 200
    assert token.json()["scope"].split() == ["svc_fast_safe_api", "svc_safe_upload_api"]
    # shown again
    csrf = csrf_of(created.text)
    revealed = alice.post(f"/console/clients/{client_id}/reveal", data={"csrf_token": csrf})
    assert f'data-testid="shown-secret">{secret}<' in revealed.text
    # rotated: the old secret stops working
    rotated = alice.post(f"/console/clients/{client_id}/rotate", data={"csrf_token": csrf})
    new_secret = re.search(r'data-testid="shown-secret">([^<]+)<', rotated.text).group(1)
    assert new_secret != secret
    old = httpx.post(
        f"{service.base_url}/connect/token",
        auth=(client_id, secret),
        data={"grant_type": "client_credentials"},
    )
    assert old.status_code == 401
    # disabled: no tokens any more, and the list says so
    off = alice.post(f"/console/clients/{client_id}/disable", data={"csrf_token": csrf})
    assert off.status_code == 303
    assert "disabled" in alice.get("/console/clients").text
    refused = httpx.post(
        f"{service.base_url}/connect/token",
        auth=(client_id, new_secret),
        data={"grant_type": "client_credentials"},
    )
    assert refused.status_code == 401


def test_client_needs_a_scope(alice: httpx.Client) -> None:
    csrf = csrf_of(alice.get("/console/clients").text)
    answer = alice.post("/console/clients", data={"name": "x", "csrf_token": csrf})
    assert answer.status_code == 400 and "at least one scope" in answer.text


def test_other_operators_objects_are_404(
    service: LiveService, alice: httpx.Client, bob: httpx.Client
) -> None:
    client_id, _ = service.create_client(operator="acme")
    csrf = csrf_of(bob.get("/console/clients").text)
    assert client_id not in bob.get("/console/clients").text
    for action in ("reveal", "rotate", "disable"):
        answer = bob.post(f"/console/clients/{client_id}/{action}", data={"csrf_token": csrf})
        assert answer.status_code == 404, action
    from vigil.store import uploads

    with service.runtime.sessions.begin() as session:
        token = uploads.create_upload(
            session=session, operator="acme", roster_name="r", roster_text=ROSTER
        ).token
    assert bob.get(f"/console/rosters/{token}").status_code == 404
    assert bob.get(f"/console/rosters/{token}/chart?schedule=P1").status_code == 404
    deleted = bob.post(f"/console/rosters/{token}/delete", data={"csrf_token": csrf})
    assert deleted.status_code == 404
    assert token not in bob.get("/console/rosters").text
    assert token not in bob.get("/console/rosters/status").text
    assert alice.get(f"/console/rosters/{token}").status_code == 200


def test_try_it_scores_through_the_service(alice: httpx.Client) -> None:
    csrf = csrf_of(alice.get("/console/try").text)
    answer = alice.post(
        "/console/try",
        data={"roster": ROSTER, "date_format": "dmy", "scale": "SP", "csrf_token": csrf},
    )
    assert answer.status_code == 200
    assert answer.text.count('data-testid="chart"') == 2  # P1 and P2
    assert 'data-testid="risk-why"' in answer.text  # each duty says what drives its risk
    from vigil.scoring.service import ScoreRequest, score

    report = score(ScoreRequest(ROSTER, scale="SP", risk=True, include_sleep=True))
    p1 = report.to_envelope()["scheduleScores"][0]
    first = re.search(r'"v":\s*\[([^\]]*)\]', answer.text).group(1)
    assert len(first.split(",")) == len(p1["fatigueScores"])


def test_try_it_reports_problems(alice: httpx.Client) -> None:
    csrf = csrf_of(alice.get("/console/try").text)
    empty = alice.post("/console/try", data={"roster": " ", "csrf_token": csrf})
    assert empty.status_code == 400
    bad = "P1,01/03/2026,06:00,XYZ,01/03/2026,09:00,LHR,LHR,0\r\n"
    answer = alice.post("/console/try", data={"roster": bad, "csrf_token": csrf})
    assert answer.status_code == 200
    assert 'data-testid="errors"' in answer.text and "1|P1|" in answer.text


@pytest.mark.parametrize("name", ["console.css", "console.js", "chart.js"])
def test_static_files_ship_in_the_package(service: LiveService, name: str) -> None:
    answer = httpx.get(f"{service.base_url}/console/static/{name}")
    assert answer.status_code == 200 and len(answer.content) > 500


@pytest.mark.parametrize("name", ["..%2Fcharts.py", "charts.py", ".hidden.js", "nope.js"])
def test_static_route_serves_nothing_else(service: LiveService, name: str) -> None:
    assert httpx.get(f"{service.base_url}/console/static/{name}").status_code == 404


def test_cookie_is_secure_behind_https(tmp_path: Path) -> None:
    from .conftest import embedded_routers

    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    with live_service(
        tmp_path,
        url,
        routers=embedded_routers(),
        public_base_url="https://vigil.example",
        worker_threads=0,
    ) as live:
        answer = httpx.get(f"{live.base_url}/console/login")
    cookie = answer.headers["set-cookie"].lower()
    assert "; secure" in cookie and "httponly" in cookie
