"""``vigil client|user|keys`` commands, and a token with the printed credentials."""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from pathlib import Path

import httpx
import typer
from typer.testing import CliRunner


def run(
    cli: typer.Typer, env: dict[str, str], *args: str, stdin: str | None = None, catch: bool = True
) -> str:
    """Run a command; with ``catch`` (default) it must succeed."""
    result = CliRunner().invoke(cli, list(args), env=env, input=stdin)
    if catch:
        assert result.exit_code == 0, result.output
    return result.output


def test_client_commands_and_token(
    cli: typer.Typer, env: dict[str, str], tmp_path: Path, sqlite_url: str
) -> None:
    from conftest import live_service

    made = json.loads(
        run(
            cli,
            env,
            "client",
            "create",
            "--operator",
            "acme",
            "--create-operator",
            "--scopes",
            "fatigue,risk",
            "--json",
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
        cli,
        ["client", "create", "--operator", "a", "--create-operator", "--scopes", "admin"],
        env=env,
    )
    assert result.exit_code == 1 and "unknown scope kind" in result.output


def test_user_create_password_stdin(cli: typer.Typer, env: dict[str, str]) -> None:
    out = run(
        cli, env, "user", "create", "--operator", "acme", "--create-operator", "--username", "ops",
        "--password-stdin", stdin="long enough password\n",
    )  # fmt: skip
    assert "user ops created" in out
    result = CliRunner().invoke(
        cli,
        [
            "user",
            "create",
            "--operator",
            "acme",
            "--create-operator",
            "--username",
            "ops",
            "--password-stdin",
        ],
        env=env,
        input="another password\n",
    )
    assert result.exit_code == 1 and "exists" in result.output


def test_user_create_takes_an_email_and_refuses_short_passwords(
    cli: typer.Typer, env: dict[str, str]
) -> None:
    # `vigil user create --operator NAME --email ... --password-stdin`
    out = run(
        cli, env, "user", "create", "--operator", "acme", "--create-operator",
        "--email", "planner@acme.example", "--password-stdin", stdin="long enough password\n",
    )  # fmt: skip
    assert "user planner@acme.example created" in out
    result = CliRunner().invoke(
        cli,
        [
            "user",
            "create",
            "--operator",
            "acme",
            "--create-operator",
            "--email",
            "x@acme.example",
            "--password-stdin",
        ],
        env=env,
        input="short\n",
    )
    assert result.exit_code == 1 and "at least 8 characters" in result.output


def test_user_lifecycle_ends_sessions_at_once(
    cli: typer.Typer, env: dict[str, str], tmp_path: Path, sqlite_url: str
) -> None:
    """``vigil user list|disable|enable|delete|reset-password``; a disabled,
    reset or deleted user's console session stops working on the next request."""
    from conftest import live_service
    from console.conftest import embedded_routers, sign_in

    password = "correct horse battery"
    run(cli, env, "user", "create", "--operator", "acme", "--create-operator",
        "--username", "alice", "--password-stdin", stdin=password + "\n")  # fmt: skip
    listed = json.loads(run(cli, env, "user", "list", "--json"))
    assert [(u["username"], u["operator"], u["disabled"]) for u in listed] == [
        ("alice", "acme", False)
    ]
    assert "hash" not in json.dumps(listed) and "argon2" not in json.dumps(listed)

    with (
        ExitStack() as stack,
        live_service(tmp_path, sqlite_url, routers=embedded_routers()) as service,
    ):
        browser = sign_in(service, "alice")
        stack.callback(browser.close)
        assert browser.get("/console/").status_code == 200
        run(cli, env, "user", "disable", "alice")
        assert browser.get("/console/").status_code == 303  # out at once
        assert json.loads(run(cli, env, "user", "list", "--json"))[0]["disabled"] is True
        run(cli, env, "user", "enable", "alice")
        browser = sign_in(service, "alice")
        stack.callback(browser.close)
        new_password = "another long passphrase"
        out = run(cli, env, "user", "reset-password", "alice", "--password-stdin",
                  stdin=new_password + "\n")  # fmt: skip
        assert new_password not in out
        assert browser.get("/console/").status_code == 303  # sessions ended
        page = browser.get("/console/login")
        from console.conftest import csrf_of

        old = browser.post(
            "/console/login",
            data={"username": "alice", "password": password, "csrf_token": csrf_of(page.text)},
        )
        assert old.status_code == 401
        browser = httpx.Client(base_url=service.base_url)
        stack.callback(browser.close)
        page = browser.get("/console/login")
        good = browser.post(
            "/console/login",
            data={"username": "alice", "password": new_password, "csrf_token": csrf_of(page.text)},
        )
        assert good.status_code == 303
        run(cli, env, "user", "delete", "alice")
        assert browser.get("/console/").status_code == 303
    assert json.loads(run(cli, env, "user", "list", "--json")) == []
    missing = CliRunner().invoke(cli, ["user", "disable", "nobody"], env=env)
    assert missing.exit_code == 1 and "no user 'nobody'" in missing.output


def test_reset_password_takes_no_password_argument(cli: typer.Typer, env: dict[str, str]) -> None:
    result = CliRunner().invoke(cli, ["user", "reset-password", "alice", "s3cret-pass"], env=env)
    assert result.exit_code == 2  # usage error: a password on the command line is refused


def test_key_file_readable_by_others_is_refused(
    cli: typer.Typer, env: dict[str, str], tmp_path: Path
) -> None:
    run(cli, env, "client", "list")  # creates the key file, 0600
    key_file = tmp_path / "secret.key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    key_file.chmod(0o644)
    result = CliRunner().invoke(cli, ["client", "list"], env=env)
    assert result.exit_code == 1
    assert str(key_file) in result.output and f"chmod 600 {key_file}" in result.output


def test_withdrawn_key_leaves_jwks_and_its_tokens_stop(
    cli: typer.Typer, env: dict[str, str], tmp_path: Path, sqlite_url: str
) -> None:
    """Every credential can be withdrawn: a retired signing key, at once."""
    import jwt

    from conftest import live_service, probe_router

    made = json.loads(
        run(cli, env, "client", "create", "--operator", "acme", "--create-operator", "--json")
    )
    with live_service(
        tmp_path, sqlite_url, routers=[probe_router()], revocation_ttl=0.2
    ) as service:
        url = f"{service.base_url}/connect/token"
        auth = (made["client_id"], made["client_secret"])
        old = httpx.post(url, data={"grant_type": "client_credentials"}, auth=auth)
        old_token = old.json()["access_token"]
        old_kid = jwt.get_unverified_header(old_token)["kid"]
        current = run(cli, env, "keys", "withdraw", old_kid, catch=False)
        # the current key cannot be withdrawn (the message is wrapped in a box whose line
        # breaks move with the random key ID's length: compare the words, not the lines)
        words = " ".join(re.sub(r"[│╭╮╰╯─]", " ", current).split())
        assert "current key" in words, current
        run(cli, env, "keys", "rotate")
        run(cli, env, "keys", "withdraw", old_kid)
        service.runtime.keyring.key_set(force=True)  # a server reloads within 30 s
        jwks = httpx.get(f"{service.base_url}/.well-known/openid-configuration/jwks").json()
        assert old_kid not in [k["kid"] for k in jwks["keys"]]
        import time

        time.sleep(0.3)  # past the revocation TTL
        probe = httpx.get(
            f"{service.base_url}/probe/fatigue", headers={"Authorization": f"Bearer {old_token}"}
        )
        assert probe.status_code == 401
        fresh = httpx.post(url, data={"grant_type": "client_credentials"}, auth=auth)
        assert fresh.status_code == 200
        token = fresh.json()["access_token"]
        assert jwt.get_unverified_header(token)["kid"] != old_kid
        probe = httpx.get(
            f"{service.base_url}/probe/fatigue", headers={"Authorization": f"Bearer {token}"}
        )
        assert probe.status_code == 200
