"""vigil.validation: the published comparisons the model claims, recomputed.

``vigil report validation`` writes ``docs/validation.md`` from these modules:
:mod:`~vigil.validation.rosters` (scenario rosters built in code),
:mod:`~vigil.validation.scenarios` (one scoring run of them all),
:mod:`~vigil.validation.cases` (the rows and :data:`KNOWN_FAILURES`),
:mod:`~vigil.validation.plots` and :mod:`~vigil.validation.report` (the writer).

Layer 6 of docs/architecture.md. May import: ``domain``, ``model``, ``plot_text``,
``roster``, ``scoring``; never a package of its own layer or above.
"""

from vigil.validation.cases import CASES, KNOWN_FAILURES, Case, Row, evaluate
from vigil.validation.report import evaluate_all, render_markdown, write_report
from vigil.validation.runs import run_all
from vigil.validation.scenarios import Runs

__all__ = [
    "CASES",
    "KNOWN_FAILURES",
    "Case",
    "Row",
    "Runs",
    "evaluate",
    "evaluate_all",
    "render_markdown",
    "run_all",
    "write_report",
]
