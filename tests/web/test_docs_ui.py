"""``/docs`` is served from the package, offline, under the console's CSP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from vigil.web.console._web import SECURITY_HEADERS
from vigil.web.routes import processor, upload


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from conftest import live_service

    tmp = tmp_path_factory.mktemp("docs")
    with live_service(
        tmp, f"sqlite:///{tmp / 'v.db'}", routers=[processor.router, upload.router]
    ) as service:
        yield service


def test_page_references_no_external_host_and_no_inline_script(svc: Any) -> None:
    page = httpx.get(svc.base_url + "/docs")
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    assert "//" not in re.sub(r"<!doctype html>", "", page.text, flags=re.I)  # no URL with a host
    refs = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert refs and all(ref.startswith("/docs/static/") for ref in refs), refs
    for body in re.findall(r"<script[^>]*>(.*?)</script>", page.text, flags=re.S):
        assert body.strip() == ""  # every script is a file: CSP script-src 'self' holds
    for ref in refs:
        asset = httpx.get(svc.base_url + ref)
        assert asset.status_code == 200, ref
        assert asset.headers["content-security-policy"]
    bundle = httpx.get(svc.base_url + "/docs/static/swagger-ui-bundle.js")
    assert len(bundle.content) > 500_000  # the real Swagger UI, from the installed wheel
    assert "Apache License" in httpx.get(svc.base_url + "/docs/static/LICENSE").text


@pytest.mark.parametrize(
    "path",
    ["/redoc", "/docs/oauth2-redirect", "/docs/static/index.css", "/docs/static/..%2fLICENSE"],
)
def test_nothing_else_is_served(svc: Any, path: str) -> None:
    assert httpx.get(svc.base_url + path).status_code == 404


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is missing")
def test_swagger_ui_renders_offline_without_csp_violations(svc: Any) -> None:
    from playwright.sync_api import sync_playwright

    host = svc.base_url
    elsewhere: list[str] = []
    console: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()

            def offline(route: Any) -> None:  # the network beyond this server is gone
                if route.request.url.startswith(host):
                    route.continue_()
                else:
                    elsewhere.append(route.request.url)
                    route.abort()

            page.route("**/*", offline)
            page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
            page.goto(host + "/docs")
            page.wait_for_selector(".opblock", timeout=30_000)
            paths = page.locator(".opblock-summary-path").all_inner_texts()
            assert any("/api/UploadRoster" in path for path in paths), paths
            assert len(paths) >= 6  # every operation rendered
        finally:
            browser.close()
    assert elsewhere == []
    assert not [line for line in console if "Content Security Policy" in line], console
