"""Long gaps between duties start from the rested steady state (reference §2.1, §3, §9.4).

The model's state forgets a duty within days. At home base, with habitual sleep:

- the homeostatic process S returns to its steady state within 0.01 in at most 5 days,
  even from its lower asymptote S = 2.4 (reference §2.1 invariants, §9.4);
- the body clock phi reaches the home-base offset at no less than 1.0 h/day, and no shift
  exceeds 9.6 h in the slower (advance) direction (the antidromic rule, reference §3:
  24·r_E/(r_E + r_W) = 9.6 h at r_E = 1.0, r_W = 1.5 h/day), so within 9.6 days;
- sleep inertia is gone after 2.7 h (§2.3).

So after :data:`GAP_DAYS` days off at home (longer than 5 + 9.6 days, the two processes
run at once, with a margin of about two) the state at the next duty's warm-up is the one
the warm-up itself starts from (§9.4: S = 13.82, phi = the home-base offset). Simulating
the gap minute by minute would cost days × crew and change nothing, so such a schedule is
scored as independent *segments*, each with its own 72-h warm-up, and the segments'
results are joined back into one schedule. The scores of a schedule without such a gap
are untouched.

A gap is only cut where the model places the person at home through it: the duty before
it ends at home base (not ``away``, and in the crew member's base time zone), and the
crew member has no given SleepData and no activities (given sleep is used exactly as
given, contract §3.2; an activity may fall in the gap).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import chain

import numpy as np

from vigil.domain import Schedule
from vigil.scoring import grid
from vigil.scoring.grid import IntArray
from vigil.scoring.plan import CrewPlan
from vigil.scoring.report import DutyResult, ScheduleResult

__all__ = ["GAP_DAYS", "Segments", "join_segments", "split_long_gaps"]

#: A gap off duty longer than this starts from the rested steady state (module docstring).
GAP_DAYS = 28


class Segments:
    """A plan cut at its long gaps, and which original crew member each segment is."""

    __slots__ = ("owner", "plan")

    def __init__(self, plan: CrewPlan, owner: IntArray) -> None:
        self.plan = plan
        self.owner = owner


def split_long_gaps(plan: CrewPlan, gap_days: float = GAP_DAYS) -> Segments:
    """Cut every crew member's duties at gaps longer than ``gap_days`` spent at home.

    Returns the plan unchanged (each crew member its own segment) when no gap qualifies.
    Duty arrays keep their order: only the crew boundaries (``offsets``) and the
    per-crew fields change; a later segment's warm-up is computed from its first duty.
    """
    n = plan.n_crew
    identity = Segments(plan, np.arange(n, dtype=np.int64))
    if plan.on.size < 2:
        return identity
    crew = plan.crew
    gap = plan.on[1:] - plan.off[:-1]  # chronological and not overlapping per crew member
    same = crew[1:] == crew[:-1]
    free = np.array([not s and not a for s, a in zip(plan.sleep, plan.activities, strict=True)])
    at_home = (plan.away[:-1] == 0) & (plan.end_zone[:-1] == plan.home_zone[crew[:-1]])
    cut = same & (gap > gap_days * 24.0) & free[crew[:-1]] & at_home
    if not cut.any():
        return identity
    starts = np.union1d(plan.offsets[:-1], np.flatnonzero(cut) + 1)  # first duty per segment
    owner = crew[starts]
    offsets = np.append(starts, plan.on.size).astype(np.int64)
    first_of_crew = np.zeros(starts.size, dtype=bool)
    first_of_crew[np.searchsorted(starts, plan.offsets[:-1])] = True
    warmup = tuple(
        plan.warmup[int(o)]
        if first
        else grid.warmup_from(plan.zones[int(plan.home_zone[int(o)])], plan.on_instant[int(s)])
        for o, s, first in zip(owner.tolist(), starts.tolist(), first_of_crew.tolist(), strict=True)
    )
    original = plan.schedules

    def schedules(crew_ids: IntArray) -> Sequence[Schedule]:
        return original(owner[crew_ids])

    pick = owner.tolist()
    segmented = replace(
        plan,
        references=tuple(plan.references[i] for i in pick),
        offsets=offsets,
        home_zone=plan.home_zone[owner],
        home_base=tuple(plan.home_base[i] for i in pick),
        warmup=warmup,
        activities=tuple(plan.activities[i] for i in pick),
        sleep=tuple(plan.sleep[i] for i in pick),
        schedules=schedules,
    )
    return Segments(segmented, owner)


def join_segments(results: Sequence[ScheduleResult], owner: IntArray) -> list[ScheduleResult]:
    """One result per original crew member: its segments' scores, duties and sleep joined
    in order (duties' ``first_interval`` counted from the schedule's first interval)."""
    if len(results) == 0 or owner.size == 0 or owner[-1] == owner.size - 1:
        return list(results)  # nothing was cut
    joined: list[ScheduleResult] = []
    bounds = np.flatnonzero(np.diff(owner)) + 1
    for lo, hi in zip([0, *bounds.tolist()], [*bounds.tolist(), owner.size], strict=True):
        if hi - lo == 1:
            joined.append(results[lo])
            continue
        parts = results[lo:hi]
        duties: list[DutyResult] = []
        shift = 0
        for part in parts:
            duties.extend(d._replace(first_interval=d.first_interval + shift) for d in part.duties)
            shift += next(iter(part.scores.values())).size if part.scores else 0
        joined.append(
            ScheduleResult(
                reference=parts[0].reference,
                scores={c: np.concatenate([p.scores[c] for p in parts]) for c in parts[0].scores},
                duties=tuple(duties),
                sleep=tuple(chain.from_iterable(p.sleep for p in parts)),
            )
        )
    return joined
