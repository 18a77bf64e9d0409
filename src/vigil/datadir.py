"""The service's data directory: database, secret key and Numba cache (issue 15).

Local state never lives in the checkout or the installed package: by default it is the
platform's user data directory (``~/.local/share/vigil`` on Linux, from platformdirs),
and ``VIGIL_DATA_DIR`` moves it. This module imports nothing heavy, so the CLI entry
point can set ``NUMBA_CACHE_DIR`` before any command imports Numba.
"""

from __future__ import annotations

import os
from pathlib import Path

#: prefix of every setting's environment variable
ENV_PREFIX = "VIGIL_"


def default_data_dir() -> Path:
    """Where local state lives unless ``VIGIL_DATA_DIR`` says otherwise.

    The user data directory of the platform (``~/.local/share/vigil`` on Linux, via
    platformdirs), never the working directory, so a checkout stays clean (issue 15).
    """
    import platformdirs

    given = os.environ.get(f"{ENV_PREFIX}DATA_DIR")
    return Path(given).expanduser() if given else Path(platformdirs.user_data_dir("vigil"))


def numba_cache_dir(data_dir: Path) -> Path:
    """Numba's compiled-kernel cache under the data directory (never in the package)."""
    return data_dir / "numba-cache"


def use_numba_cache(data_dir: Path | None = None) -> Path:
    """Point ``NUMBA_CACHE_DIR`` at the data directory unless it is already set.

    Numba reads the variable once, when it is first imported: call this before anything
    imports :mod:`vigil.model` (the CLI entry point does).
    """
    if "NUMBA_CACHE_DIR" not in os.environ:
        os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_dir(data_dir or default_data_dir()))
    return Path(os.environ["NUMBA_CACHE_DIR"])
