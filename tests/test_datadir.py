"""The Numba cache is keyed by the kernels' source, and old caches are pruned."""

from __future__ import annotations

import os
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
