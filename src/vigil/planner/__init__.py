"""In-flight rest planning: search the relief crew's rest splits with the fatigue model.

Layer 3 (beside :mod:`vigil.scoring`, which it calls): no web, store or auth imports.
See ``docs/planner.md``.
"""

from vigil.planner.plan import PilotBreak, PlanError, PlanRequest, RestPlan, Split, plan_rest

__all__ = ["PilotBreak", "PlanError", "PlanRequest", "RestPlan", "Split", "plan_rest"]
