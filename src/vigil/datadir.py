"""The service's data directory: database, secret key and Numba cache.

Local state never lives in the checkout or the installed package: where it lives is
configuration (:func:`vigil.config.default_data_dir`, ``VIGIL_DATA_DIR``); this module
creates it and keeps Numba's cache in it. It imports nothing heavy, so the CLI entry
point can set ``NUMBA_CACHE_DIR`` before any command imports Numba.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

#: the packages whose modules hold Numba kernels (``cache=True``)
KERNEL_PACKAGES = ("model", "scoring")
#: how many kernel caches of other source versions stay beside the current one
KEPT_CACHES = 2


def kernels_key() -> str:
    """A short key of the kernels' source: every module's name, size and mtime.

    Numba checks a cached kernel against its own file's timestamp only, so a kernel whose
    module is unchanged keeps a stale compiled copy of a helper it inlines from another,
    edited module (``model/_clock.py`` into ``model/sleep_gates.py``, for example). Keying
    the whole cache by all kernel modules makes any source change start a fresh cache.
    """
    root = Path(__file__).parent
    digest = hashlib.sha256()
    for package in KERNEL_PACKAGES:
        for module in sorted((root / package).glob("*.py")):
            stat = module.stat()
            digest.update(f"{package}/{module.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def numba_cache_dir(data_dir: Path) -> Path:
    """Numba's compiled-kernel cache under the data directory (never in the package),
    one folder per version of the kernels' source (:func:`kernels_key`)."""
    return data_dir / "numba-cache" / kernels_key()


def prune_kernel_caches(current: Path, keep: int = KEPT_CACHES) -> None:
    """Remove the caches of older kernel sources beside ``current``, keeping the ``keep``
    most recently used, so upgrades and edits don't grow the data directory without end."""
    try:
        others = [p for p in current.parent.iterdir() if p.is_dir() and p != current]
    except OSError:
        return
    others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in others[keep:]:
        shutil.rmtree(stale, ignore_errors=True)


def ensure_data_dir(path: Path) -> Path:
    """Create the data directory owner-only (0700) if it is missing; returns it.

    The mode is set explicitly after creation, so neither the umask nor whichever part of
    the service writes first (the kernel cache, the database, the secret key) decides who
    can read the database and the key. An existing directory keeps the mode its owner
    gave it.
    """
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            return path
        path.chmod(0o700)
    return path


def use_numba_cache(data_dir: Path) -> Path:
    """Point ``NUMBA_CACHE_DIR`` at the data directory unless it is already set.

    Numba reads the variable once, when it is first imported: call this before anything
    imports :mod:`vigil.model` (the CLI entry point does).
    """
    if "NUMBA_CACHE_DIR" not in os.environ:
        cache = numba_cache_dir(ensure_data_dir(data_dir))
        prune_kernel_caches(cache)
        os.environ["NUMBA_CACHE_DIR"] = str(cache)
    return Path(os.environ["NUMBA_CACHE_DIR"])
