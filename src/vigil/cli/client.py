"""``vigil client create|list|rotate|disable|enable`` and
``vigil user create|list|disable|enable|delete|reset-password`` (contract §7).

Secrets are printed once on create/rotate (and can be shown again in the console).
Passwords are read from a hidden prompt or standard input, never from the command line
(argv is visible to every local user in ``ps``).
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from vigil.cli._identity import DatabaseUrlOption, identity_context

client_app = typer.Typer(help="Manage OAuth API clients.", no_args_is_help=True)
user_app = typer.Typer(help="Manage operator console users.", no_args_is_help=True)

DbUrl = Annotated[str | None, DatabaseUrlOption]
OperatorFilter = Annotated[str | None, typer.Option("--operator", help="Only this operator.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]
OperatorName = Annotated[
    str,
    typer.Option(
        "--operator",
        help="Operator (tenant) name, compared exactly (case counts); see `vigil operator list`.",
    ),
]
CreateOperator = Annotated[
    bool,
    typer.Option(
        "--create-operator", help="Create the operator if no operator has this exact name."
    ),
]


def _print_rows(rows: list[dict[str, Any]], as_json: bool, *columns: str) -> None:
    """Rows as one JSON array, or one line each: the columns, then enabled/disabled."""
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for row in rows:
        cells = [",".join(v) if isinstance(v := row[c], list) else str(v) for c in columns]
        typer.echo("  ".join([*cells, "disabled" if row["disabled"] else "enabled"]))


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


@client_app.command("create")
def create(
    operator: OperatorName,
    scopes: Annotated[
        str, typer.Option("--scopes", help="'all' or a comma list of fatigue,risk,upload.")
    ] = "all",
    name: Annotated[str, typer.Option("--name", help="Label for listings.")] = "",
    create_operator: CreateOperator = False,
    as_json: JsonFlag = False,
    database_url: DbUrl = None,
) -> None:
    """Register a client of an existing operator and print its ID and secret."""
    from vigil.auth.scopes import ScopeTable, format_kinds, parse_kinds
    from vigil.store import repo

    try:
        kinds = parse_kinds(scopes)
    except ValueError as exc:
        _fail(str(exc))
        return
    with identity_context(database_url) as ctx:
        try:
            client, secret = repo.create_api_client(
                session=ctx.session,
                box=ctx.box,
                operator=operator,
                scopes=format_kinds(kinds),
                name=name,
                create_operator=create_operator,
            )
        except repo.RepoError as exc:
            _fail(str(exc))
            return
        wire = list(ScopeTable(ctx.settings.scope_prefix).names(kinds))
        data = {
            "client_id": client.client_id,
            "client_secret": secret,
            "operator": operator,
            "scopes": wire,
            "token_endpoint": f"{ctx.settings.public_base_url}/connect/token",
        }
    if as_json:
        typer.echo(json.dumps(data))
    else:
        typer.echo(f"client_id:     {data['client_id']}")
        typer.echo(f"client_secret: {data['client_secret']}")
        typer.echo(f"operator:      {operator}")
        typer.echo(f"scopes:        {' '.join(wire)}")


@client_app.command("list")
def list_clients(
    operator: OperatorFilter = None, as_json: JsonFlag = False, database_url: DbUrl = None
) -> None:
    """List clients (never their secrets)."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        rows: list[dict[str, Any]] = [
            {
                "client_id": c.client_id,
                "operator": c.operator.name,
                "scopes": c.scopes.split(),
                "name": c.name,
                "disabled": c.disabled,
                "created_at": c.created_at.isoformat(),
                "rotated_at": c.rotated_at.isoformat() if c.rotated_at else None,
            }
            for c in repo.list_api_clients(session=ctx.session, operator=operator)
        ]
    _print_rows(rows, as_json, "client_id", "operator", "scopes")


