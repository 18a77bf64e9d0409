"""vigil.optimise's imports: scoring through one adapter module, nothing above it."""

from __future__ import annotations

import ast
from pathlib import Path

import vigil.optimise

PACKAGE = Path(vigil.optimise.__file__).parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_scoring_only_through_the_adapter_and_no_upper_layer() -> None:
    for path in PACKAGE.glob("*.py"):
        mods = _imports(path)
        upper = {m for m in mods if m.split(".")[:2] in (["vigil", n] for n in
                 ("web", "store", "worker", "cli", "auth"))}  # fmt: skip
        assert not upper, f"{path.name} imports {upper}"
        if path.name != "_scoring.py":
            scoring = {m for m in mods if m.startswith("vigil.scoring")}
            assert not scoring, f"{path.name} imports {scoring}: use vigil.optimise._scoring"


def test_the_route_reads_nothing_stored() -> None:
    route = PACKAGE.parents[0] / "web" / "routes" / "optimise.py"
    assert not {m for m in _imports(route) if m.startswith("vigil.store")}
