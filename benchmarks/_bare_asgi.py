"""The least two ASGI apps can do: answer ``{}`` (``bench_api --floor``).

Served by uvicorn as ``vigil serve`` serves Vigil (same loop, HTTP parser and worker
count, no access log): :func:`app` measures what uvicorn and the sockets alone cost per
request on this machine, the floor under any route of any app; :data:`fastapi_app`, one
``async`` FastAPI route with no middleware, the floor under any FastAPI route.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``200 {}`` to every HTTP request; lifespan and other events are ignored."""
    if scope["type"] != "http":
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")],
        }
    )
    await send({"type": "http.response.body", "body": b"{}"})


fastapi_app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)


@fastapi_app.get("/")
async def root() -> dict[str, str]:
    """``{}``, through FastAPI's routing, dependency solving and JSON response."""
    return {}
