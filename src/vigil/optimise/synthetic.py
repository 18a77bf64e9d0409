"""Synthetic candidate sets for tests, benchmarks and the worked example (ours).

From :func:`vigil.roster.synthetic.generate_airline_duties`' ground-truth duties:
candidate ``k`` takes crew member ``i``'s chain and replaces its duties overlapping a
window of ``days`` days with the duties another crew member of the same home base flies
inside that window (a swap of trips, as a rostering move would make). Every candidate
comes with its whole chain as duties, so a test can re-score it as a roster.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import numpy as np

from vigil.optimise.chains import Pool
from vigil.optimise.engine import Candidates, Engine
from vigil.roster.synthetic import SyntheticDuty, render_roster

__all__ = ["CandidateSet", "swap_candidates"]


@dataclass(frozen=True, slots=True)
class CandidateSet:
    """Candidates, their pool, and each candidate's whole chain and window duties."""

    candidates: Candidates
    pool: Pool
    chains: list[list[SyntheticDuty]]
    windows: list[list[SyntheticDuty]]
    crew: list[str]


def _hours(t: datetime) -> float:
    return t.timestamp() / 3600.0


def swap_candidates(
    engine: Engine,
    duties: list[SyntheticDuty],
    n: int,
    *,
    days: int = 3,
    first_day: datetime = datetime(2026, 3, 1, tzinfo=UTC),
    span_days: int = 40,
    seed: int = 1,
    first_window_day: int = 4,
) -> CandidateSet:
    """``n`` swap candidates of ``days``-day windows starting on a day from
    ``first_window_day`` to ``span_days - days - 2`` (module docstring)."""
    rng = random.Random(seed)
    by: dict[str, list[SyntheticDuty]] = {}
    for d in duties:
        by.setdefault(d.reference, []).append(d)
    first_days = (first_window_day, span_days - days - 1)
    chains: list[list[SyntheticDuty]] = []
    windows: list[list[SyntheticDuty]] = []
    crew: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    while len(chains) < n:
        swap = _draw_swap(rng, by, first_day, first_days, days)
        if swap is None:
            continue
        r, ws, we, new, kept = swap
        k = len(chains)
        windows.append([replace(d, reference=f"K{k:06d}") for d in new])
        chain = sorted(kept + [replace(d, reference=r) for d in new], key=lambda d: d.on_duty)
        chains.append(chain)
        crew.append(r)
        starts.append(_hours(ws))
        ends.append(_hours(we))
    pool, ptr, index = _window_pool(engine, windows)
    cands = Candidates(
        np.array([engine.crew_index(r) for r in crew], dtype=np.int64),
        np.array(starts),
        np.array(ends),
        np.array(ptr, dtype=np.int64),
        np.array(index, dtype=np.int64),
    )
    return CandidateSet(cands, pool, chains, windows, crew)


def _draw_swap(
    rng: random.Random,
    by: dict[str, list[SyntheticDuty]],
    first_day: datetime,
    first_days: tuple[int, int],
    days: int,
) -> tuple[str, datetime, datetime, list[SyntheticDuty], list[SyntheticDuty]] | None:
    """One random swap: a crew member, a window starting ``first_days`` days (a
    ``randrange``) after ``first_day``, the duties a mate of the same home flies inside
    it and the member's duties outside it; None if the draw makes no chain."""
    refs = list(by)
    r = rng.choice(refs)
    mates = [m for m in refs if by[m][0].home == by[r][0].home and m != r]
    if not mates:
        return None
    other = rng.choice(mates)
    ws = first_day + timedelta(days=rng.randrange(*first_days))
    we = ws + timedelta(days=days)
    new = [d for d in by[other] if d.on_duty >= ws and d.off_duty <= we]
    kept = [d for d in by[r] if not (d.on_duty < we and d.off_duty > ws)]
    if not kept or (not new and kept[0].on_duty >= ws):
        return None  # a chain starts with a kept duty or the window's first (its warm-up)
    return r, ws, we, new, kept


def _window_pool(
    engine: Engine, windows: list[list[SyntheticDuty]]
) -> tuple[Pool, list[int], list[int]]:
    """The pool of every window's duties (one group per candidate) and, as CSR, each
    candidate's pool duties."""
    pool_rows = [d for w in windows for d in w]
    pool = engine.pool_from_roster(render_roster(pool_rows)) if pool_rows else None
    if pool is None:  # pragma: no cover - every window empty
        raise ValueError("no candidate has duties in its window")
    ptr = [0]
    index: list[int] = []
    groups = {ref: g for g, ref in enumerate(pool.plan.references)}
    for k, w in enumerate(windows):
        if w:
            g = groups[f"K{k:06d}"]
            index.extend(range(int(pool.plan.offsets[g]), int(pool.plan.offsets[g + 1])))
        ptr.append(len(index))
    return pool, ptr, index
