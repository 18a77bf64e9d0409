"""A worked rostering example: 50 crew, 200 pairings, with and without Vigil's cost.

Run: ``python -m vigil.optimise.example [--crew 50 --pairings 200 --rounds 12 --seed 1]``
(docs/optimise.md).

The pairings are 1-3-day trips cut from the work blocks of a synthetic short-haul month at one base
(:func:`vigil.roster.synthetic.generate_airline_duties`: 1-4 sectors a day, reports
between 05:00 and 15:00 local). The rules, the same for both solutions, are the
legality of this example: every pairing flown by exactly one crew member; a crew
member's pairings never overlap and leave at least ``MIN_REST_H`` hours between them; at
most ``MAX_PAIRINGS`` pairings each.

* **Without Vigil**: a greedy assignment in time order, each pairing to the legal crew
  member with the fewest duty hours so far (the usual fairness heuristic).
* **With Vigil**: from that assignment, a local search. Each round proposes random moves
  (one pairing from one crew member to another, legal by the same rules), prices every
  move exactly with the engine in one batch (two candidates per move: the chain losing
  the pairing and the chain gaining it), and applies the best improving moves on
  distinct crew members. The base roster is reloaded after each round.

Both assignments are then scored by the engine and by :func:`vigil.scoring.service.score`
(ProcessFatigueRisk's path): high-risk duties (R above the elevated band), Σ R, hours at
the controls above KSS 7 and the weighted cost, with the legality check of each.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import numpy as np

from vigil.optimise import _scoring as sc
from vigil.optimise.costs import CostSettings
from vigil.optimise.engine import Candidates, Engine
from vigil.roster.synthetic import SyntheticDuty, generate_airline_duties, render_roster

__all__ = ["MAX_PAIRINGS", "MIN_REST_H", "Problem", "greedy", "improve", "main", "pairings"]

MIN_REST_H = 12.0  #: [h] rest between two pairings of a crew member (EASA ORO.FTL.235(a))
MAX_PAIRINGS = 8  #: pairings per crew member in the month


@dataclass(frozen=True, slots=True)
class Problem:
    pairings: list[list[SyntheticDuty]]
    crew: list[str]

    def span(self, p: int) -> tuple[datetime, datetime]:
        return self.pairings[p][0].on_duty, self.pairings[p][-1].off_duty


def pairings(n: int, seed: int) -> list[list[SyntheticDuty]]:
    """``n`` pairings (1-3 duty days, base to base) cut from the work blocks of
    short-haul crews at the most common base."""
    duties = generate_airline_duties(4 * n, 28, seed=seed)
    by: dict[str, list[SyntheticDuty]] = {}
    for d in duties:
        if d.crew_composition == 2 and d.sectors <= 4 and not d.first_rest:
            by.setdefault(d.reference, []).append(d)
    base = Counter(v[0].home for v in by.values()).most_common(1)[0][0]
    blocks: list[list[SyntheticDuty]] = []
    for chain in by.values():
        if chain[0].home != base or any(d.duty_type == 3 for d in chain):
            continue
        block = [chain[0]]
        for d in chain[1:]:
            if d.on_duty - block[-1].off_duty > timedelta(hours=30):
                blocks.append(block)
                block = []
            block.append(d)
        blocks.append(block)
    # pairings of 1-3 duty days, each from the base back to it
    trips: list[list[SyntheticDuty]] = []
    for block in blocks:
        trip: list[SyntheticDuty] = []
        for d in block:
            trip.append(d)
            if d.end == base and len(trip) >= 2:
                trips.append(trip)
                trip = []
        if trip:
            trips.append(trip)
    blocks = [b for b in trips if b[0].start == base and b[-1].end == base]
    random.Random(seed).shuffle(blocks)
    if len(blocks) < n:
        raise SystemExit(f"only {len(blocks)} pairings generated; ask for fewer")
    chosen = sorted(blocks[:n], key=lambda b: b[0].on_duty)
    return [[replace(d, reference=f"T{k:03d}") for d in b] for k, b in enumerate(chosen)]


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
        group = {ref: g for g, ref in enumerate(pool_plan.references)}
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
        if not proposals:
            break
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
        cands = Candidates(
            np.array(crew_i), np.array(ws), np.array(we), np.array(ptr), np.array(duty, np.int64)
        )
        terms = engine.evaluate(pool, cands).terms
        evaluations += cands.n
        now = engine.base_terms().cost
        new = terms.cost.reshape(-1, 2)
        delta = [
            new[k, 0] - now[engine.crew_index(problem.crew[a])]
            + new[k, 1] - now[engine.crew_index(problem.crew[b])]
            for k, (_, a, b) in enumerate(proposals)
        ]  # fmt: skip
        used: set[int] = set()
        for k in np.argsort(delta).tolist():
            p, a, b = proposals[k]
            if delta[k] >= 0:
                break
            if a in used or b in used:
                continue
            owner[p] = b
            used |= {a, b}
    return owner, evaluations


@dataclass(frozen=True, slots=True)
class Figures:
    legal: bool
    high_risk: int
    risk_sum: float
    hours_kss7: float
    cost: float
    high_risk_scored: int  #: high-risk duties from the scoring service (ProcessFatigueRisk)


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
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=50)
    parser.add_argument("--pairings", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    problem = Problem(pairings(args.pairings, args.seed), [f"P{c:02d}" for c in range(args.crew)])
    costs = CostSettings()
    t0 = time.perf_counter()
    plain = greedy(problem)
    began = time.perf_counter()
    tuned, evaluations = improve(problem, plain, args.rounds, args.moves, args.seed, costs)
    spent = time.perf_counter() - began
    rows = [("without Vigil (greedy, legal)", figures(problem, plain, costs)),
            ("with Vigil's cost (local search)", figures(problem, tuned, costs))]  # fmt: skip
    days = {d.on_duty.date() for b in problem.pairings for d in b}
    print(
        f"{args.crew} crew, {len(problem.pairings)} pairings "
        f"({sum(len(b) for b in problem.pairings)} duties over {len(days)} days); rules: "
        f"no overlap, >= {MIN_REST_H:g} h between pairings, <= {MAX_PAIRINGS} pairings each"
    )
    print(f"{'':34} legal  high-risk (R > {costs.high_risk:.2f})  sum R   h > KSS 7   cost")
    for name, f in rows:
        print(
            f"{name:34} {'yes' if f.legal else 'NO':5}  {f.high_risk:4d} "
            f"(scored: {f.high_risk_scored:4d})      {f.risk_sum:7.1f}  {f.hours_kss7:8.2f}"
            f"  {f.cost:8.1f}"
        )
    print(
        f"local search: {args.rounds} rounds, {evaluations:,} chain evaluations in "
        f"{spent:.1f} s ({evaluations / spent:,.0f}/s with base reloads); "
        f"greedy {began - t0:.2f} s"
    )


if __name__ == "__main__":
    main()
