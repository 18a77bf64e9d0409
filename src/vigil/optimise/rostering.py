"""A crew rostering model for OR-Tools CP-SAT with Vigil's fatigue as connection costs.

Each crew member's month is a *line*: pairings in time order. The model is the classic
set of lines as paths in the pairings' connection graph (a DAG, since a pairing can only
follow one that ended earlier): an arc ``p → q`` is legal when ``q`` reports at least
``min_rest_h`` after ``p`` ends; every pairing has exactly one arc in (from another
pairing or from the line's start) and one out; a line holds at most ``max_pairings``
pairings (a position counter along each path); at most ``crew`` lines.

**Vigil's cost** is a connection cost: the fatigue cost of ``q``'s duties when ``q`` is
flown after ``p`` (the engine's additive cost terms of ``q``'s duties in the chain
``p, q``), or after a rested start. It is priced by :class:`~vigil.optimise.Engine` for
every arc whose rest is shorter than ``history_h`` in one batch: the base roster holds
each pairing as its own chain, and a candidate puts pairing ``p`` before chain ``q``.
After ``history_h`` hours off (72 h: three nights in bed, and past the 36 h that ends a
run of nights or earlies, reference §8), ``q`` costs what it costs after a rested start.
The cost is first-order (only the previous pairing is seen); the lines are then scored
exactly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import numpy as np

from vigil.optimise.costs import CostSettings, Terms
from vigil.optimise.engine import Candidates, Engine
from vigil.roster.synthetic import SyntheticDuty, render_roster

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

__all__ = [
    "ADDITIVE_TERMS",
    "ArcCosts",
    "Lines",
    "arc_costs",
    "sequenced_pairings",
    "solve_lines",
]

#: Cost terms that add up over a chain's duties (a line's cost is their sum over its
#: pairings); ``short_sleep`` (the chain's least sleep) does not, so it is left out.
ADDITIVE_TERMS = ("risk_sum", "high_risk_duties", "hours_kss7", "hours_band", "tod_fatigue")

#: Pairing contents (report hour, minute, duty hours, sectors), one duty each, at one base.
#: Each is below the default high-risk bound (R 2.0) when flown rested; earlies and nights
#: rise above it when they follow each other within 36 h (a run of earlies or nights,
#: reference §8) or follow a night with little sleep between.
CONTENTS: dict[str, tuple[int, int, float, int]] = {
    "early": (4, 30, 10.0, 6),
    "night": (21, 30, 9.5, 3),
    "late": (14, 0, 10.0, 4),
    "day": (9, 0, 9.0, 3),
}
_MIX = (("early", 0.35), ("night", 0.25), ("late", 0.2), ("day", 0.2))
_BASE, _ZONE = "LHR", "Europe/London"


def sequenced_pairings(
    n: int, days: int = 28, seed: int = 1, first_day: datetime = datetime(2026, 3, 2)
) -> list[list[SyntheticDuty]]:
    """``n`` one-duty pairings at one base over ``days`` days: the contents of
    :data:`CONTENTS` (early 35 %, night 25 %, late 20 %, day 20 %) on random days, each
    report moved by up to ±1 h in 15-min steps. The same content recurs at many times,
    so which pairings a crew member flies in a row decides its fatigue."""
    rng = random.Random(seed)
    zone = ZoneInfo(_ZONE)
    kinds = [k for k, _ in _MIX]
    weights = [w for _, w in _MIX]
    out: list[tuple[datetime, SyntheticDuty]] = []
    for _ in range(n):
        kind = rng.choices(kinds, weights)[0]
        hour, minute, length, sectors = CONTENTS[kind]
        day = first_day + timedelta(days=rng.randrange(days))
        shift = timedelta(minutes=15 * rng.randint(-4, 4))
        on = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone) + shift
        on = on.astimezone(UTC)
        duty = SyntheticDuty("", on, on + timedelta(hours=length), _BASE, _BASE, _BASE,
                             sectors=sectors)  # fmt: skip
        out.append((on, duty))
    out.sort(key=lambda x: x[0])
    return [[_named(d, f"T{k:03d}")] for k, (_, d) in enumerate(out)]


def _named(d: SyntheticDuty, ref: str) -> SyntheticDuty:
    return replace(d, reference=ref)


def _span(pairing: Sequence[SyntheticDuty]) -> tuple[float, float]:
    return pairing[0].on_duty.timestamp() / 3600.0, pairing[-1].off_duty.timestamp() / 3600.0


@dataclass(frozen=True, slots=True)
class ArcCosts:
    """Connection costs in the weighted cost's units: ``start[q]`` (``q`` after a rested
    start) and ``arc[(p, q)]`` for every legal connection; ``evaluations`` made."""

    start: np.ndarray
    arc: dict[tuple[int, int], float]
    evaluations: int
    rested_high_risk: int  #: high-risk duties when every pairing is flown alone (after the warm-up)


def _additive(terms: Terms, costs: CostSettings) -> np.ndarray:
    cols = terms.columns()
    total = np.zeros(len(cols["risk_sum"]))
    for name in ADDITIVE_TERMS:
        total += costs.weight(name) * np.asarray(cols[name], dtype=np.float64)
    return total


def arc_costs(
    pairings: Sequence[Sequence[SyntheticDuty]],
    costs: CostSettings,
    min_rest_h: float,
    history_h: float = 72.0,
) -> ArcCosts:
    """Vigil's connection costs (module docstring), every short connection priced in
    one engine batch."""
    rows = [d for p in pairings for d in p]
    engine = Engine.from_roster(render_roster(rows), costs=costs)
    pool = engine.pool_from_roster(render_roster(rows))
    group = {ref: g for g, ref in enumerate(pool.plan.references)}
    base_terms = engine.base_terms()
    alone = _additive(base_terms, costs)
    index = {ref: engine.crew_index(ref) for ref in engine.references}
    refs = [p[0].reference for p in pairings]
    start = np.array([alone[index[r]] for r in refs])
    spans = [_span(p) for p in pairings]
    crew: list[int] = []
    ws: list[float] = []
    we: list[float] = []
    ptr: list[int] = [0]
    duty: list[int] = []
    pairs: list[tuple[int, int]] = []
    arc: dict[tuple[int, int], float] = {}
    for p, (p_on, p_off) in enumerate(spans):
        g = group[refs[p]]
        for q, (q_on, _) in enumerate(spans):
            gap = q_on - p_off
            if gap < min_rest_h:
                continue
            if gap >= history_h:
                arc[(p, q)] = float(start[q])
                continue
            pairs.append((p, q))
            crew.append(index[refs[q]])
            ws.append(p_on)
            we.append(p_off)
            duty.extend(range(int(pool.plan.offsets[g]), int(pool.plan.offsets[g + 1])))
            ptr.append(len(duty))
    if pairs:
        cands = Candidates(np.array(crew), np.array(ws), np.array(we), np.array(ptr),
                           np.array(duty, dtype=np.int64))  # fmt: skip
        chain = _additive(engine.evaluate(pool, cands).terms, costs)
        for k, (p, q) in enumerate(pairs):
            # p opens both chains alike (its own warm-up), so q's share is the difference
            arc[(p, q)] = float(chain[k] - start[p])
    rested = int(np.asarray(base_terms.columns()["high_risk_duties"]).sum())
    return ArcCosts(start, arc, len(pairs), rested)


@dataclass(frozen=True, slots=True)
class Lines:
    """A solved assignment: ``owner[p]`` the line (crew member) of pairing ``p``."""

    owner: list[int]
    lines: int
    busiest: int  #: pairings on the busiest line
    objective: float
    status: str
    seconds: float


def solve_lines(
    pairings: Sequence[Sequence[SyntheticDuty]],
    crew: int,
    min_rest_h: float,
    max_pairings: int,
    arc_cost: ArcCosts | None = None,
    *,
    max_lines: int | None = None,
    hint: Sequence[int] | None = None,
    time_limit_s: float = 10.0,
    workers: int = 2,
    seed: int = 1,
) -> Lines:
    """Solve the line model of the module docstring with CP-SAT.

    Without ``arc_cost`` the objective is the usual productivity one, blind to fatigue:
    the fewest lines (crew members used). With it: the least total connection cost with
    at most ``max_lines`` lines (pass the productivity solution's count to compare the
    two at the same crew use).
    """
    from ortools.sat.python import cp_model

    n = len(pairings)
    spans = [_span(p) for p in pairings]
    m = _line_model(spans, min_rest_h, max_pairings)
    model = m.model
    lines = sum(m.first)
    model.add(lines <= crew)
    model.add(lines >= -(-n // max_pairings))  # a bound the solver need not find
    scale = 1000.0
    if arc_cost is None:
        model.minimize(lines)
    else:
        if max_lines is not None:
            model.add(lines <= max_lines)
        terms = [round(scale * float(arc_cost.start[q])) * m.first[q] for q in range(n)]
        terms += [round(scale * arc_cost.arc[a]) * x for a, x in m.arcs.items()]
        model.minimize(sum(terms))
    if hint is not None:
        _add_hint(m, spans, hint)
    solver = _solver(time_limit_s, workers, seed)
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise SystemExit(f"CP-SAT found no legal roster ({solver.status_name(status)})")
    owner, line = _solved_lines(solver, m)
    objective = solver.objective_value / (1.0 if arc_cost is None else scale)
    top = max(owner.count(c) for c in range(line))
    return Lines(owner, line, top, objective, solver.status_name(status), solver.wall_time)


def _solver(time_limit_s: float, workers: int, seed: int) -> cp_model.CpSolver:
    """A CP-SAT solver with the wall-time limit, workers and seed, probing off."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    # wall time: the solution found depends on the machine's speed and load
    solver.parameters.max_time_in_seconds = time_limit_s
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    solver.parameters.cp_model_probing_level = 0  # probing 19k arcs costs seconds, finds little
    return solver


