"""Worker wiring: no import cycle, a frozen pool configuration, one status."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import vigil.worker
from vigil.config.settings import Settings
from vigil.contract import JobStatus
from vigil.worker import jobs
from vigil.worker.run import PoolSettings

WORKER = Path(vigil.worker.__file__).parent


def _imports(module: str) -> set[str]:
    tree = ast.parse((WORKER / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("module", ["dask", "scorers", "tasks"])
def test_scorers_do_not_import_the_worker_loop(module: str) -> None:
    assert "vigil.worker.run" not in _imports(module)


def test_pool_settings_are_read_once_from_the_service_settings() -> None:
    settings = Settings.from_mapping(
        {"worker_threads": 3, "dask_chunk_size": 250, "lease_seconds": 90, "retention_days": 7}
    )
    config = PoolSettings.of(settings)
    assert (config.worker_threads, config.dask_chunk_size) == (3, 250)
    assert (config.lease_seconds, config.retention_days) == (90.0, 7)
    assert config.dask_security() is None  # no scheduler, no TLS
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.worker_threads = 1  # type: ignore[misc]


def test_one_status_enum_for_store_and_worker() -> None:
    assert jobs.JobStatus is JobStatus
    assert [s for s in JobStatus if s.finished] == [
        JobStatus.COMPLETED_SUCCESSFULLY,
        JobStatus.COMPLETED_WITH_ERRORS,
        JobStatus.FAILED,
    ]
    assert [s for s in JobStatus if s.active] == [JobStatus.QUEUED, JobStatus.PROCESSING]