@client_app.command("rotate")
def rotate(
    client_id: Annotated[str, typer.Argument(help="Client ID.")],
    as_json: JsonFlag = False,
    database_url: DbUrl = None,
) -> None:
    """Give a client a new secret; the old one stops working at once, and tokens issued
    under it stop verifying within the revocation bound (20 s by default)."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        try:
            secret = repo.rotate_client_secret(
                session=ctx.session, box=ctx.box, client_id=client_id
            )
        except repo.NotFoundError as exc:
            _fail(str(exc))
            return
    if as_json:
        typer.echo(json.dumps({"client_id": client_id, "client_secret": secret}))
    else:
        typer.echo(f"client_secret: {secret}")


def _set_disabled(client_id: str, disabled: bool, database_url: str | None) -> None:
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        try:
            repo.set_client_disabled(session=ctx.session, client_id=client_id, disabled=disabled)
        except repo.NotFoundError as exc:
            _fail(str(exc))
    typer.echo(f"{client_id} {'disabled' if disabled else 'enabled'}")


@client_app.command("disable")
def disable(
    client_id: Annotated[str, typer.Argument(help="Client ID.")], database_url: DbUrl = None
) -> None:
    """Disable a client: no new tokens, and its issued tokens stop verifying within the
    revocation bound (20 s by default; docs/identity.md)."""
    _set_disabled(client_id, True, database_url)


@client_app.command("enable")
def enable(
    client_id: Annotated[str, typer.Argument(help="Client ID.")], database_url: DbUrl = None
) -> None:
    """Re-enable a disabled client."""
    _set_disabled(client_id, False, database_url)


def _read_password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


PasswordStdin = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from standard input.")
]
UsernameArg = Annotated[str, typer.Argument(help="Sign-in name.")]


@user_app.command("create")
def create_user(
    operator: OperatorName,
    username: Annotated[
        str, typer.Option("--username", "--email", help="Sign-in name (an e-mail address works).")
    ],
    password_stdin: PasswordStdin = False,
    create_operator: CreateOperator = False,
    database_url: DbUrl = None,
) -> None:
    """Create a console user of an existing operator (password hashed with argon2id)."""
    from vigil.store import repo

    password = _read_password(password_stdin)
    with identity_context(database_url) as ctx:
        try:
            repo.create_console_user(
                session=ctx.session,
                operator=operator,
                username=username,
                password=password,
                create_operator=create_operator,
            )
        except repo.RepoError as exc:
            _fail(str(exc))
    typer.echo(f"user {username} created for operator {operator}")


@user_app.command("list")
def list_users(
    operator: OperatorFilter = None, as_json: JsonFlag = False, database_url: DbUrl = None
) -> None:
    """List console users (never their password hashes)."""
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        rows: list[dict[str, Any]] = [
            {
                "username": u.username,
                "operator": u.operator.name,
                "disabled": u.disabled,
                "created_at": u.created_at.isoformat(),
            }
            for u in repo.list_console_users(session=ctx.session, operator=operator)
        ]
    _print_rows(rows, as_json, "username", "operator")


def _user_change(username: str, database_url: str | None, change: Any, done: str) -> None:
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        try:
            change(repo, ctx.session)
        except repo.RepoError as exc:
            _fail(str(exc))
    typer.echo(f"user {username} {done}")


@user_app.command("disable")
def disable_user(username: UsernameArg, database_url: DbUrl = None) -> None:
    """Disable a user: signed out at once (sessions deleted), no new sign-in."""
    _user_change(
        username,
        database_url,
        lambda repo, s: repo.set_console_user_disabled(session=s, username=username),
        "disabled",
    )


@user_app.command("enable")
def enable_user(username: UsernameArg, database_url: DbUrl = None) -> None:
    """Re-enable a disabled user."""
    _user_change(
        username,
        database_url,
        lambda repo, s: repo.set_console_user_disabled(
            session=s, username=username, disabled=False
        ),
        "enabled",
    )


@user_app.command("delete")
def delete_user(username: UsernameArg, database_url: DbUrl = None) -> None:
    """Delete a user and their sessions (the operator's clients and rosters stay)."""
    _user_change(
        username,
        database_url,
        lambda repo, s: repo.delete_console_user(session=s, username=username),
        "deleted",
    )


@user_app.command("reset-password")
def reset_password(
    username: UsernameArg, password_stdin: PasswordStdin = False, database_url: DbUrl = None
) -> None:
    """Set a new password (hidden prompt or --password-stdin); ends the user's sessions."""
    password = _read_password(password_stdin)
    _user_change(
        username,
        database_url,
        lambda repo, s: repo.reset_console_password(
            session=s, username=username, password=password
        ),
        "has a new password; their sessions were ended",
    )


def register(app: typer.Typer) -> None:
    """Add ``client`` and ``user`` to the ``vigil`` command."""
    app.add_typer(client_app, name="client")
    app.add_typer(user_app, name="user")
