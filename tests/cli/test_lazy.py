"""The CLI loads a command's module only when it runs (a fast ``vigil --help``).

Each check runs in a fresh interpreter, since this test process has long imported
the web stack for other tests; the child reports which modules the command loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from vigil.cli import COMMANDS, create_app, load_commands

ROSTER = "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0\r\n"

# Runs the CLI in-process (so sys.modules can be read afterwards) and prints the
# heavy modules it imported as JSON on the last line.
_CHILD = """
import json, sys
from typer.testing import CliRunner
from vigil.cli import create_app
result = CliRunner().invoke(create_app(), sys.argv[1:])
heavy = sorted(
    m for m in sys.modules
    if m.split(".")[0] in ("fastapi", "starlette", "sqlalchemy", "uvicorn", "jinja2")
    or m.startswith(("vigil.web", "vigil.store", "vigil.worker", "vigil.auth"))
)
print(json.dumps({"exit": result.exit_code, "heavy": heavy}))
"""


def _run(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, check=True
    )
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["validate", "{roster}"],
        ["score", "{roster}", "--risk", "--out", "{out}"],
        ["score", "--help"],
    ],
)
def test_help_score_and_validate_import_no_web_or_database_layer(
    tmp_path: Path, args: list[str]
) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    out = tmp_path / "o.json"
    argv = [a.format(roster=roster, out=out) for a in args]
    report = _run(*argv)
    assert report["exit"] == 0
    assert report["heavy"] == []
    if "--out" in argv:
        assert json.loads(out.read_text())["scheduleScores"][0]["schedule"] == "P1"


def test_client_still_loads_its_own_module() -> None:
    """The harness above can see heavy imports: ``client --help`` must show them."""
    report = _run("client", "--help")
    assert report["exit"] == 0
    heavy = report["heavy"]
    assert isinstance(heavy, list)
    assert any(str(m).startswith(("vigil.web", "vigil.store")) for m in heavy)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_listed_summary_is_the_commands_own(name: str) -> None:
    module, summary = COMMANDS[name]
    group = typer.main.get_group(typer.Typer())
    load_commands(group, module)
    command = group.commands[name]
    assert command.help is not None
    assert command.help.strip().splitlines()[0] == summary


def test_every_command_runs_and_unknown_ones_fail() -> None:
    runner = CliRunner()
    for name in COMMANDS:
        assert runner.invoke(create_app(), [name, "--help"]).exit_code == 0, name
    result = runner.invoke(create_app(), ["nope"])
    assert result.exit_code == 2
    assert "No such command" in result.output
