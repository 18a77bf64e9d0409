"""The worked example: the local search keeps every rule and never raises the cost."""

from __future__ import annotations

from vigil.optimise.costs import CostSettings
from vigil.optimise.example import MAX_PAIRINGS, Problem, figures, greedy, improve, legal, pairings


def test_local_search_keeps_legality_and_lowers_the_cost() -> None:
    problem = Problem(pairings(40, seed=2), [f"P{c:02d}" for c in range(10)])
    costs = CostSettings()
    plain = greedy(problem)
    tuned, evaluations = improve(problem, plain, rounds=2, moves=60, seed=2, costs=costs)
    assert evaluations > 0
    owned: list[list[int]] = [[] for _ in problem.crew]
    for p, c in enumerate(tuned):
        owned[c].append(p)
    assert all(legal(problem, o) and len(o) <= MAX_PAIRINGS for o in owned)
    before, after = figures(problem, plain, costs), figures(problem, tuned, costs)
    assert before.legal and after.legal
    assert after.cost <= before.cost
    # the engine's high-risk count is the scoring service's (ProcessFatigueRisk's path)
    assert after.high_risk == after.high_risk_scored
    assert not legal(problem, list(range(MAX_PAIRINGS + 1)))
