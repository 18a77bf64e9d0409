"""``vigil client|user|keys`` commands, and a token with the printed credentials."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import typer
from typer.testing import CliRunner

from vigil.cli import client, keys


@pytest.fixture
def cli() -> typer.Typer:
    app = typer.Typer()
    client.register(app)
    keys.register(app)
    return app


@pytest.fixture
def env(tmp_path: Path, sqlite_url: str) -> dict[str, str]:
    return {"VIGIL_DATABASE_URL": sqlite_url, "VIGIL_DATA_DIR": str(tmp_path)}


def run(cli: typer.Typer, env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(cli, list(args), env=env, input=stdin)
    assert result.exit_code == 0, result.output
    return result.output


def test_client_commands_and_token(
    cli: typer.Typer, env: dict[str, str], tmp_path: Path, sqlite_url: str
) -> None:
    from conftest import live_service

    made = json.loads(
        run(
            cli, env, "client", "create", "--operator", "acme", "--scopes", "fatigue,risk", "--json"
        )
    )
    assert made["scopes"] == ["svc_fast_safe_api", "svc_fast_safe_risk_api"]
    listed = json.loads(run(cli, env, "client", "list", "--json"))
    assert [c["client_id"] for c in listed] == [made["client_id"]]
    assert made["client_secret"] not in json.dumps(listed)  # list never shows secrets
    rotated = json.loads(run(cli, env, "client", "rotate", made["client_id"], "--json"))
    assert rotated["client_secret"] != made["client_secret"]
    run(cli, env, "keys", "rotate")  # first key on an empty database
    assert "still published" in run(cli, env, "keys", "rotate")
    listed_keys = json.loads(run(cli, env, "keys", "list", "--json"))
    assert [k["retired_at"] is None for k in listed_keys] == [False, True]

    with live_service(tmp_path, sqlite_url) as service:  # same data dir -> same key file
        url = f"{service.base_url}/connect/token"
        form = {"grant_type": "client_credentials"}
        auth = (made["client_id"], rotated["client_secret"])
        assert httpx.post(url, data=form, auth=auth).status_code == 200
        old = (made["client_id"], made["client_secret"])
        assert httpx.post(url, data=form, auth=old).status_code == 401
        run(cli, env, "client", "disable", made["client_id"])
        assert httpx.post(url, data=form, auth=auth).status_code == 401


def test_unknown_scope_kind_fails(cli: typer.Typer, env: dict[str, str]) -> None:
    result = CliRunner().invoke(
        cli, ["client", "create", "--operator", "a", "--scopes", "admin"], env=env
    )
    assert result.exit_code == 1 and "unknown scope kind" in result.output


def test_user_create_password_stdin(cli: typer.Typer, env: dict[str, str]) -> None:
    out = run(
        cli, env, "user", "create", "--operator", "acme", "--username", "ops", "--password-stdin",
        stdin="long enough password\n",
    )  # fmt: skip
    assert "user ops created" in out
    result = CliRunner().invoke(
        cli,
        ["user", "create", "--operator", "acme", "--username", "ops", "--password-stdin"],
        env=env,
        input="another password\n",
    )
    assert result.exit_code == 1 and "exists" in result.output


def test_user_create_takes_an_email_and_refuses_short_passwords(
    cli: typer.Typer, env: dict[str, str]
) -> None:
    # issue 8: `vigil user create --operator NAME --email ... --password-stdin`
    out = run(
        cli, env, "user", "create", "--operator", "acme", "--email", "planner@acme.example",
        "--password-stdin", stdin="long enough password\n",
    )  # fmt: skip
    assert "user planner@acme.example created" in out
    result = CliRunner().invoke(
        cli,
        ["user", "create", "--operator", "acme", "--email", "x@acme.example", "--password-stdin"],
        env=env,
        input="short\n",
    )
    assert result.exit_code == 1 and "at least 8 characters" in result.output
