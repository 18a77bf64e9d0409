"""API clients page (seed §5.2, contract §6): create with scopes, show the secret again,
rotate, disable and enable.

A client of another operator answers 404, as if it did not exist. Secrets appear only
in answers to POST forms (``Cache-Control: no-store``), never in a URL.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse, Response

from vigil.auth.revocation import DOCUMENT_MAX_AGE
from vigil.auth.scopes import ALL_KINDS, ScopeKind, format_kinds
from vigil.store import repo
from vigil.store.crypto import SecretBox
from vigil.store.tables import ApiClient
from vigil.web.console._web import PREFIX, Console, PostConsole, UserConsole
from vigil.web.wiring import kinds_of

router = APIRouter(prefix="/clients")

SCOPE_HELP = {
    ScopeKind.FATIGUE: "ProcessFatigue",
    ScopeKind.RISK: "ProcessFatigueRisk",
    ScopeKind.UPLOAD: "UploadRoster, GetResults, DeleteRoster, ListRosters",
}


def _box(console: Console) -> SecretBox:
    """The secrets' box: the console runs on the identity surface, which always has one."""
    box = console.runtime.box
    assert box is not None, "the console runs only on a surface with the identity tables"
    return box


def own_client(console: Console, client_id: str) -> ApiClient | None:
    """The client if it belongs to the signed-in user's operator, else ``None``."""
    client = repo.get_api_client(session=console.db, client_id=client_id)
    if client is None or client.operator_id != console.operator_id:
        return None
    return client


def _page(
    console: Console,
    *,
    shown: tuple[str, str] | None = None,
    notice: str | None = None,
    error: str | None = None,
    status_code: int = 200,
) -> Response:
    scope_table = console.runtime.scopes
    rows = [
        {
            "client": c,
            "scopes": [scope_table.name(k) for k in ALL_KINDS if k in kinds_of(c.scopes)],
        }
        for c in repo.list_api_clients(session=console.db, operator=console.operator)
    ]
    return console.render(
        "clients.html",
        status_code=status_code,
        rows=rows,
        kinds=[(k.value, scope_table.name(k), SCOPE_HELP[k]) for k in ALL_KINDS],
        shown=shown,
        notice=notice,
        error=error,
        token_url=f"{console.runtime.settings.public_base_url}/connect/token",
    )


@router.get("")
def list_clients(console: UserConsole) -> Response:
    return _page(console)


@router.post("")
def create_client(
    console: PostConsole,
    name: Annotated[str, Form(max_length=200)] = "",
    scope: Annotated[list[str] | None, Form()] = None,
) -> Response:
    """Register a client with the chosen scope kinds and show its secret."""
    try:
        kinds = {ScopeKind(s) for s in scope or []}
    except ValueError:
        kinds = set()
    if not kinds:
        return _page(console, error="Choose at least one scope.", status_code=400)
    client, secret = repo.create_api_client(
        session=console.db,
        box=_box(console),
        operator=console.operator,
        scopes=format_kinds(kinds),
        name=name.strip(),
    )
    console.db.commit()
    return _page(console, shown=(client.client_id, secret), notice="Client created.")


@router.post("/{client_id}/reveal")
def reveal_secret(console: PostConsole, client_id: str) -> Response:
    """Show a client's current secret again (seed §5.2)."""
    client = own_client(console, client_id)
    if client is None:
        return console.not_found("client")
    secret = repo.reveal_client_secret(box=_box(console), client=client)
    return _page(console, shown=(client.client_id, secret))


@router.post("/{client_id}/rotate")
def rotate_secret(console: PostConsole, client_id: str) -> Response:
    """Give the client a new secret; the old one stops working at once."""
    if own_client(console, client_id) is None:
        return console.not_found("client")
    secret = repo.rotate_client_secret(session=console.db, box=_box(console), client_id=client_id)
    console.db.commit()
    bound = round(console.runtime.settings.revocation_ttl + DOCUMENT_MAX_AGE)
    notice = (
        "New secret issued; the old one is void, and tokens issued with it stop working "
        f"within {bound} s."
    )
    return _page(console, shown=(client_id, secret), notice=notice)


def _set_disabled(console: Console, client_id: str, disabled: bool) -> Response:
    if own_client(console, client_id) is None:
        return console.not_found("client")
    repo.set_client_disabled(session=console.db, client_id=client_id, disabled=disabled)
    console.db.commit()
    return console.finish(RedirectResponse(f"{PREFIX}/clients", status_code=303))


@router.post("/{client_id}/disable")
def disable_client(console: PostConsole, client_id: str) -> Response:
    """Refuse new tokens to the client (tokens already issued run out)."""
    return _set_disabled(console, client_id, True)


@router.post("/{client_id}/enable")
def enable_client(console: PostConsole, client_id: str) -> Response:
    return _set_disabled(console, client_id, False)
