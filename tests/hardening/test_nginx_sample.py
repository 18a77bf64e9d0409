"""The sample nginx configuration of docs/deployment.md agrees with Vigil's own limits.

Found by an attack: the sample capped ``/console/rosters`` at 10 MiB although the console
documents 128 MiB uploads, and nothing stated how many connections one address may hold
(1,030 half-open connections from one client made every other client get 503). The
values are read from the page itself, so the page and the test cannot drift apart; the
last test holds the sample's per-address connection limit open against a real server.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from conftest import LiveService
from vigil.config.settings import Settings

DOC = Path(__file__).parents[2] / "docs" / "deployment.md"


def _nginx() -> str:
    text = DOC.read_text()
    found = re.search(r"```nginx\n(.*?)```", text, re.S)
    assert found, "docs/deployment.md has no nginx sample"
    return found.group(1)


def _location(config: str, path: str) -> str:
    found = re.search(rf"location = {re.escape(path)} \{{(.*?)\n    \}}", config, re.S)
    assert found, f"no location for {path}"
    return found.group(1)


def _mib(value: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([mk]?)", value).groups()  # type: ignore[union-attr]
    return int(number) * {"m": 1024 * 1024, "k": 1024, "": 1}[unit]


def _size(block: str) -> int:
    found = re.search(r"client_max_body_size\s+(\w+);", block)
    assert found
    return _mib(found.group(1))


def test_upload_locations_take_what_vigil_takes_unbuffered() -> None:
    config, settings = _nginx(), Settings.from_mapping({})
    api = _location(config, "/api/UploadRoster")
    console = _location(config, "/console/rosters")
    assert _size(api) >= settings.max_upload_bytes
    # the console form carries the file plus up to 1 MiB of multipart framing and fields
    assert _size(console) >= settings.max_upload_bytes + 1024 * 1024
    for block in (api, console):
        assert "proxy_request_buffering off;" in block  # anonymous bodies refused unread
    assert _size(config) == settings.max_body_bytes  # everywhere else: the sync limit


def test_timeouts_are_no_looser_than_vigils() -> None:
    config, settings = _nginx(), Settings.from_mapping({})
    header = re.search(r"client_header_timeout\s+(\d+)s;", config)
    body = re.search(r"client_body_timeout\s+(\d+)s;", config)
    keepalive = re.search(r"keepalive_timeout\s+(\d+)s;", config)
    assert header and body and keepalive
    assert int(header.group(1)) <= settings.header_timeout
    assert int(body.group(1)) <= settings.body_timeout
    assert int(keepalive.group(1)) <= settings.keep_alive_timeout


def per_address_connections() -> int:
    found = re.search(r"limit_conn\s+vigil_conn\s+(\d+);", _nginx())
    assert found, "the sample sets no per-address connection limit"
    return int(found.group(1))


def test_one_address_holds_a_small_share_of_vigils_connections() -> None:
    settings = Settings.from_mapping({})
    assert per_address_connections() * 50 <= settings.limit_concurrency
    assert "20 of Vigil's `VIGIL_LIMIT_CONCURRENCY`" in DOC.read_text()


def test_one_client_at_the_proxy_limit_leaves_others_served(embedded: LiveService) -> None:
    """What the proxy lets one address hold (``limit_conn``), held half-open against a
    real server, leaves other clients their answers."""
    url = urlsplit(embedded.base_url)
    held = []
    try:
        for _ in range(per_address_connections()):
            sock = socket.create_connection((url.hostname, url.port), timeout=5)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
            held.append(sock)
        for _ in range(5):
            assert httpx.get(f"{embedded.base_url}/healthz", timeout=5).status_code == 200
    finally:
        for sock in held:
            sock.close()
