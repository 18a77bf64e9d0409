"""The ``vigil`` command line (contract §7).

Each sub-command lives in its own module exposing ``register(app)``. This module only
names them: a module is imported when its command runs (or shows its own help), so
``vigil --help``, ``vigil score`` and ``vigil validate`` never load the web stack,
the database layer or another command's dependencies (``--help`` ≤ 0.3 s).
The one-line summaries that ``vigil --help`` lists are kept here for that reason;
``tests/cli/test_lazy.py`` pins them to each command's own docstring.

Layer 10 of docs/architecture.md. May import: ``auth``, ``config``, ``contract``,
``datadir``, ``domain``, ``fleet``, ``gc_pause``, ``model``, ``optimise``, ``planner``,
``plot_text``, ``results``, ``roster``, ``scoring``, ``settings``, ``store``, ``validation``,
``web``, ``worker``; never a package of its own layer or above.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

#: command -> (module defining ``register(app: typer.Typer) -> None``, summary), in help order
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": (
        "vigil.cli.validate",
        "Check a roster: print its errors (row|schedule|message), or a summary.",
    ),
    "score": (
        "vigil.cli.score",
        "Score ROSTER offline: per-15-minute fatigue scores (and risk) for every schedule.",
    ),
    "evaluate": (
        "vigil.cli.evaluate",
        "Evaluate candidate chains: one row of fatigue cost terms per candidate.",
    ),
    "plan-rest": (
        "vigil.cli.plan",
        "Plan the in-flight rest of an augmented duty: best split, equal split, alternatives.",
    ),
    "serve": (
        "vigil.cli.serve",
        "Serve Vigil: identity, scoring and upload surfaces (all on one port by default).",
    ),
    "worker": (
        "vigil.cli.worker",
        "Process uploaded rosters: claim with a lease, score, store the results.",
    ),
    "operator": ("vigil.cli.operator", "Manage operators (tenants)."),
    "client": ("vigil.cli.client", "Manage OAuth API clients."),
    "user": ("vigil.cli.client", "Manage operator console users."),
    "keys": ("vigil.cli.keys", "Manage token signing keys."),
    "settings": ("vigil.cli.settings", "Show and change an operator's settings."),
    "report": ("vigil.cli.report", "Regenerate reports, such as the validation report."),
}


class _LazyGroup(TyperGroup):
    """A Typer group that imports a command's module only when the command is used.

    Typer vendors Click privately (``typer._click``), so the Click types of these
    overrides are not importable: contexts, formatters and commands are typed ``Any``.
    """

    _listing = False  # True while the group's own help lists the commands

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, summary = COMMANDS[cmd_name]
            if self._listing:  # a stand-in with the summary: nothing imported
                return TyperCommand(cmd_name, help=summary, short_help=summary)
            load_commands(self, module)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def load_commands(group: TyperGroup, module: str) -> None:
    """Import ``module`` and add the commands its ``register`` defines to ``group``."""
    app = typer.Typer()
    importlib.import_module(module).register(app)
    for name, command in typer.main.get_group(app).commands.items():
        group.add_command(command, name)


def create_app() -> typer.Typer:
    """Build the Typer application; sub-commands load on first use."""
    app = typer.Typer(
        name="vigil",
        cls=_LazyGroup,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    return app


def _root() -> None:
    """Vigil: open fatigue scoring for airline crews."""


def main() -> None:
    """Console-script entry point."""
    from vigil.config import default_data_dir
    from vigil.datadir import use_numba_cache

    # before any command imports Numba: never cache into the package
    use_numba_cache(default_data_dir())
    create_app()()
