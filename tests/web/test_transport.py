"""Compressed responses, unknown query parameters and the warm start, over HTTP."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import brotli
import httpx
import pytest
import zstandard
from test_upload import FAST, ROSTER, Api, token_for

from vigil.web.routes import processor, upload

if TYPE_CHECKING:
    from conftest import LiveService


@pytest.fixture
def service(tmp_path: Path, sqlite_url: str) -> Iterator[LiveService]:
    from conftest import live_service

    with live_service(tmp_path, sqlite_url, routers=[upload.router], **FAST) as svc:
        yield svc


@pytest.fixture
def api(service: LiveService) -> Iterator[Api]:
    client = Api(service.base_url, token_for(service))
    yield client
    client.http.close()


def _raw(api: Api, path: str, encoding: str) -> httpx.Response:
    """The response bytes as sent (httpx must not decode them: read the raw stream)."""
    request = api.http.build_request("GET", path, headers={"Accept-Encoding": encoding})
    response = api.http.send(request, stream=True)
    response.read_raw = b"".join(response.iter_raw())  # type: ignore[attr-defined]
    response.close()
    return response


DECODERS = {
    "gzip": gzip.decompress,
    "br": brotli.decompress,
    "zstd": lambda data: zstandard.ZstdDecompressor().decompressobj().decompress(data),
}


@pytest.mark.parametrize("encoding", ["gzip", "br", "zstd"])
def test_streamed_scores_are_compressed_as_accepted(api: Api, encoding: str) -> None:
    token = api.upload(ROSTER).json()["rosterToken"]
    assert api.wait(token, timeout=300)["status"] == "completedsuccessfully"
    path = f"/api/GetResults?rosterToken={token}&dataKey=scores"
    plain = api.http.get(path, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    sent = _raw(api, path, encoding)
    assert sent.status_code == 200
    assert sent.headers["content-encoding"] == encoding
    assert "accept-encoding" in sent.headers["vary"].lower()
    body: bytes = sent.read_raw  # type: ignore[attr-defined]
    assert len(body) < len(plain.content)
    assert json.loads(DECODERS[encoding](body)) == plain.json()


def test_server_prefers_zstd_then_br_then_gzip(api: Api) -> None:
    token = api.upload(ROSTER).json()["rosterToken"]
    api.wait(token, timeout=300)
    path = f"/api/GetResults?rosterToken={token}&dataKey=scores"
    assert _raw(api, path, "gzip, br, zstd").headers["content-encoding"] == "zstd"
    assert _raw(api, path, "gzip, br").headers["content-encoding"] == "br"
    assert "content-encoding" not in _raw(api, path, "compress").headers


@pytest.mark.parametrize(
    ("path", "unknown"),
    [
        ("/api/GetResults?rosterToken=x&dataKey=scores&schedul=P1", "schedul"),
        ("/api/ListRosters?limit=5", "limit"),
        ("/api/DeleteRoster?rosterToken=x&force=1", "force"),
    ],
)
def test_unknown_query_parameter_is_a_400_naming_it(api: Api, path: str, unknown: str) -> None:
    method = "DELETE" if "Delete" in path else "GET"
    response = api.http.request(method, path)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert unknown in body["detail"]
    assert body["errors"] == [{"property": unknown, "message": "unknown query parameter"}]


def test_known_query_parameters_in_any_case_still_work(api: Api) -> None:
    token = api.upload(ROSTER).json()["rosterToken"]
    response = api.http.get(f"/api/GetResults?ROSTERTOKEN={token}&datakey=status")
    assert response.status_code == 200 and response.json()["rosterToken"] == token


def test_readyz_waits_for_the_warm_start(tmp_path: Path, sqlite_url: str) -> None:
    from conftest import live_service

    with live_service(tmp_path, sqlite_url, routers=[processor.router], warm_start=True) as service:
        runtime = service.app.state.vigil
        early = httpx.get(f"{service.base_url}/readyz")
        if not runtime.warm.is_set():  # kernels already loaded in this process: no window
            assert early.status_code == 503 and early.headers["retry-after"] == "5"
            assert "warm start" in early.json()["detail"]
        deadline = time.monotonic() + 300
        while not runtime.warm.is_set():
            assert time.monotonic() < deadline, "warm-up did not finish"
            time.sleep(0.1)
        assert httpx.get(f"{service.base_url}/readyz").json() == {"status": "ready"}