@dataclass(frozen=True, slots=True)
class _LineModel:
    """The line model's variables: per pairing whether it starts (``first``) or ends
    (``last``) a line and its position on it, and a boolean per legal arc ``p → q``."""

    model: cp_model.CpModel
    first: list[cp_model.IntVar]
    last: list[cp_model.IntVar]
    pos: list[cp_model.IntVar]
    arcs: dict[tuple[int, int], cp_model.IntVar]


def _line_model(
    spans: list[tuple[float, float]], min_rest_h: float, max_pairings: int
) -> _LineModel:
    """The paths of the module docstring: legal arcs, one arc in and one out of every
    pairing, positions counting up along each line to at most ``max_pairings``."""
    from ortools.sat.python import cp_model

    n = len(spans)
    model = cp_model.CpModel()
    first = [model.new_bool_var(f"s{q}") for q in range(n)]
    last = [model.new_bool_var(f"e{p}") for p in range(n)]
    pos = [model.new_int_var(1, max_pairings, f"k{q}") for q in range(n)]
    into: list[list[cp_model.IntVar]] = [[first[q]] for q in range(n)]
    out: list[list[cp_model.IntVar]] = [[last[p]] for p in range(n)]
    arcs: dict[tuple[int, int], cp_model.IntVar] = {}
    for p in range(n):
        for q in range(n):
            if spans[q][0] - spans[p][1] >= min_rest_h:
                x = model.new_bool_var(f"x{p}_{q}")
                arcs[(p, q)] = x
                out[p].append(x)
                into[q].append(x)
                model.add(pos[q] == pos[p] + 1).only_enforce_if(x)
    for q in range(n):
        model.add_exactly_one(into[q])
        model.add_exactly_one(out[q])
        model.add(pos[q] == 1).only_enforce_if(first[q])
    return _LineModel(model, first, last, pos, arcs)


