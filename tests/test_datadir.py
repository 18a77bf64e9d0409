"""The data directory: created owner-only; Numba caches keyed by kernel source, pruned."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from vigil import datadir


def test_editing_any_kernel_module_starts_a_fresh_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a stand-in package tree: Numba keys a cached kernel by its own file only, so the
    # key must change when a module it inlines from (here model/_clock.py) changes
    fake = tmp_path / "vigil"
    for package in datadir.KERNEL_PACKAGES:
        (fake / package).mkdir(parents=True)
        (fake / package / "kernels.py").write_text("x = 1\n")
    (fake / "model" / "_clock.py").write_text("phase = 0\n")
    monkeypatch.setattr(datadir, "__file__", str(fake / "datadir.py"))
    before = datadir.numba_cache_dir(tmp_path / "data")
    assert before.parent == tmp_path / "data" / "numba-cache"
    assert datadir.numba_cache_dir(tmp_path / "data") == before  # stable while unchanged
    clock = fake / "model" / "_clock.py"
    clock.write_text("phase = 1\n")
    os.utime(clock, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert datadir.numba_cache_dir(tmp_path / "data") != before


def test_only_the_most_recent_caches_are_kept(tmp_path: Path) -> None:
    root = tmp_path / "numba-cache"
    for age, name in enumerate(["a", "b", "c", "d"]):
        (root / name).mkdir(parents=True)
        stamp = time.time() - 1000 * (age + 1)
        os.utime(root / name, (stamp, stamp))
    current = root / "now"
    current.mkdir()
    datadir.prune_kernel_caches(current)
    assert sorted(p.name for p in root.iterdir()) == ["a", "b", "now"]
    datadir.prune_kernel_caches(tmp_path / "absent" / "now")  # no folder yet: nothing to do


def test_a_new_data_directory_is_owner_only_whatever_writes_first(tmp_path: Path) -> None:
    """The kernel cache, created before the database, must not leave the directory that
    holds the database and the secret key readable by others (README: created 0700)."""
    import subprocess
    import sys

    data = tmp_path / "fresh" / "vigil"
    env = {**os.environ, "VIGIL_DATA_DIR": str(data)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-m", "vigil", "operator", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "vigil.db").stat().st_mode) & 0o077 == 0


def test_an_existing_data_directory_keeps_its_mode(tmp_path: Path) -> None:
    given = tmp_path / "given"
    given.mkdir(mode=0o750)
    given.chmod(0o750)
    assert datadir.ensure_data_dir(given) == given
    assert stat.S_IMODE(given.stat().st_mode) == 0o750
