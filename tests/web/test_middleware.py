"""The middleware stack of every surface, in the order vigil.web.middleware documents."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from vigil.config.settings import Settings
from vigil.web.app import create_app, create_identity_app
from vigil.web.entry import create_scoring_app

#: outermost first, as the module docstring lists them
STACK = [
    "RequestContextMiddleware",
    "CompressMiddleware",
    "SourceAddressMiddleware",
    "BodySizeLimitMiddleware",
    "ConsoleSignInGuard",
    "PreAuthMiddleware",
]


def _settings(tmp_path: Path) -> Settings:
    return Settings.from_mapping({"data_dir": tmp_path, "max_body_bytes": 4096})


def _stack(app: object) -> list[str]:
    return [m.cls.__name__ for m in app.user_middleware]  # type: ignore[attr-defined]


def test_the_embedded_app_runs_the_documented_stack(tmp_path: Path) -> None:
    assert _stack(create_app(_settings(tmp_path))) == STACK


@pytest.mark.parametrize("build", [create_identity_app, create_scoring_app])
def test_a_surface_without_the_console_has_no_sign_in_guard(tmp_path: Path, build: object) -> None:
    app = build(_settings(tmp_path))  # type: ignore[operator]
    assert _stack(app) == [name for name in STACK if name != "ConsoleSignInGuard"]


def test_a_refusal_below_still_gets_its_request_id(tmp_path: Path) -> None:
    # the body limit (layer 4) answers inside the request-ID layer (layer 1): the refusal
    # carries the caller's ID and is problem+json
    app = create_scoring_app(_settings(tmp_path))

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post(
                "/api/Processor/ProcessFatigue",
                content=b"x" * 5000,
                headers={"X-Request-ID": "abc-123", "Content-Type": "application/json"},
            )

    response = asyncio.run(post())
    assert response.status_code == 413
    assert response.headers["x-request-id"] == "abc-123"
    assert response.headers["content-type"].startswith("application/problem+json")
