"""The worked example: every solution keeps every rule; Vigil's cost lowers the fatigue."""

from __future__ import annotations

import pytest

from vigil.optimise.costs import CostSettings
from vigil.optimise.example import (
    MAX_PAIRINGS,
    MIN_REST_H,
    Problem,
    figures,
    greedy,
    improve,
    legal,
)
from vigil.optimise.rostering import arc_costs, sequenced_pairings, solve_lines


def _owned(problem: Problem, owner: list[int]) -> list[list[int]]:
    owned: list[list[int]] = [[] for _ in problem.crew]
    for p, c in enumerate(owner):
        owned[c].append(p)
    return owned


def test_local_search_keeps_legality_and_lowers_the_cost() -> None:
    problem = Problem(sequenced_pairings(40, days=10, seed=2), [f"P{c:02d}" for c in range(10)])
    costs = CostSettings()
    plain = greedy(problem)
    tuned, evaluations = improve(problem, plain, rounds=2, moves=60, seed=2, costs=costs)
    assert evaluations > 0
    assert all(legal(problem, o) and len(o) <= MAX_PAIRINGS for o in _owned(problem, tuned))
    before, after = figures(problem, plain, costs), figures(problem, tuned, costs)
    assert before.legal and after.legal
    assert after.cost <= before.cost
    # the engine's high-risk count is the scoring service's (ProcessFatigueRisk's path)
    assert after.high_risk == after.high_risk_scored
    assert not legal(problem, list(range(MAX_PAIRINGS + 1)))


def test_cpsat_with_vigils_cost_keeps_the_rules_and_the_crew_count() -> None:
    pytest.importorskip("ortools")
    pairings = sequenced_pairings(36, days=9, seed=3)
    problem = Problem(pairings, [f"P{c:02d}" for c in range(12)])
    costs = CostSettings()
    plain = greedy(problem)
    blind = solve_lines(pairings, 12, MIN_REST_H, MAX_PAIRINGS, hint=plain, time_limit_s=5)
    arcs = arc_costs(pairings, costs, MIN_REST_H)
    assert arcs.evaluations > 0  # short connections priced by the engine
    tuned = solve_lines(pairings, 12, MIN_REST_H, MAX_PAIRINGS, arcs, max_lines=blind.lines,
                        hint=blind.owner, time_limit_s=10)  # fmt: skip
    assert tuned.lines <= blind.lines
    for sol in (blind, tuned):
        assert all(legal(problem, o) for o in _owned(problem, sol.owner))
        assert sorted(set(sol.owner)) == list(range(sol.lines))

    def connection_cost(owner: list[int]) -> float:
        total = 0.0
        for line in _owned(problem, owner):
            line.sort(key=lambda q: pairings[q][0].on_duty)
            total += arcs.start[line[0]] if line else 0.0
            total += sum(arcs.arc[(p, q)] for p, q in zip(line, line[1:], strict=False))
        return total

    # the solver's objective is the connection cost of its lines, and no worse than the
    # fatigue-blind roster's (which it was handed as a start)
    # (each arc rounded to 0.001 in the model)
    assert tuned.objective == pytest.approx(connection_cost(tuned.owner), abs=5e-4 * len(pairings))
    assert connection_cost(tuned.owner) <= connection_cost(blind.owner) + 1e-6
    after = figures(problem, tuned.owner, costs)
    assert after.legal and after.high_risk == after.high_risk_scored
