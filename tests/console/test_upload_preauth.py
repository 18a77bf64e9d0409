"""The console's upload (and every console post) refuses anonymous bodies before reading.

Found by an attack: ``POST /console/rosters`` read anonymous bodies of up to 129 MiB into
the temporary directory before redirecting to the sign-in page (four posts: +393 MiB).
Here an anonymous client announces 100 MiB and sends almost nothing: the answer must
come at once, without waiting for the body.
"""

from __future__ import annotations

import re
import socket
from urllib.parse import urlsplit

import httpx

from conftest import LiveService

from .conftest import ROSTER, create_user, sign_in


def _raw_post(
    service: LiveService, path: str, cookie: str = "", size: int = 100 * 1024 * 1024
) -> bytes:
    url = urlsplit(service.base_url)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\n"
        f"Content-Length: {size}\r\n" + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n--b\r\n"
    )
    with socket.create_connection((url.hostname, url.port), timeout=5) as sock:
        sock.sendall(head.encode())
        return sock.recv(4096)  # a timeout here means the server waited for the body


def test_anonymous_upload_is_refused_before_its_body(service: LiveService) -> None:
    answer = _raw_post(service, "/console/rosters")
    assert answer.startswith(b"HTTP/1.1 303")
    assert b"location: /console/login" in answer.lower()
    assert b"connection: close" in answer.lower()


def test_a_forged_or_stale_cookie_is_anonymous(service: LiveService) -> None:
    for cookie in ("vigil_console=forged.value", "vigil_console="):
        assert _raw_post(service, "/console/rosters", cookie).startswith(b"HTTP/1.1 303")
        small = _raw_post(service, "/console/calibration", cookie, size=5 * 1024 * 1024)
        assert small.startswith(b"HTTP/1.1 303")


def test_signed_in_users_still_upload(service: LiveService) -> None:
    create_user(service, "acme", "alice")
    browser = sign_in(service, "alice")
    try:
        page = browser.get("/console/rosters")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert csrf
        posted = browser.post(
            "/console/rosters",
            data={"csrf_token": csrf.group(1), "date_format": "dmy", "name": "ok"},
            files={"roster": ("r.csv", ROSTER.encode(), "text/csv")},
        )
        assert posted.status_code in (200, 303), posted.text[:300]
        assert "ok" in browser.get("/console/rosters").text
    finally:
        browser.close()
    # the guard keeps the anonymous answer the routes gave: the sign-in page
    anonymous = httpx.post(f"{service.base_url}/console/rosters", data={"x": "y"})
    assert anonymous.status_code == 303
