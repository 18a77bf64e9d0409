"""``vigil keys rotate|list|withdraw``: token signing keys (contract §1)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from vigil.cli._identity import DatabaseUrlOption, identity_context

keys_app = typer.Typer(help="Manage token signing keys.", no_args_is_help=True)

DbUrl = Annotated[str | None, DatabaseUrlOption]


@keys_app.command("rotate")
def rotate(database_url: DbUrl = None) -> None:
    """Make a new signing key; the previous key stays in the JWKS until its tokens expire.

    A running server picks the new key up within 30 s.
    """
    from vigil.auth.keys import rotate_keys
    from vigil.web.wiring import DbKeyStorage

    with identity_context(database_url) as ctx:
        storage = DbKeyStorage(ctx.sessions, ctx.box)
        key_set = rotate_keys(storage, token_lifetime=ctx.settings.token_lifetime)
    typer.echo(f"current key: {key_set.current.kid}")
    for key in key_set.previous:
        typer.echo(f"still published: {key.kid}")


@keys_app.command("withdraw")
def withdraw(
    kid: Annotated[str, typer.Argument(help="Key ID of a retired key (see `vigil keys list`).")],
    database_url: DbUrl = None,
) -> None:
    """Withdraw a retired key at once (e.g. after a compromise): it leaves the JWKS and
    every token it signed stops verifying within 50 s. Rotate first to retire the current
    key."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        try:
            repo.delete_signing_key(session=ctx.session, kid=kid)
        except repo.RepoError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=1) from None
    typer.echo(f"withdrawn: {kid}")


@keys_app.command("list")
def list_keys(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    database_url: DbUrl = None,
) -> None:
    """List signing keys (IDs and dates only)."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        rows = [
            {
                "kid": k.kid,
                "created_at": k.created_at.isoformat(),
                "retired_at": k.retired_at.isoformat() if k.retired_at else None,
            }
            for k in repo.list_signing_keys(session=ctx.session)
        ]
    if as_json:
        typer.echo(json.dumps(rows))
    else:
        for row in rows:
            typer.echo(f"{row['kid']}  created {row['created_at']}  retired {row['retired_at']}")


def register(app: typer.Typer) -> None:
    """Add ``keys`` to the ``vigil`` command."""
    app.add_typer(keys_app, name="keys")
