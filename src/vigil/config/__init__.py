"""Service configuration: every ``VIGIL_*`` environment variable is read here, and only here.

Owns: the names, types, defaults and one-line docs of the service's settings. Two kinds:

- :class:`vigil.config.settings.Settings`, the service's settings (database, limits,
  identity, worker pool, Dask ...), one field per ``VIGIL_<FIELD>`` variable, read from the
  environment and an optional env file. Built by an entry point (``vigil serve``, ``vigil
  worker``, the ASGI factory) and passed down; the web service and the upload worker both
  take it from here (STYLE §3.10: nothing is read at import time).
- :data:`LAUNCH_VARIABLES`, read before any settings exist: which surface a server process
  builds (``VIGIL_SURFACE``), the env file (``VIGIL_ENV_FILE``) and the data directory
  (``VIGIL_DATA_DIR``, needed before Numba is imported).

The README's configuration table is rendered from this package
(:func:`vigil.config.reference.markdown_table`, ``scripts/update-config-docs``) and
checked against it by ``tests/test_config.py``; ``tests/test_architecture.py`` fails when
a ``VIGIL_`` variable is read anywhere else.

Layer 1 of docs/architecture.md. May import: ``datadir``; never a package of its own layer
or above. Of libraries, only :mod:`vigil.config.settings` imports pydantic-settings: this
module stays light, the CLI imports it before every command.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DATA_DIR",
    "ENV_FILE",
    "ENV_PREFIX",
    "LAUNCH_VARIABLES",
    "SURFACE",
    "LaunchVariable",
    "default_data_dir",
    "env_file",
    "env_name",
    "pass_to_server_processes",
    "surface",
]

#: prefix of every setting's environment variable
ENV_PREFIX = "VIGIL_"


def env_name(field: str) -> str:
    """The environment variable of a setting: ``database_url`` → ``VIGIL_DATABASE_URL``."""
    return ENV_PREFIX + field.upper()


@dataclass(frozen=True, slots=True)
class LaunchVariable:
    """A variable read before the settings are built."""

    name: str
    default: str
    doc: str


SURFACE = LaunchVariable(
    "VIGIL_SURFACE",
    "all",
    "the surface a server process builds: all, identity, scoring or upload (`vigil serve --only`)",
)
ENV_FILE = LaunchVariable(
    "VIGIL_ENV_FILE",
    "",
    "a file of `VIGIL_*` settings read by every server process (`vigil serve --env-file`); "
    "the environment wins over it",
)
DATA_DIR = LaunchVariable(
    "VIGIL_DATA_DIR",
    "the user data directory (`~/.local/share/vigil` on Linux)",
    "local state: SQLite database, secret key file, Numba kernel cache; also the "
    "`data_dir` setting",
)
#: every variable read outside :class:`vigil.config.settings.Settings`
LAUNCH_VARIABLES: tuple[LaunchVariable, ...] = (SURFACE, ENV_FILE, DATA_DIR)


def surface(environ: Mapping[str, str] = os.environ) -> str:
    """The surface named by ``VIGIL_SURFACE`` (not checked here: the web entry point knows
    the surfaces)."""
    return environ.get(SURFACE.name, SURFACE.default)


def env_file(environ: Mapping[str, str] = os.environ) -> str | None:
    """The env file named by ``VIGIL_ENV_FILE``, or ``None``."""
    return environ.get(ENV_FILE.name) or None


def default_data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where local state lives: ``VIGIL_DATA_DIR``, else the platform's user data directory
    (``~/.local/share/vigil`` on Linux, via platformdirs), never the working directory, so
    a checkout stays clean."""
    given = environ.get(DATA_DIR.name)
    if given:
        return Path(given).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("vigil"))


def pass_to_server_processes(
    environ: MutableMapping[str, str],
    *,
    surface: str,
    env_file: Path | None,
    public_base_url: str,
    forwarded_allow_ips: str | None,
) -> None:
    """Hand ``vigil serve``'s options to the server processes it starts.

    uvicorn builds each process's app from the environment (``vigil.web.entry``), so the
    command's options travel as the variables those processes read: the surface, the env
    file, the public base URL (unless already set) and the trusted proxies (the option
    wins over the variable).
    """
    environ[SURFACE.name] = surface
    if env_file is not None:
        environ[ENV_FILE.name] = str(env_file)
    environ.setdefault(env_name("public_base_url"), public_base_url)
    if forwarded_allow_ips is not None:
        environ[env_name("forwarded_allow_ips")] = forwarded_allow_ips
