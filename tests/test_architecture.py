"""The import graph of docs/architecture.md: every package in a pinned layer, imports only
downward, no cycles between packages or between files.

Every module of ``src/vigil`` is read, and every import in it counts: module-level ones,
lazy ones inside functions and ``TYPE_CHECKING`` ones (a cycle hidden behind a lazy import
is still a cycle in the design).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "vigil"

#: the layers, lowest first: a package imports only packages of lower layers, never one
#: of its own layer (so e.g. fleet and the worker never import each other)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("vigil", "contract", "gc_pause", "datadir", "plot_text"),  # the root, the contract, helpers
    ("domain", "config"),  # value objects; the service's configuration (VIGIL_* variables)
    ("tz", "model", "client"),  # zones and airports; the pure model core; the API client
    ("roster",),  # CSV, SleepData, ActivityData -> domain objects + row errors
    ("settings",),  # an operator's settings as a pure record, and risk bands
    ("scoring",),  # the one path to a score, under one ScoringContext
    ("planner", "optimise", "calibration", "validation", "results", "auth"),
    ("store",),  # persistence: uploads, results' rows, settings versions, identity
    ("fleet", "worker"),  # the roster summary and exports; the upload worker
    ("web",),  # the HTTP service: routes, console, middleware
    ("cli",),  # the command line (``vigil serve`` starts the web service)
    ("__main__",),
)
LAYER_OF = {package: i for i, layer in enumerate(LAYERS) for package in layer}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of the source tree (migrations are data, run by Alembic)."""
    return {module_name(p): p for p in sorted(SRC.rglob("*.py")) if "migrations" not in p.parts}


def imports_of(path: Path) -> set[str]:
    """Absolute names imported anywhere in one file, relative ones resolved; ``from X
    import y`` counts as ``X.y`` when that is a module, else as ``X``."""
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    known = modules()
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                names.add(full if full in known else module)
    return names


def _owner(name: str) -> str | None:
    """The module of ours ``name`` is, or is inside; ``None`` for other libraries."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in modules():
            return candidate
    return None


@cache
def file_graph() -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for name, path in modules().items():
        targets = {_owner(n) for n in imports_of(path) if n.split(".")[0] == "vigil"}
        out[name] = frozenset(t for t in targets if t is not None and t != name)
    return out


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_graph() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for source, targets in file_graph().items():
        for target in targets:
            if package_of(source) != package_of(target):
                out.setdefault(package_of(source), set()).add(package_of(target))
    return out


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# --- the checker reads what it should --------------------------------------------------------


def test_the_checker_sees_relative_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    names = imports_of(SRC / "model" / "simulate.py")
    assert "vigil.model.parameters" in names and "numpy" in names
    # a lazy import inside a function
    assert "vigil.fleet.records" in imports_of(SRC / "cli" / "_tables.py")
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": []}) == []


def test_every_package_has_a_layer() -> None:
    packages = {package_of(m) for m in modules()}
    assert packages == set(LAYER_OF), "add a new package to LAYERS and docs/architecture.md"


# --- the rules ----------------------------------------------------------------------------------


def test_no_upward_or_sideways_imports_between_packages() -> None:
    offences = [
        f"{source} ({LAYER_OF[package_of(source)]}) imports {target} "
        f"({LAYER_OF[package_of(target)]})"
        for source, targets in sorted(file_graph().items())
        for target in sorted(targets)
        if package_of(source) != package_of(target)
        and LAYER_OF[package_of(target)] >= LAYER_OF[package_of(source)]
    ]
    assert offences == []


def test_no_cycles_between_packages() -> None:
    assert cycles(package_graph()) == []


def test_no_cycles_between_files() -> None:
    assert cycles(file_graph()) == []


@pytest.mark.parametrize("banned", ["datetime", "zoneinfo", "fastapi", "sqlalchemy"])
def test_the_model_core_is_pure(banned: str) -> None:
    # float epoch hours and arrays only (docs/architecture.md, "Time conventions")
    offences = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in sorted((SRC / "model").rglob("*.py"))
        for name in sorted(imports_of(path))
        if name == banned or name.startswith(banned + ".")
    ]
    assert offences == []


def test_fleet_and_the_worker_share_stored_results_only_through_results() -> None:
    graph = package_graph()
    assert "worker" not in graph["fleet"] and "fleet" not in graph["worker"]
    assert "results" in graph["fleet"] and "results" in graph["worker"]


def test_the_planner_reaches_scoring_through_one_module() -> None:
    # so a refactor of vigil.scoring is repointed in one place
    users = sorted(
        path.name
        for path in (SRC / "planner").rglob("*.py")
        if any(name.startswith("vigil.scoring") for name in imports_of(path))
    )
    assert users == ["_scoring.py"]


def test_the_planner_route_reads_nothing_stored_itself() -> None:
    # tenant safety: the request carries its own roster; the operator's settings are read
    # by the application layer (vigil.web.operator_context), not by the route
    names = imports_of(SRC / "web" / "routes" / "planner.py")
    assert "vigil.planner" in names
    assert not [n for n in names if n.startswith(("vigil.store", "vigil.worker"))]


def test_routes_take_the_operators_scoring_context_from_the_application_layer() -> None:
    # one operator scoring context per request, resolved by web/operator_context.py: a route
    # or console page that built its own from settings could score under other ones
    routes = [
        m
        for m in modules()
        if m.startswith(("vigil.web.routes.", "vigil.web.console."))
        and "APIRouter(" in modules()[m].read_text(encoding="utf-8")
    ]
    offences = [
        f"{m} builds a scoring context"
        for m in sorted(routes)
        for built in ("ScoringContext.of_settings(", "score_options(", "ScoringContext(")
        if built in modules()[m].read_text(encoding="utf-8")
    ]
    assert offences == []
    users = {m for m in routes if "vigil.web.operator_context" in file_graph()[m]}
    assert {"vigil.web.routes.processor", "vigil.web.routes.planner"} <= users


def test_web_and_the_worker_take_their_configuration_from_config() -> None:
    graph = package_graph()
    assert "config" in graph["web"] and "config" in graph["worker"] and "config" in graph["cli"]


def test_no_route_module_imports_another() -> None:
    # API routes and console pages call the application layer (web/operator_context.py,
    # web/stored_results.py, web/calibration_service.py) and shared helpers, never each
    # other; console/routes.py only assembles the console's routers (as web/app.py does)
    routes = {
        m
        for m in modules()
        if m.startswith(("vigil.web.routes.", "vigil.web.console."))
        and m != "vigil.web.console.routes"
        and "APIRouter(" in modules()[m].read_text(encoding="utf-8")
    }
    assert "vigil.web.routes.processor" in routes and "vigil.web.console.whatif" in routes
    offences = [
        f"{source} imports {target}"
        for source in sorted(routes)
        for target in sorted(file_graph()[source] & routes)
    ]
    assert offences == []


# --- configuration: every VIGIL_ variable is read in vigil.config ---------------------------

#: modules outside vigil.config allowed to touch a VIGIL_ variable, with the reason
ENVIRONMENT_EXCEPTIONS: dict[str, str] = {}


def _names_ours(node: ast.AST) -> bool:
    """Whether an expression names one of our variables: a ``"VIGIL_…"`` string (also
    inside an f-string), ``ENV_PREFIX``, ``env_name(…)`` or a launch variable's ``.name``."""
    for part in ast.walk(node):
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            if part.value.upper().startswith("VIGIL_"):
                return True
        elif isinstance(part, ast.Name) and part.id in ("ENV_PREFIX", "env_name"):
            return True
        elif isinstance(part, ast.Attribute) and part.attr in ("ENV_PREFIX", "env_name"):
            return True
    return False


