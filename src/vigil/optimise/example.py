"""A worked rostering example: 50 crew, 200 pairings, with and without Vigil's cost.

Run: ``python -m vigil.optimise.example [--crew 50 --pairings 200 --time-limit 10]``
(docs/optimise.md); ``--solver local`` (the default without OR-Tools) runs the local
search instead of CP-SAT.

The pairings (:func:`vigil.optimise.rostering.sequenced_pairings`) are one-duty trips at
one base over 28 days: earlies, nights, lates and day duties, each acceptable when flown
rested, the same contents recurring at many times, so that what a crew member flies
before a pairing decides its risk. The rules, the same for every solution, are the
legality of this example: every pairing flown by exactly one crew member; a crew
member's pairings never overlap and leave at least ``MIN_REST_H`` hours between them; at
most ``MAX_PAIRINGS`` pairings each; at most the crew given.

* **Without Vigil**: a greedy assignment in time order, each pairing to the legal crew
  member with the fewest duty hours so far (the usual fairness heuristic); and CP-SAT's
  productivity optimum, the fewest crew members
  (:func:`~vigil.optimise.rostering.solve_lines`).
* **With Vigil**: CP-SAT minimising the fatigue cost of every connection, priced by the
  engine in one batch (:func:`~vigil.optimise.rostering.arc_costs`), with at most as many
  crew as the productivity optimum, and with the whole crew.
* **Fallback** (``--solver local``): from the greedy assignment, a local search. Each
  round proposes random legal moves (one pairing from one crew member to another),
  prices every move exactly with the engine in one batch (two candidates per move: the
  chain losing the pairing and the chain gaining it), and applies the best improving
  moves on distinct crew members.

Every assignment is then scored by the engine and by :func:`vigil.scoring.service.score`
(ProcessFatigueRisk's path): high-risk duties (R above the elevated band), Σ R, hours at
the controls above KSS 7 and the weighted cost, with the legality check of each.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from importlib.util import find_spec

import numpy as np

from vigil.optimise import _scoring as sc
from vigil.optimise.costs import CostSettings
from vigil.optimise.engine import Candidates, Engine
from vigil.roster.synthetic import SyntheticDuty, render_roster

__all__ = ["MAX_PAIRINGS", "MIN_REST_H", "Problem", "greedy", "improve", "main"]

MIN_REST_H = 12.0  #: [h] rest between two pairings of a crew member (EASA ORO.FTL.235(a))
MAX_PAIRINGS = 8  #: pairings per crew member in the month


@dataclass(frozen=True, slots=True)
class Problem:
    pairings: list[list[SyntheticDuty]]
    crew: list[str]

    def span(self, p: int) -> tuple[datetime, datetime]:
        return self.pairings[p][0].on_duty, self.pairings[p][-1].off_duty


def legal(problem: Problem, owned: list[int]) -> bool:
    """A crew member's pairings ``owned``: no overlap, ``MIN_REST_H`` between, at most
    ``MAX_PAIRINGS``."""
    if len(owned) > MAX_PAIRINGS:
        return False
    spans = sorted(problem.span(p) for p in owned)
    rest = timedelta(hours=MIN_REST_H)
    return all(b[0] - a[1] >= rest for a, b in zip(spans, spans[1:], strict=False))


def greedy(problem: Problem) -> list[int]:
    """Without Vigil: in time order, to the legal crew member with fewest duty hours."""
    owner = [-1] * len(problem.pairings)
    hours = [0.0] * len(problem.crew)
    owned: list[list[int]] = [[] for _ in problem.crew]
    for p in range(len(problem.pairings)):
        fits = [c for c in range(len(problem.crew)) if legal(problem, [*owned[c], p])]
        if not fits:
            raise SystemExit(f"pairing {p} cannot be covered legally; add crew")
        c = min(fits, key=lambda c: (hours[c], c))
        owner[p] = c
        owned[c].append(p)
        hours[c] += sum(
            (d.off_duty - d.on_duty).total_seconds() / 3600 for d in problem.pairings[p]
        )
    return owner


def roster(problem: Problem, owner: list[int]) -> str:
    rows = [
        replace(d, reference=problem.crew[owner[p]])
        for p in range(len(problem.pairings))
        for d in problem.pairings[p]
    ]
    return render_roster(sorted(rows, key=lambda d: (d.reference, d.on_duty)))


def _hours(t: datetime) -> float:
    return t.timestamp() / 3600.0


def improve(
    problem: Problem, owner: list[int], rounds: int, moves: int, seed: int, costs: CostSettings
) -> tuple[list[int], int]:
    """With Vigil: the local search of the module docstring; returns the assignment and
    the number of chain evaluations made."""
    rng = random.Random(seed)
    owner = list(owner)
    pool_text = render_roster([d for b in problem.pairings for d in b])
    parsed = sc.parse_request(pool_text, "dmy")
    evaluations = 0
    for _ in range(rounds):
        engine = Engine.from_roster(roster(problem, owner), costs=costs)
        pool_plan = sc.plan_parsed(parsed, engine.params)
        pool = engine.pool(pool_plan)
        proposals = _proposals(problem, owner, rng, moves)
        if not proposals:
            break
        cands = _move_candidates(problem, engine, pool_plan, proposals)
        terms = engine.evaluate(pool, cands).terms
        evaluations += cands.n
        now = engine.base_terms().cost
        new = terms.cost.reshape(-1, 2)
        delta = [
            new[k, 0] - now[engine.crew_index(problem.crew[a])]
            + new[k, 1] - now[engine.crew_index(problem.crew[b])]
            for k, (_, a, b) in enumerate(proposals)
        ]  # fmt: skip
        _accept(owner, proposals, delta)
    return owner, evaluations


def _proposals(
    problem: Problem, owner: list[int], rng: random.Random, moves: int
) -> list[tuple[int, int, int]]:
    """Up to ``moves`` legal random moves ``(pairing, from crew, to crew)``."""
    owned: list[list[int]] = [[] for _ in problem.crew]
    for p, c in enumerate(owner):
        owned[c].append(p)
    proposals: list[tuple[int, int, int]] = []
    for _ in range(moves * 4):
        if len(proposals) >= moves:
            break
        p = rng.randrange(len(problem.pairings))
        a, b = owner[p], rng.randrange(len(problem.crew))
        if b == a or len(owned[a]) < 2 or not legal(problem, [*owned[b], p]):
            continue
        if p == min(owned[a], key=lambda q: problem.span(q)[0]):
            continue  # the engine keeps a chain's first duty (its warm-up) unless replaced
        proposals.append((p, a, b))
    return proposals


def _move_candidates(
    problem: Problem,
    engine: Engine,
    pool_plan: sc.CrewPlan,
    proposals: list[tuple[int, int, int]],
) -> Candidates:
    """Two candidates per move: the giving crew member's chain without the pairing's
    window, the receiving one's with the pairing (its pool group) in it."""
    group = {ref: g for g, ref in enumerate(pool_plan.references)}
    crew_i: list[int] = []
    ws: list[float] = []
    we: list[float] = []
    ptr: list[int] = [0]
    duty: list[int] = []
    for p, a, b in proposals:
        start, end = problem.span(p)
        g = group[f"T{p:03d}"]
        for c, gains in ((a, False), (b, True)):
            crew_i.append(engine.crew_index(problem.crew[c]))
            ws.append(_hours(start))
            we.append(_hours(end))
            if gains:
                duty.extend(range(int(pool_plan.offsets[g]), int(pool_plan.offsets[g + 1])))
            ptr.append(len(duty))
    return Candidates(
        np.array(crew_i), np.array(ws), np.array(we), np.array(ptr), np.array(duty, np.int64)
    )


