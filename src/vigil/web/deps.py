"""``Annotated`` dependencies shared by every router (STYLE §1.5, contract §2).

A route that needs a caller declares::

    from vigil.web.deps import FatiguePrincipal

    @router.post("/api/Processor/ProcessFatigue")
    def process_fatigue(body: ScoreRequest, principal: FatiguePrincipal) -> ...:
        principal.operator  # the tenant, from the token's ``operator`` claim

or, for any scope kind, ``Annotated[Principal, RequireScope(ScopeKind.UPLOAD)]``.

Answers (contract §2): no credentials → 401 ``WWW-Authenticate: Bearer``; a bad token
or bad Basic credentials → 401 ``Bearer error="invalid_token"`` (problem+json); a valid
caller without the scope → 403 with an empty body and ``Bearer
error="insufficient_scope", scope="<needed>"``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, Request
from fastapi.openapi.models import OAuthFlowClientCredentials, OAuthFlows
from fastapi.security import HTTPBasic, HTTPBearer, OAuth2
from fastapi.security.base import SecurityBase
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from vigil.auth.errors import InsufficientScopeError, InvalidTokenError, MissingTokenError
from vigil.auth.scopes import ScopeKind
from vigil.web._runtime import Runtime

#: request-state key holding the :class:`Principal` the pre-authentication middleware
#: checked (:mod:`vigil.web._preauth`)
PRINCIPAL_STATE = "vigil_principal"
#: attribute naming the scope kind on the dependency made by ``RequireScope``
SCOPE_KIND_ATTRIBUTE = "vigil_scope_kind"


def get_runtime(request: Request) -> Runtime:
    """The runtime the lifespan stored on the application."""
    runtime: Runtime = request.app.state.vigil
    return runtime


async def _runtime_dependency(request: Request) -> Runtime:
    """:func:`get_runtime` as a dependency; ``async`` so FastAPI needs no thread for it."""
    return get_runtime(request)


RuntimeDep = Annotated[Runtime, Depends(_runtime_dependency)]


def get_session(runtime: RuntimeDep) -> Iterator[Session]:
    """A session per request, committed when the route returns without error."""
    if runtime.sessions is None:
        raise RuntimeError("this surface has no database")
    with runtime.sessions() as session:
        yield session
        session.commit()


#: ``scope="function"``: the commit runs before the response is sent, so a client that
#: got 204 from DeleteRoster never reads the roster again (with the default, the commit
#: ran after the response and raced the client's next request), and a failing commit
#: answers 503 instead of being lost after a 2xx
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated caller of a scoring or upload endpoint.

    Attributes
    ----------
    client_id : str
        The OAuth client.
    operator : str
        Its tenant; rosters belong to it (contract §2).
    scopes : frozenset of str
        Wire scopes the caller holds for this request.
    via : {"bearer", "basic"}
        How the caller authenticated.
    """

    client_id: str
    operator: str
    scopes: frozenset[str]
    via: Literal["bearer", "basic"] = "bearer"


#: the security schemes listed on every operation that declares :func:`RequireScope`, in
#: this order (contract §2). Documentation only: :func:`RequireScope` reads the
#: ``Authorization`` header itself, so they are not dependencies (each would cost FastAPI a
#: dependency resolution on every call); :func:`vigil.web.openapi_doc.add_security`
#: writes them into the document as FastAPI would have.
SECURITY_SCHEMES: tuple[SecurityBase, ...] = (
    HTTPBearer(auto_error=False, description="Access token from /connect/token"),
    OAuth2(
        flows=OAuthFlows(clientCredentials=OAuthFlowClientCredentials(tokenUrl="/connect/token")),
        auto_error=False,
        description="OAuth 2.0 client credentials (seed §5): client ID and secret at"
        " /connect/token; no scope asks for every scope the client holds.",
    ),
    HTTPBasic(auto_error=False, scheme_name="HTTPBasic", description="Client ID and client secret"),
)


def authenticate(request: Request, runtime: Runtime, needed: str) -> Principal:
    """Authenticate the request and require scope ``needed`` (contract §2). May do I/O
    (Basic credentials, key and revocation refetches): call it off the event loop."""
    return _authenticate(request, runtime, needed, io=True)  # type: ignore[return-value]


def authenticate_now(request: Request, runtime: Runtime, needed: str) -> Principal | None:
    """:func:`authenticate` when it needs no I/O (a bearer token, keys and revocation list
    loaded and fresh), for the event loop; ``None`` when it does (then call
    :func:`authenticate` in a thread). Same answers and errors."""
    return _authenticate(request, runtime, needed, io=False)


def _authenticate(request: Request, runtime: Runtime, needed: str, *, io: bool) -> Principal | None:
    header = request.headers.get("authorization", "").strip()
    scheme, _, credentials = header.partition(" ")
    scheme = scheme.lower()
    if scheme == "bearer":
        token = credentials.strip()
        if not token:
            raise InvalidTokenError("the access token is empty")
        claims = runtime.verifier.verify(token) if io else runtime.verifier.verify_now(token)
        if claims is None:
            return None
        principal = Principal(claims.client_id, claims.operator, frozenset(claims.scopes))
    elif scheme == "basic":
        if not io:
            return None
        who = runtime.basic(header, needed)
        principal = Principal(who.client_id, who.operator, frozenset(who.scopes), "basic")
    else:
        raise MissingTokenError()
    if needed not in principal.scopes:
        raise InsufficientScopeError(needed)
    return principal


def RequireScope(kind: ScopeKind | str) -> Any:  # noqa: N802 - reads as a marker in Annotated
    """A dependency requiring the scope of ``kind`` (``"fatigue"``, ``"risk"``, ``"upload"``).

    Returns
    -------
    fastapi.params.Depends
        Use as ``Annotated[Principal, RequireScope(ScopeKind.RISK)]``.
    """
    scope_kind = ScopeKind(kind)

    async def require(request: Request) -> Principal:
        runtime = get_runtime(request)  # not a sub-dependency: one fewer to solve per call
        needed = runtime.scopes.name(scope_kind)
        # PreAuthMiddleware already checked the header (before the body was read)
        checked = request.scope.get("state", {}).get(PRINCIPAL_STATE)
        if isinstance(checked, Principal) and needed in checked.scopes:
            return checked
        principal = authenticate_now(request, runtime, needed)
        if principal is None:
            principal = await run_in_threadpool(authenticate, request, runtime, needed)
        return principal

    require.__name__ = f"require_{scope_kind.value}_scope"
    setattr(require, SCOPE_KIND_ATTRIBUTE, scope_kind)
    return Depends(require)


FatiguePrincipal = Annotated[Principal, RequireScope(ScopeKind.FATIGUE)]
RiskPrincipal = Annotated[Principal, RequireScope(ScopeKind.RISK)]
UploadPrincipal = Annotated[Principal, RequireScope(ScopeKind.UPLOAD)]
