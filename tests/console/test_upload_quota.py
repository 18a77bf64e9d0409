"""One queue quota for the API and the console (VIGIL_MAX_QUEUED_PER_OPERATOR).

Found by an attack: with a quota of 2 the API refused the third upload, but the console
accepted five more. The quota is now enforced where a roster is stored, so both ways in
count against it and are refused by it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conftest import LiveService, live_service

from .conftest import ROSTER, create_user, embedded_routers, sign_in


@pytest.fixture
def quota_service(tmp_path: Path) -> Iterator[LiveService]:
    """Quota 2; no worker, so every stored roster stays queued."""
    with live_service(
        tmp_path,
        f"sqlite:///{tmp_path / 'vigil.db'}",
        routers=embedded_routers(),
        worker_threads=0,
        max_queued_per_operator=2,
    ) as live:
        yield live


def _console_upload(browser: httpx.Client, name: str) -> httpx.Response:
    page = browser.get("/console/rosters").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    return browser.post(
        "/console/rosters",
        data={"csrf_token": csrf.group(1), "date_format": "dmy", "name": name},
        files={"roster": ("r.csv", ROSTER.encode(), "text/csv")},
    )


def _api_upload(service: LiveService, token: str, name: str) -> httpx.Response:
    return httpx.post(
        f"{service.base_url}/api/UploadRoster",
        json={"RosterData": ROSTER, "DateFormat": "dmy", "RosterName": name},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def test_console_and_api_share_one_quota(quota_service: LiveService) -> None:
    client_id, secret = quota_service.create_client(operator="acme", scopes="upload")
    token = httpx.post(
        f"{quota_service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": "svc_safe_upload_api"},
        auth=(client_id, secret),
    ).json()["access_token"]
    create_user(quota_service, "acme", "alice")
    browser = sign_in(quota_service, "alice")
    try:
        assert _console_upload(browser, "one").status_code == 303
        assert _api_upload(quota_service, token, "two").status_code == 200
        refused = _console_upload(browser, "three")
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "60"
        assert "2 rosters queued or processing" in refused.text
        api = _api_upload(quota_service, token, "four")
        assert api.status_code == 429
        assert api.headers["content-type"] == "application/problem+json"
        listed = browser.get("/console/rosters").text
        assert "one" in listed and "two" in listed and "three" not in listed
    finally:
        browser.close()
    # another operator's quota is its own
    other_id, other_secret = quota_service.create_client(operator="other", scopes="upload")
    other = httpx.post(
        f"{quota_service.base_url}/connect/token",
        data={"grant_type": "client_credentials", "scope": "svc_safe_upload_api"},
        auth=(other_id, other_secret),
    ).json()["access_token"]
    assert _api_upload(quota_service, other, "mine").status_code == 200