def _accept(owner: list[int], proposals: list[tuple[int, int, int]], delta: list[float]) -> None:
    """Make the moves that lower the cost, best first, at most one per crew member."""
    used: set[int] = set()
    for k in np.argsort(delta).tolist():
        p, a, b = proposals[k]
        if delta[k] >= 0:
            break
        if a in used or b in used:
            continue
        owner[p] = b
        used |= {a, b}


@dataclass(frozen=True, slots=True)
class Figures:
    legal: bool
    high_risk: int
    risk_sum: float
    hours_kss7: float
    cost: float
    high_risk_scored: int  #: high-risk duties from the scoring service (ProcessFatigueRisk)
    crew_used: int


def figures(problem: Problem, owner: list[int], costs: CostSettings) -> Figures:
    owned: list[list[int]] = [[] for _ in problem.crew]
    for p, c in enumerate(owner):
        owned[c].append(p)
    text = roster(problem, owner)
    engine = Engine.from_roster(text, costs=costs)
    t = engine.base_terms()
    report = sc.score(sc.ScoreRequest(text, risk=True))
    scored = sum(1 for s in report.schedules for d in s.duties if (d.risk or 0.0) > costs.high_risk)
    return Figures(
        legal=all(legal(problem, o) for o in owned)
        and all(0 <= c < len(problem.crew) for c in owner),
        high_risk=int(t.high_risk_duties.sum()),
        risk_sum=float(t.risk_sum.sum()),
        hours_kss7=float(t.hours_kss7.sum()),
        cost=float(t.cost.sum()),
        high_risk_scored=scored,
        crew_used=sum(1 for o in owned if o),
    )


