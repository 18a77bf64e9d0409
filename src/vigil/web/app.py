"""ASGI applications (contract §0): one per surface, and the embedded all-in-one.

``create_identity_app(settings)`` serves the identity surface alone;
``create_app(settings)`` is the embedded default that ``vigil serve`` runs: identity at
``/`` plus every router listed in :data:`EMBEDDED_ROUTERS`. To add a surface's routes
to the embedded app, append ``"module:attribute"`` naming an ``APIRouter`` there; to give
a surface its own app, call :func:`make_surface_app` (see docs/identity.md).

The lifespan builds the runtime (engine, migrations, keys, token verifier) and stores
it as ``app.state.vigil``; nothing is built at import time (STYLE §3.10).
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI

from vigil.config.settings import Settings
from vigil.web import docs_ui
from vigil.web._preauth import protected_routes
from vigil.web._runtime import Runtime, start_runtime
from vigil.web.middleware import add_middleware
from vigil.web.problems import install_handlers
from vigil.web.routes import discovery, health, token

#: routers of the identity surface
IDENTITY_ROUTERS: tuple[APIRouter, ...] = (token.router, discovery.router)

#: further routers mounted by :func:`create_app`, as ``"module:attribute"`` (imported lazily)
EMBEDDED_ROUTERS: tuple[str, ...] = (
    "vigil.web.routes.processor:router",
    "vigil.web.routes.upload:router",
    "vigil.web.routes.planner:router",
    "vigil.web.routes.optimise:router",
    "vigil.web.routes.settings:router",
    "vigil.web.routes.observations:router",
    "vigil.web.routes.hazards:router",
    "vigil.web.console.routes:router",
)


#: route prefixes whose surface scores rosters (and so warms the kernels up at start)
SCORING_PATHS = ("/api/Processor/", "/api/UploadRoster")


def _load_router(spec: str) -> APIRouter:
    module_name, _, attribute = spec.partition(":")
    router = getattr(importlib.import_module(module_name), attribute or "router")
    if not isinstance(router, APIRouter):
        raise TypeError(f"{spec} is not an APIRouter")
    return router


def make_surface_app(
    settings: Settings,
    *,
    title: str,
    routers: Sequence[APIRouter],
    identity: bool,
    needs_db: bool | None = None,
) -> FastAPI:
    """Build one ASGI app with the shared lifespan, error handlers, health and limits.

    Parameters
    ----------
    settings : Settings
    title : str
        OpenAPI title.
    routers : sequence of APIRouter
        The surface's routes.
    identity : bool
        Issue tokens here (the identity tables, keys and in-process verification).
    needs_db : bool, optional
        Open the database although not an identity surface (the upload surface).
    """
    routes = [route for router in routers for route in router.routes]
    scores = any(getattr(route, "path", "").startswith(SCORING_PATHS) for route in routes)
    lifespan = _lifespan(settings, identity=identity, needs_db=needs_db, scores=scores)
    # /docs from the package (vigil.web.docs_ui), never a CDN; no ReDoc, no OAuth2 redirect
    app = FastAPI(
        title=title,
        version=_version(),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
        # operation IDs are the route names (get_results, upload_roster, ...): what client
        # generators name their functions after
        generate_unique_id_function=lambda route: route.name,
    )
    install_handlers(app)
    console = any(router.prefix == "/console" for router in routers)
    add_middleware(app, settings, routes=routes, console=console)
    app.include_router(health.router)
    app.include_router(docs_ui.router)
    app.add_api_route("/docs", lambda: docs_ui.docs_page(title), include_in_schema=False)
    for router in routers:
        app.include_router(router)
    _finish_openapi(app, settings, secured=protected_routes(routes))
    return app


def _lifespan(
    settings: Settings, *, identity: bool, needs_db: bool | None, scores: bool
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The surface's lifespan: build the runtime (``app.state.vigil``), warm the scoring
    kernels up on a surface that ``scores`` (``/readyz`` is 503 until they are loaded),
    close the runtime at shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime: Runtime = start_runtime(settings, identity=identity, needs_db=needs_db)
        app.state.vigil = runtime
        if settings.warm_start and scores:
            runtime.start_warm_up()
        else:
            runtime.warm.set()
        try:
            yield
        finally:
            runtime.close()

    return lifespan


def _finish_openapi(
    app: FastAPI, settings: Settings, *, secured: Collection[tuple[str, str]]
) -> None:
    """Publish the finished document (vigil.web.openapi_doc), built once per app;
    ``secured`` are the ``(path, METHOD)`` of the operations that require a scope."""
    from fastapi.openapi.utils import get_openapi

    from vigil.auth.scopes import ScopeTable
    from vigil.web.deps import SECURITY_SCHEMES
    from vigil.web.openapi_doc import API_DESCRIPTION, add_security, finish_document

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=API_DESCRIPTION,
                routes=app.routes,
            )
            add_security(document, secured, SECURITY_SCHEMES)
            app.openapi_schema = finish_document(document, ScopeTable(settings.scope_prefix))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _version() -> str:
    from vigil import __version__

    return str(__version__)


def create_identity_app(settings: Settings) -> FastAPI:
    """The identity surface alone: ``/connect/token``, discovery, JWKS, health."""
    return make_surface_app(
        settings, title="Vigil identity", routers=IDENTITY_ROUTERS, identity=True
    )


def create_app(settings: Settings) -> FastAPI:
    """The embedded default: identity at ``/`` plus every router in :data:`EMBEDDED_ROUTERS`."""
    routers = [*IDENTITY_ROUTERS, *(_load_router(spec) for spec in EMBEDDED_ROUTERS)]
    return make_surface_app(settings, title="Vigil", routers=routers, identity=True)
