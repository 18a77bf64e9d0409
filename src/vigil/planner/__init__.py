"""In-flight rest planning: search the relief crew's rest splits with the fatigue model.

Calls :mod:`vigil.scoring` through :mod:`vigil.planner._scoring` only.
See ``docs/planner.md``.

Layer 6 of docs/architecture.md. May import: ``contract``, ``domain``, ``model``,
``roster``, ``scoring``, ``tz``; never a package of its own layer or above.
"""

from vigil.planner.plan import PilotBreak, PlanError, PlanRequest, RestPlan, Split, plan_rest

__all__ = ["PilotBreak", "PlanError", "PlanRequest", "RestPlan", "Split", "plan_rest"]
