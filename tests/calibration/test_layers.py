"""Import direction of the two new packages (docs/architecture.md).

``vigil.settings`` is a pure record beside ``roster`` (it may use model, domain, tz and the
roster's column table); ``vigil.calibration`` is pure like ``validation`` (it scores through
``scoring``); neither touches storage, auth, the worker, the web layer or the CLI.
"""

from __future__ import annotations

import pytest

from test_architecture import SRC, imports_of

FORBIDDEN = {
    "settings": (
        "vigil.scoring",
        "vigil.store",
        "vigil.auth",
        "vigil.worker",
        "vigil.web",
        "vigil.cli",
        "vigil.calibration",
    ),
    "calibration": ("vigil.store", "vigil.auth", "vigil.worker", "vigil.web", "vigil.cli"),
}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_from_below(package: str) -> None:
    files = sorted((SRC / package).rglob("*.py"))
    assert len(files) >= 2
    offences = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in files
        for name in sorted(imports_of(path))
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[package])
    ]
    assert offences == []


def test_store_and_scoring_do_not_import_calibration() -> None:
    for package in ("store", "scoring", "roster", "model"):
        for path in (SRC / package).rglob("*.py"):
            assert not any(n.startswith("vigil.calibration") for n in imports_of(path)), path
