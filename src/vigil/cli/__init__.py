"""The ``vigil`` command line (contract §7).

Each sub-command lives in its own module exposing ``register(app)``; this module only
assembles them, so importing it loads nothing heavy (the commands import lazily).
"""

from __future__ import annotations

import importlib

import typer

#: sub-command modules, in help order; each defines ``register(app: typer.Typer) -> None``
_COMMAND_MODULES: tuple[str, ...] = (
    "vigil.cli.client",
    "vigil.cli.keys",
    "vigil.cli.validate",
    "vigil.cli.score",
    "vigil.cli.serve",
    "vigil.cli.worker",
    "vigil.cli.report",
)


def create_app() -> typer.Typer:
    """Build the Typer application with every registered sub-command."""
    app = typer.Typer(
        name="vigil",
        help="Vigil: open fatigue scoring for airline crews.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def main() -> None:
    """Console-script entry point."""
    create_app()()
