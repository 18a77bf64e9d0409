"""``GET /healthz`` (liveness) and ``GET /readyz`` (database and keys), contract §0."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from vigil.web._runtime import check_ready
from vigil.web.deps import get_runtime
from vigil.web.problems import problem

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="Liveness")
async def healthz() -> dict[str, str]:
    # async: answered on the event loop, no thread-pool hop (liveness must stay
    # fast while anonymous clients load the server)
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="Readiness: database and keys reachable, scoring kernels loaded",
    responses={
        200: {"content": {"application/json": {"example": {"status": "ready"}}}},
        503: {"description": "Not ready yet (e.g. loading the scoring kernels at start)."},
    },
)
def readyz(request: Request) -> Response:
    problems = check_ready(get_runtime(request))
    if problems:
        return problem(503, "; ".join(problems), title="Not ready", headers={"Retry-After": "5"})
    return JSONResponse({"status": "ready"})
