"""Every validation row, expected failure, extra scenario and fit group, from all row modules.

The rows live in :mod:`vigil.validation.cases` and in any module of this package whose name
ends in ``_cases`` (e.g. ``independent_cases``, ``risk_cases``). Such a module may define:

- ``CASES``: a tuple of :class:`~vigil.validation.cases.Case` (its rows, in report order);
- ``KNOWN_FAILURES``: row key -> one-line reason, for its rows that fail today;
- ``scenarios()``: the extra :class:`~vigil.validation.rosters.Scenario` s its rows read,
  scored with the others by :func:`vigil.validation.scenarios.run_all`;
- ``FIT_GROUPS``: a callable returning :class:`~vigil.validation.fit.FitGroup` s;
- ``SCENARIO_NOTES``: Markdown list lines describing its scenarios (printed in the report).

Rows come in module order: ``cases`` first, then the others by name. Keys must be unique
across modules (``tests/validation`` checks).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType
from typing import TYPE_CHECKING

from vigil.validation import cases

if TYPE_CHECKING:
    from vigil.validation.rosters import Scenario

#: The package whose ``*_cases`` modules are collected.
PACKAGE = "vigil.validation"


@functools.lru_cache(maxsize=1)
def case_modules() -> tuple[ModuleType, ...]:
    """:mod:`~vigil.validation.cases`, then every ``*_cases`` module of the package by name."""
    package = importlib.import_module(PACKAGE)
    names = sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if m.name.endswith("_cases")
    )
    return (cases, *(importlib.import_module(f"{PACKAGE}.{n}") for n in names))


def all_cases() -> tuple[cases.Case, ...]:
    """Every row of the report, in report order."""
    return tuple(c for m in case_modules() for c in getattr(m, "CASES", ()))


def known_failures() -> dict[str, str]:
    """Row key -> reason, for every row expected to fail today (all modules)."""
    out: dict[str, str] = {}
    for m in case_modules():
        out.update(getattr(m, "KNOWN_FAILURES", {}))
    return out


def scenario_notes() -> tuple[str, ...]:
    """The ``SCENARIO_NOTES`` lines of the ``*_cases`` modules (Markdown list items)."""
    return tuple(line for m in case_modules()[1:] for line in getattr(m, "SCENARIO_NOTES", ()))


def extra_scenarios() -> list[Scenario]:
    """The scenarios the ``*_cases`` modules add to the common scoring run."""
    out: list[Scenario] = []
    for m in case_modules()[1:]:
        build = getattr(m, "scenarios", None)
        if callable(build):
            out += build()
    return out