def _is_environ(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "environ") or (
        isinstance(node, ast.Attribute) and node.attr == "environ"
    )


def environment_uses(source: str) -> list[int]:
    """Lines of ``source`` that read or write one of our variables in the environment:
    ``os.environ[...]``, ``os.environ.get/pop/setdefault(...)``, ``os.getenv(...)``,
    ``... in os.environ``, a CLI option's ``envvar=`` or a settings class's ``env_prefix=``."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and _is_environ(node.value):
            if _names_ours(node.slice):
                lines.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
            if _names_ours(node.left):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            reads = (
                isinstance(func, ast.Attribute)
                and (_is_environ(func.value) or func.attr == "getenv")
                or isinstance(func, ast.Name)
                and func.id == "getenv"
            )
            if reads and any(_names_ours(a) for a in node.args):
                lines.append(node.lineno)
            for keyword in node.keywords:
                if keyword.arg in ("envvar", "env_prefix") and _names_ours(keyword.value):
                    lines.append(node.lineno)
    return sorted(lines)


def test_the_environment_checker_sees_each_form() -> None:
    found = environment_uses(
        "import os\n"
        "a = os.environ.get('VIGIL_X')\n"
        "b = os.getenv(f'{ENV_PREFIX}DATA_DIR')\n"
        "c = os.environ['VIGIL_Y']\n"
        "d = 'VIGIL_Z' in os.environ\n"
        "os.environ[env_name('surface')] = 'all'\n"
        "e = typer.Option('--x', envvar='VIGIL_DATABASE_URL')\n"
        "f = os.environ.get('NUMBA_CACHE_DIR')\n"
        "g = 'VIGIL_ONLY_A_WORD'\n"
    )
    assert found == [2, 3, 4, 5, 6, 7]


def test_every_vigil_variable_is_read_in_config() -> None:
    # one place for the service's configuration: vigil.config (docs/deployment.md's
    # reference is rendered from it); everyone else is handed Settings or calls config
    offences = [
        f"{name}:{line}"
        for name, path in sorted(modules().items())
        if package_of(name) != "config" and name not in ENVIRONMENT_EXCEPTIONS
        for line in environment_uses(path.read_text(encoding="utf-8"))
    ]
    assert offences == []


# --- each package says what it may import --------------------------------------------------

_MAY_IMPORT = re.compile(r"Layer (\d+) of docs/architecture\.md\. May import: (.*?);", re.S)


@pytest.mark.parametrize(
    "package", sorted(p for p in LAYER_OF if (SRC / p / "__init__.py").is_file())
)
def test_each_package_docstring_names_its_layer_and_what_it_imports(package: str) -> None:
    # the opening docstring tells a newcomer the package's layer and what it may import;
    # it may not fall behind what the package really imports
    doc = ast.get_docstring(ast.parse((SRC / package / "__init__.py").read_text("utf-8"))) or ""
    found = _MAY_IMPORT.search(doc)
    assert found is not None, (
        f"vigil.{package}: say 'Layer N of docs/architecture.md. May import: ...;'"
    )
    assert int(found.group(1)) == LAYER_OF[package]
    named = set(re.findall(r"``(\w+)``", found.group(2)))
    imported = package_graph().get(package, set()) - {"vigil"}
    assert imported <= named, f"vigil.{package} imports {sorted(imported - named)} unnamed"
    assert all(LAYER_OF[n] < LAYER_OF[package] for n in named)


def test_the_architecture_document_draws_every_package() -> None:
    text = (SRC.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text[text.index("```\n11 __main__") :]
    block = block[: block.index("```", 4)]
    for layer, packages in enumerate(LAYERS):
        line = next(row for row in block.splitlines() if re.match(rf"\s*{layer} ", row))
        assert all(re.search(rf"\b{p}\b", line) for p in packages), (layer, line)