def _add_hint(m: _LineModel, spans: list[tuple[float, float]], hint: Sequence[int]) -> None:
    """Hint the assignment ``hint`` (pairing → line) as a complete solution: every arc,
    end and position."""
    n = len(spans)
    order = sorted(range(n), key=lambda q: spans[q][0])
    prev: dict[int, int] = {}
    chosen: set[tuple[int, int]] = set()
    at: dict[int, int] = {}
    for q in order:
        before = prev.get(hint[q])
        if before is not None:
            chosen.add((before, q))
        at[q] = 1 if before is None else at[before] + 1
        prev[hint[q]] = q
    ends = set(prev.values())
    for a, x in m.arcs.items():
        m.model.add_hint(x, a in chosen)
    for q in range(n):
        m.model.add_hint(m.first[q], at[q] == 1)
        m.model.add_hint(m.last[q], q in ends)
        m.model.add_hint(m.pos[q], at[q])


def _solved_lines(solver: cp_model.CpSolver, m: _LineModel) -> tuple[list[int], int]:
    """Each pairing's line in the solution, lines numbered by their first pairing; and
    the number of lines."""
    n = len(m.first)
    succ = {p: q for (p, q), x in m.arcs.items() if solver.boolean_value(x)}
    owner = [-1] * n
    line = 0
    for q in range(n):
        if solver.boolean_value(m.first[q]):
            step: int | None = q
            while step is not None:
                owner[step] = line
                step = succ.get(step)
            line += 1
    return owner, line