def _print_rows(problem: Problem, rows: list[tuple[str, Figures]], costs: CostSettings) -> None:
    print(f"| | legal | crew used | high-risk duties (R > {costs.high_risk:g}) | scored | "
          "Σ R | h at controls > KSS 7 | weighted cost |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, f in rows:
        print(
            f"| {name} | {'yes' if f.legal else 'NO'} | {f.crew_used} | {f.high_risk} | "
            f"{f.high_risk_scored} | {f.risk_sum:.1f} | {f.hours_kss7:.1f} | {f.cost:.1f} |"
        )


def _cpsat(problem: Problem, args: argparse.Namespace, costs: CostSettings) -> None:
    """The CP-SAT rows (:mod:`vigil.optimise.rostering`)."""
    from vigil.optimise.rostering import arc_costs, solve_lines

    crew = len(problem.crew)
    t0 = time.perf_counter()
    plain = greedy(problem)
    blind = solve_lines(problem.pairings, crew, MIN_REST_H, MAX_PAIRINGS, hint=plain,
                        time_limit_s=args.time_limit, seed=args.seed)  # fmt: skip
    t1 = time.perf_counter()
    arcs = arc_costs(problem.pairings, costs, MIN_REST_H)
    t2 = time.perf_counter()
    same = solve_lines(problem.pairings, crew, MIN_REST_H, MAX_PAIRINGS, arcs,
                       max_lines=blind.lines, hint=blind.owner,
                       time_limit_s=2 * args.time_limit, seed=args.seed)  # fmt: skip
    spread = solve_lines(problem.pairings, crew, MIN_REST_H, MAX_PAIRINGS, arcs, hint=plain,
                         time_limit_s=2 * args.time_limit, seed=args.seed)  # fmt: skip
    rows = [
        ("greedy, fewest duty hours (no Vigil)", figures(problem, plain, costs)),
        ("CP-SAT, fewest crew (no Vigil)", figures(problem, blind.owner, costs)),
        (f"CP-SAT, Vigil's cost, ≤ {blind.lines} crew", figures(problem, same.owner, costs)),
        (f"CP-SAT, Vigil's cost, ≤ {crew} crew", figures(problem, spread.owner, costs)),
    ]
    _print_rows(problem, rows, costs)
    print(
        f"flown alone (each after the warm-up), {arcs.rested_high_risk} duties are "
        f"high-risk; connection costs: {arcs.evaluations:,} chain evaluations in one engine "
        f"batch, {t2 - t1:.1f} s with loading; CP-SAT {blind.status.lower()} "
        f"{t1 - t0:.0f} s, {same.status.lower()} / {spread.status.lower()} "
        f"{same.seconds + spread.seconds:.0f} s (wall time limits: results vary with load)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=50)
    parser.add_argument("--pairings", type=int, default=200)
    parser.add_argument("--solver", choices=("cpsat", "local"), default=None,
                        help="default: cpsat when ortools is installed, else local")  # fmt: skip
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="CP-SAT seconds, fatigue-blind (twice that with Vigil)")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    solver = args.solver or ("cpsat" if find_spec("ortools") else "local")
    from vigil.optimise.rostering import sequenced_pairings

    problem = Problem(
        sequenced_pairings(args.pairings, seed=args.seed),
        [f"P{c:02d}" for c in range(args.crew)],
    )
    costs = CostSettings()
    days = {d.on_duty.date() for b in problem.pairings for d in b}
    print(
        f"{args.crew} crew, {len(problem.pairings)} pairings "
        f"({sum(len(b) for b in problem.pairings)} duties over {len(days)} days); rules: "
        f"no overlap, >= {MIN_REST_H:g} h between pairings, <= {MAX_PAIRINGS} pairings each"
    )
    if solver == "cpsat":
        _cpsat(problem, args, costs)
        return
    t0 = time.perf_counter()
    plain = greedy(problem)
    began = time.perf_counter()
    tuned, evaluations = improve(problem, plain, args.rounds, args.moves, args.seed, costs)
    spent = time.perf_counter() - began
    rows = [("greedy, fewest duty hours (no Vigil)", figures(problem, plain, costs)),
            ("local search, Vigil's cost", figures(problem, tuned, costs))]  # fmt: skip
    _print_rows(problem, rows, costs)
    print(
        f"local search: {args.rounds} rounds, {evaluations:,} chain evaluations in "
        f"{spent:.1f} s ({evaluations / spent:,.0f}/s with base reloads); "
        f"greedy {began - t0:.2f} s"
    )


if __name__ == "__main__":
    main()
