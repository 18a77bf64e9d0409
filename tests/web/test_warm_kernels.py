"""The warm start runs every compiled path (first call after /readyz ≤ 1 s).

Measured as Numba signatures: after :func:`warm_kernels`, scoring rosters of every kind
(the realistic mix at several sizes, given sleep, activities, with and without risk)
compiles nothing new, so no request after ``/readyz`` waits for the compiler.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest

import vigil.model
from vigil.domain import DateFormat
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest, score
from vigil.scoring.warm import WARM_ACTIVITY, WARM_ROSTER, WARM_SLEEP, warm_kernels


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


def test_a_first_start_compiles_in_a_child_and_a_warm_cache_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the memory figure: the compiler's ~230 MiB stay in a short-lived child, so
    # the server only ever loads kernels from the cache; a warm cache starts no child
    from vigil.web import _runtime

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert _runtime.kernel_cache_is_cold()
    children: list[list[str]] = []
    real_run = _runtime.subprocess.run

    def recording(args: list[str], **kwargs: Any) -> Any:
        children.append(args)
        # the real child, cut short: it writes one index file as a compile would
        return real_run([args[0], "-c", f"open({str(tmp_path / 'k.nbi')!r}, 'w')"], **kwargs)

    monkeypatch.setattr(_runtime.subprocess, "run", recording)
    _runtime.compile_cold_kernels()
    assert len(children) == 1 and "warm_kernels()" in children[0][-1]
    assert not _runtime.kernel_cache_is_cold()
    _runtime.compile_cold_kernels()
    assert len(children) == 1
