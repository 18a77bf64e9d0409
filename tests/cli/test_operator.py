"""``vigil operator list|create`` and explicit operators on client/user create."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner


def invoke(cli: typer.Typer, env: dict[str, str], *args: str, stdin: str | None = None) -> object:
    return CliRunner().invoke(cli, list(args), env=env, input=stdin)


def test_unknown_operator_is_refused_naming_the_known_ones(
    cli: typer.Typer, env: dict[str, str]
) -> None:
    made = invoke(cli, env, "operator", "create", "default")
    assert made.exit_code == 0, made.output  # type: ignore[attr-defined]
    # "Default" is not "default": names are compared exactly, and nothing is created
    refused = invoke(cli, env, "client", "create", "--operator", "Default")
    assert refused.exit_code == 1  # type: ignore[attr-defined]
    output = refused.output  # type: ignore[attr-defined]
    assert "no operator 'Default'" in output and "'default'" in output and "exactly" in output
    user = invoke(
        cli, env, "user", "create", "--operator", "Default", "--username", "ops",
        "--password-stdin", stdin="long enough password\n",
    )  # fmt: skip
    assert user.exit_code == 1 and "'default'" in user.output  # type: ignore[attr-defined]
    listed = invoke(cli, env, "operator", "list", "--json")
    names = [row["name"] for row in json.loads(listed.output)]  # type: ignore[attr-defined]
    assert names == ["default"]


def test_create_operator_flag_and_listing_counts(cli: typer.Typer, env: dict[str, str]) -> None:
    ok = invoke(cli, env, "client", "create", "--operator", "acme", "--create-operator")
    assert ok.exit_code == 0, ok.output  # type: ignore[attr-defined]
    again = invoke(cli, env, "client", "create", "--operator", "acme")  # exists now
    assert again.exit_code == 0, again.output  # type: ignore[attr-defined]
    rows = json.loads(invoke(cli, env, "operator", "list", "--json").output)  # type: ignore[attr-defined]
    assert [(r["name"], r["clients"], r["users"]) for r in rows] == [("acme", 2, 0)]
    text = invoke(cli, env, "operator", "list").output  # type: ignore[attr-defined]
    assert "acme  clients=2  users=0" in text


def test_creating_an_existing_operator_is_an_error(cli: typer.Typer, env: dict[str, str]) -> None:
    assert invoke(cli, env, "operator", "create", "acme").exit_code == 0  # type: ignore[attr-defined]
    second = invoke(cli, env, "operator", "create", "acme")
    assert second.exit_code == 1 and "exists" in second.output  # type: ignore[attr-defined]
