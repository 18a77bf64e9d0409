"""``vigil operator list|create``: the tenants that own clients, users and rosters.

Operator names are compared exactly (case and inner spaces count): ``Default`` is not
``default``. ``vigil client create`` and ``vigil user create`` refuse an unknown operator,
naming the known ones, unless given ``--create-operator``; ``vigil serve`` creates the
bootstrap operator ``default`` on first start.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from vigil.cli._identity import DatabaseUrlOption, identity_context

operator_app = typer.Typer(help="Manage operators (tenants).", no_args_is_help=True)

DbUrl = Annotated[str | None, DatabaseUrlOption]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@operator_app.command("list")
def list_operators(as_json: JsonFlag = False, database_url: DbUrl = None) -> None:
    """List operators, oldest first, with their numbers of clients and users."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        clients = repo.list_api_clients(session=ctx.session)
        users = repo.list_console_users(session=ctx.session)
        rows: list[dict[str, Any]] = [
            {
                "name": o.name,
                "clients": sum(c.operator_id == o.id for c in clients),
                "users": sum(u.operator_id == o.id for u in users),
                "created_at": o.created_at.isoformat(),
            }
            for o in repo.list_operators(session=ctx.session)
        ]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for row in rows:
        typer.echo(f"{row['name']}  clients={row['clients']}  users={row['users']}")


@operator_app.command("create")
def create_operator(
    name: Annotated[str, typer.Argument(help="Operator name, used exactly as given.")],
    database_url: DbUrl = None,
) -> None:
    """Create an operator; an existing name is an error."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        try:
            repo.get_or_create_operator(session=ctx.session, name=name, create=False)
        except repo.UnknownOperatorError:
            repo.get_or_create_operator(session=ctx.session, name=name)
        except repo.RepoError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=1) from None
        else:
            typer.echo(f"error: operator {name.strip()!r} exists", err=True)
            raise typer.Exit(code=1)
    typer.echo(f"operator {name.strip()} created")


def register(app: typer.Typer) -> None:
    """Add ``operator`` to the ``vigil`` command."""
    app.add_typer(operator_app, name="operator")
