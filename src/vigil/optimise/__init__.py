"""Fatigue as a cost term for crew pairing and rostering (docs/optimise.md).

Load a base roster once (:class:`Engine`), then evaluate many candidate chains per crew
member, each replacing the duties in a time window with duties from a :class:`Pool`
(:class:`Candidates`). Each evaluation restarts the model from the base's cached state at
the window and runs only as far as the change can matter; the result is a row of cost
terms per candidate (:class:`~vigil.optimise.costs.Terms`).

Layer 6 of docs/architecture.md. May import: ``contract``, ``domain``, ``model``,
``roster``, ``scoring``, ``settings``; never a package of its own layer or above.
"""

from __future__ import annotations

from vigil.optimise.chains import Pool
from vigil.optimise.costs import COST_TERMS, TERM_NAMES, CostSettings, Terms
from vigil.optimise.engine import Candidates, Engine, EngineError, Evaluation

__all__ = [
    "COST_TERMS",
    "TERM_NAMES",
    "Candidates",
    "CostSettings",
    "Engine",
    "EngineError",
    "Evaluation",
    "Pool",
    "Terms",
]
