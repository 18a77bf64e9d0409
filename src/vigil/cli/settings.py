"""``vigil settings show|set|history|admin``: an operator's settings (docs/settings.md).

Every ``set`` that changes something records a new settings version with who made it
(``cli:<login>``), when and the ``--note``; ``show --version N`` prints any earlier one.
``admin`` lets a console user change settings in the console.
"""

from __future__ import annotations

import getpass
import json
from typing import Annotated, Any

import typer

from vigil.cli._identity import DatabaseUrlOption, identity_context

settings_app = typer.Typer(help="Show and change an operator's settings.", no_args_is_help=True)

DbUrl = Annotated[str | None, DatabaseUrlOption]
OperatorOpt = Annotated[str, typer.Option("--operator", help="Operator name (exact).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]

#: ``KEY=VALUE`` keys of ``set`` and how their text is read
_NUMERIC = ("crewPrepMinutes", "commuteMinutes", "kpThreshold")
_TEXT = ("preset", "scale")


def _who() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name (containers)
        return "cli"


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def _known_operator(ctx: Any, operator: str) -> None:
    from vigil.store import repo

    try:
        repo.get_or_create_operator(session=ctx.session, name=operator, create=False)
    except repo.RepoError as exc:
        raise _fail(str(exc)) from None


def _parse_assignments(pairs: list[str]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep:
            raise _fail(f"{pair!r} is not KEY=VALUE")
        if key in _NUMERIC:
            changes[key] = value.strip()
        elif key in _TEXT:
            changes[key] = value.strip()
        elif key == "riskBands":
            changes[key] = value.replace(",", " ").split()
        elif key.startswith("warningLevels."):
            levels = changes.setdefault("warningLevels", {})
            levels[key.split(".", 1)[1].upper()] = [v for v in value.split(",") if v.strip()]
        else:
            known = ", ".join([*_NUMERIC, *_TEXT, "riskBands", "warningLevels.<SCALE>"])
            raise _fail(f"unknown setting {key!r}; one of {known}")
    return changes


def _airport_row(text: str) -> dict[str, Any]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) not in (3, 5):
        raise _fail(f"--add-airport takes CODE,NAME,TZ or CODE,NAME,TZ,LAT,LON, got {text!r}")
    row: dict[str, Any] = {"code": parts[0], "name": parts[1], "tz": parts[2]}
    if len(parts) == 5:
        row["lat"], row["lon"] = parts[3], parts[4]
    return row


@settings_app.command("show")
def show(
    operator: OperatorOpt,
    version: Annotated[int | None, typer.Option(help="A settings version.")] = None,
    as_json: JsonFlag = False,
    database_url: DbUrl = None,
) -> None:
    """Print the operator's current settings, or version N."""
    from vigil.store import operator_settings as store

    with identity_context(database_url) as ctx:
        _known_operator(ctx, operator)
        found = (
            store.current_settings(session=ctx.session, operator=operator)
            if version is None
            else store.settings_at(session=ctx.session, operator=operator, version=version)
        )
        if found is None:
            raise _fail(f"operator {operator!r} has no settings version {version}")
    body = {
        "operator": operator,
        "settingsVersion": found.version,
        "changedBy": found.changed_by,
        "changedAt": found.changed_at.isoformat() if found.changed_at else None,
        "note": found.note,
        "modelVersion": found.settings.parameters().model_version,
        "settings": found.settings.to_dict(),
    }
    if as_json:
        typer.echo(json.dumps(body))
        return
    s = found.settings
    typer.echo(f"{operator}: settings version {found.version} ({found.changed_by}, {found.note})")
    typer.echo(f"  modelVersion       {body['modelVersion']}")
    typer.echo(f"  crewPrepMinutes    {s.crew_prep_minutes}")
    typer.echo(f"  commuteMinutes     {s.commute_minutes}")
    typer.echo(f"  preset / scale     {s.preset} / {s.scale}")
    typer.echo(f"  kpThreshold        {s.kp_threshold}")
    for code, levels in sorted(s.warning_levels.items()):
        typer.echo(f"  warning {code:<10} {', '.join(f'{v:g}' for v in levels)}")
    typer.echo(f"  riskBands          {', '.join(f'{v:g}' for v in s.risk_bands)}")
    for a in s.airports:
        typer.echo(f"  airport {a.code:<10} {a.tz}  {a.name}")
    for c in s.calibrated:
        typer.echo(f"  preset  {c.name}: {c.intercept:+.3f} {c.slope:.3f}×KSS on {c.base}")


@settings_app.command("bands")
def bands() -> None:
    """Print the built-in risk bands: R bounds, words and each band's action."""
    from vigil.settings.bands import RISK_BANDS

    for b in RISK_BANDS:
        span = (
            f"R < {b.upper:g}"
            if b.lower == 0
            else (
                f"R >= {b.lower:g}"
                if b.upper == float("inf")
                else f"{b.lower:g} <= R < {b.upper:g}"
            )
        )
        typer.echo(f"{b.words:<11} {span:<14} {b.action}")


@settings_app.command("set")
def set_settings(
    operator: OperatorOpt,
    assignments: Annotated[
        list[str] | None,
        typer.Argument(help="KEY=VALUE, e.g. crewPrepMinutes=90 warningLevels.KSS=7,8"),
    ] = None,
    add_airport: Annotated[
        list[str] | None, typer.Option("--add-airport", help="CODE,NAME,TZ[,LAT,LON]")
    ] = None,
    remove_airport: Annotated[list[str] | None, typer.Option("--remove-airport")] = None,
    note: Annotated[str, typer.Option(help="Why (kept in the history).")] = "",
    database_url: DbUrl = None,
) -> None:
    """Change settings; a change records a new settings version (who, when, note)."""
    from vigil.settings import SettingsError, merge_settings
    from vigil.store import operator_settings as store

    changes = _parse_assignments(assignments or [])
    with identity_context(database_url) as ctx:
        _known_operator(ctx, operator)
        current = store.current_settings(session=ctx.session, operator=operator)
        if add_airport or remove_airport:
            drop = {c.strip().upper() for c in remove_airport or []}
            added = [_airport_row(t) for t in add_airport or []]
            replaced = {str(r["code"]).strip().upper() for r in added}
            rows = [
                r
                for r in current.settings.to_dict()["airports"]
                if r["code"] not in drop | replaced
            ]
            changes["airports"] = rows + added
        if not changes:
            raise _fail("nothing to set: give KEY=VALUE or --add-airport/--remove-airport")
        try:
            new = merge_settings(current.settings, changes)
        except SettingsError as exc:
            for error in exc.errors:
                typer.echo(f"error: {error['property']}: {error['message']}", err=True)
            raise typer.Exit(code=2) from None
        saved = store.save_settings(
            session=ctx.session, operator=operator, settings=new, changed_by=_who(), note=note
        )
    if saved.version == current.version:
        typer.echo(f"{operator}: no change (settings version {saved.version})")
    else:
        typer.echo(f"{operator}: settings version {saved.version}")


@settings_app.command("history")
def history(operator: OperatorOpt, as_json: JsonFlag = False, database_url: DbUrl = None) -> None:
    """Every settings version, newest first: who, when, why."""
    from vigil.store import operator_settings as store

    with identity_context(database_url) as ctx:
        _known_operator(ctx, operator)
        rows = [
            {
                "settingsVersion": v.version,
                "changedBy": v.changed_by,
                "changedAt": v.changed_at.isoformat() if v.changed_at else None,
                "note": v.note,
            }
            for v in store.settings_history(session=ctx.session, operator=operator)
        ]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for row in rows:
        when = row["changedAt"] or "-"
        typer.echo(f"{row['settingsVersion']:>4}  {when:<32} {row['changedBy']}  {row['note']}")


@settings_app.command("admin")
def admin(
    username: Annotated[str, typer.Argument(help="Console user name.")],
    revoke: Annotated[bool, typer.Option("--revoke", help="Withdraw the right.")] = False,
    database_url: DbUrl = None,
) -> None:
    """Let a console user change their operator's settings in the console (or stop)."""
    from vigil.store import operator_settings as store
    from vigil.store import repo

    with identity_context(database_url) as ctx:
        try:
            user = repo.require_console_user(session=ctx.session, username=username)
        except repo.NotFoundError as exc:
            raise _fail(str(exc)) from None
        if revoke:
            store.revoke_admin(session=ctx.session, user_id=user.id)
        else:
            store.grant_admin(session=ctx.session, user_id=user.id)
    typer.echo(f"{username}: {'no longer a' if revoke else 'now a'} settings admin")


def register(app: typer.Typer) -> None:
    """Add ``settings`` to the ``vigil`` command."""
    app.add_typer(settings_app, name="settings")
