"""Import contracts of docs/architecture.md: each layer imports only from lower layers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "vigil"

#: layers 4-5 (worker, validation, web, cli): nothing below imports them
_UPPER = ("vigil.worker", "vigil.validation", "vigil.web", "vigil.cli")

#: package -> prefixes its modules must not import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "model": (
        "vigil.domain",
        "vigil.tz",
        "vigil.roster",
        "vigil.scoring",
        "vigil.auth",
        "vigil.store",
        *_UPPER,
        "datetime",
        "zoneinfo",
    ),
    "roster": ("vigil.scoring", "vigil.auth", "vigil.store", *_UPPER),
    "scoring": ("vigil.auth", "vigil.store", *_UPPER),
    # the rest planner sits beside scoring and reaches it through one module (_scoring)
    "planner": ("vigil.auth", "vigil.store", *_UPPER),
    "auth": ("vigil.scoring", "vigil.store", *_UPPER, "fastapi"),
    "store": (*_UPPER, "fastapi"),
    "worker": ("vigil.web", "vigil.cli", "vigil.validation"),
    # the validation report scores scenarios through scoring (layer 4, beside worker);
    # only the CLI imports it
    "validation": ("vigil.auth", "vigil.store", "vigil.worker", "vigil.web", "vigil.cli"),
}


def imports_of(path: Path) -> set[str]:
    """Absolute module names imported by one source file (relative ones resolved)."""
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                names.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                names.add(node.module)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_from_below(layer: str) -> None:
    files = sorted((SRC / layer).rglob("*.py"))
    assert files, f"no modules in {layer}"
    offences = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in files
        for name in sorted(imports_of(path))
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[layer])
    ]
    assert offences == []


def test_the_checker_sees_relative_imports() -> None:
    # guard against a checker that passes because it reads nothing
    names = imports_of(SRC / "model" / "simulate.py")
    assert "vigil.model.parameters" in names and "numpy" in names


def test_the_planner_reaches_scoring_through_one_module() -> None:
    # so a refactor of vigil.scoring is repointed in one place
    users = sorted(
        path.name
        for path in (SRC / "planner").rglob("*.py")
        if any(name.startswith("vigil.scoring") for name in imports_of(path))
    )
    assert users == ["_scoring.py"]


def test_the_planner_route_reads_nothing_stored() -> None:
    # tenant safety by construction: the request carries its own roster
    names = imports_of(SRC / "web" / "routes" / "planner.py")
    assert "vigil.planner" in names
    assert not [n for n in names if n.startswith(("vigil.store", "vigil.worker"))]
