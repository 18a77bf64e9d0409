"""The warm start runs every compiled path (first call after /readyz ≤ 1 s).

Measured as Numba signatures: after :func:`warm_kernels`, scoring rosters of every kind
(the realistic mix at several sizes, given sleep, activities, with and without risk)
compiles nothing new, so no request after ``/readyz`` waits for the compiler.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest

import vigil.model
from vigil.domain import DateFormat
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest, score
from vigil.scoring.warm import (
    WARM_ACTIVITY,
    WARM_GROUPS,
    WARM_ROSTER,
    WARM_SLEEP,
    warm_group,
    warm_kernels,
)


def _signatures() -> dict[str, int]:
    import importlib
    import pkgutil

    found: dict[str, int] = {}
    for info in pkgutil.iter_modules(vigil.model.__path__):
        module = importlib.import_module(f"vigil.model.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, numba.core.registry.CPUDispatcher):
                found[f"{info.name}.{name}"] = len(value.signatures)
    return found


def test_nothing_compiles_after_the_warm_start() -> None:
    warm_kernels()
    before = _signatures()
    # the kernels called from Python ran (kernels called only from other kernels are
    # compiled into their callers and keep no signature of their own)
    assert sum(before.values()) >= 2
    month = generate_airline_roster(300, 28, seed=7)
    with np.errstate(invalid="ignore"):
        for request in (
            ScoreRequest(month, DateFormat.DMY, risk=True),
            ScoreRequest(month, DateFormat.MDY, risk=False, extra_scales=SCALE_CODES),
            ScoreRequest(generate_airline_roster(3, 7, seed=2), DateFormat.DMY, risk=True),
            ScoreRequest(
                WARM_ROSTER,
                DateFormat.DMY,
                sleep_data=WARM_SLEEP[:1],
                activity_text=WARM_ACTIVITY,
                include_sleep=True,
            ),
        ):
            score(request)
    assert _signatures() == before


def test_the_warm_up_month_takes_the_large_roster_paths() -> None:
    """Polars' cell splitter and the parallel kernels start up in the warm-up (measured: the first
    300-crew call after the old one-crew warm-up took 0.4-0.5 s longer than the second)."""
    from vigil.roster.cells import POLARS_MIN_LINES
    from vigil.scoring.service import PARALLEL_MIN_CREW
    from vigil.scoring.warm import WARM_CREW

    month = generate_airline_roster(WARM_CREW, 28, seed=1)
    assert month.count("\n") >= POLARS_MIN_LINES
    assert WARM_CREW >= PARALLEL_MIN_CREW


def test_a_first_start_compiles_in_one_child_per_group_and_a_warm_cache_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the memory figure: the compiler's ~230 MiB stay in short-lived children, so the
    # server only ever loads kernels from the cache; the groups compile side by side
    # (all children started before any is awaited); a warm cache starts no child
    from vigil.web import _runtime

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert _runtime.kernel_cache_is_cold()
    children: list[list[str]] = []
    running: list[subprocess.Popen[bytes]] = []
    real_popen = _runtime.subprocess.Popen

    def recording(args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        children.append(args)
        assert all(child.poll() is None for child in running)  # none awaited yet
        # the real child, cut short: it writes one index file as a compile would, once
        # every group's child has started
        n = len(children)
        script = (
            "import pathlib, time\n"
            f"p = pathlib.Path({str(tmp_path)!r})\n"
            f"(p / 'started-{n}').touch()\n"
            f"while len(list(p.glob('started-*'))) < {len(WARM_GROUPS)}: time.sleep(0.01)\n"
            f"(p / 'k{n}.nbi').touch()\n"
        )
        child = real_popen([args[0], "-c", script], **kwargs)
        running.append(child)
        return child

    monkeypatch.setattr(_runtime.subprocess, "Popen", recording)
    _runtime.compile_cold_kernels()
    assert [c[-1] for c in children] == [
        f"from vigil.scoring.warm import warm_group; warm_group({g!r})" for g in WARM_GROUPS
    ]
    assert all(child.returncode == 0 for child in running)
    assert not _runtime.kernel_cache_is_cold()
    _runtime.compile_cold_kernels()
    assert len(children) == len(WARM_GROUPS)


def test_a_failed_compiling_child_is_logged_and_the_others_still_awaited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from vigil.web import _runtime

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    real_popen = _runtime.subprocess.Popen
    running: list[subprocess.Popen[bytes]] = []

    def failing_first(args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        script = "import sys; sys.exit('no compiler here')" if not running else "pass"
        running.append(real_popen([args[0], "-c", script], **kwargs))
        return running[-1]

    monkeypatch.setattr(_runtime.subprocess, "Popen", failing_first)
    with caplog.at_level(logging.WARNING, logger="vigil.web._runtime"):
        _runtime.compile_cold_kernels()
    assert [c.returncode for c in running] == [1] + [0] * (len(WARM_GROUPS) - 1)
    assert "no compiler here" in caplog.text


def test_server_workers_starting_together_compile_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``vigil serve --workers N`` on an empty cache: one worker compiles, the others
    # wait for it and then find the cache filled
    import threading

    from vigil.web import _runtime

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    real_popen = _runtime.subprocess.Popen
    children: list[subprocess.Popen[bytes]] = []

    def slow_compile(args: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        index = tmp_path / "cache" / f"k{len(children)}.nbi"
        script = f"import pathlib, time; time.sleep(0.3); pathlib.Path({str(index)!r}).touch()"
        children.append(real_popen([args[0], "-c", script], **kwargs))
        return children[-1]

    monkeypatch.setattr(_runtime.subprocess, "Popen", slow_compile)
    workers = [threading.Thread(target=_runtime.compile_cold_kernels) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(children) == len(WARM_GROUPS)


#: run in a fresh interpreter, so that no kernel of this test session is loaded yet
_GROUPS_SCRIPT = """
import importlib, json, pkgutil, sys
import numba
import vigil.model, vigil.scoring
from vigil.scoring.warm import warm_group, warm_kernels

def signatures():
    found = {}
    for package in (vigil.model, vigil.scoring):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                if isinstance(value, numba.core.registry.CPUDispatcher):
                    found[f"{module.__name__}.{name}"] = len(value.signatures)
    return found

steps = {"start": signatures()}
warm_group("scoring")
steps["scoring"] = signatures()
warm_group("sleep")
steps["sleep"] = signatures()
warm_kernels()
steps["all"] = signatures()
json.dump(steps, sys.stdout)
"""


def test_the_groups_compile_disjoint_kernels_that_leave_the_warm_up_nothing() -> None:
    """What lets a first start compile the groups in parallel processes: the scoring group
    never calls the sleep predictor, the sleep group calls nothing else, and after both
    :func:`warm_kernels` needs no new signature."""
    done = subprocess.run(
        [sys.executable, "-c", _GROUPS_SCRIPT], capture_output=True, text=True, check=True
    )
    steps = json.loads(done.stdout)

    def added(before: str, after: str) -> set[str]:
        return {k for k, n in steps[after].items() if n != steps[before][k]}

    sleep_kernel = "vigil.model.sleep_windows.kernel"
    scoring = added("start", "scoring")
    assert sleep_kernel not in scoring
    assert {"vigil.model.interval_kss._kernel", "vigil.model.simulate._kernel"} <= scoring
    # (on a cold cache the sleep kernel's callees gain signatures too; none is the
    # scoring group's)
    sleep = added("scoring", "sleep")
    assert sleep_kernel in sleep and not sleep & scoring
    assert added("sleep", "all") == set()


def test_an_unknown_group_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kernel group 'gpu'"):
        warm_group("gpu")
