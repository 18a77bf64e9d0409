"""Candidate chains as one :class:`~vigil.scoring.plan.CrewPlan`, gathered from two plans.

A candidate keeps its crew member's base duties outside a time window and puts a pool's
duties inside it. Every per-duty field of a plan (epoch times, lead and lag, away flag,
rest windows, zones, reference §4.1, §5.1, §7) is a property of the duty and its
HomeBase alone, so a candidate chain's plan is the base plan's and the pool plan's rows
gathered by index: no parsing and no planning per candidate. Per crew member the warm-up
start, home zone and HomeBase list (reference §9.4) come from the chain's first duty:
the base crew member's, or the pool group's when the window replaces the first duty.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar, overload

import numpy as np
import numpy.typing as npt

from vigil.domain import Schedule
from vigil.optimise._scoring import CrewPlan

__all__ = ["Pool", "Sources", "gather_plan", "merge_zones"]

T = TypeVar("T")
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_DUTY_FIELDS = (
    "on", "off", "count", "sectors", "workload", "cabin", "lead", "lag", "away",
    "ready_minutes", "inflight_quality",
)  # fmt: skip
_REST_FIELDS = (
    "rest_start", "rest_end", "rest_sleep_start", "rest_sleep_end", "rest_quality",
    "rest_inflight",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Pool:
    """Duties candidates may use: a plan whose schedules are duty groups (pairings,
    candidates' window contents), its zones mapped into the base plan's zone table."""

    plan: CrewPlan
    zone_map: IntArray  #: pool zone index -> index into the merged zone table
    zones: tuple[str, ...]  #: the merged zone table (base zones first)
    end_weight: FloatArray  #: category weight of each pool duty's end airport


def merge_zones(base: CrewPlan, pool: CrewPlan, end_weight: FloatArray | None = None) -> Pool:
    """``pool`` with its zone indices mapped into a table extending ``base.zones``."""
    weights = np.ones(pool.on.size) if end_weight is None else end_weight
    names = list(base.zones)
    index = {z: i for i, z in enumerate(names)}
    mapping = []
    for z in pool.zones:
        if z not in index:
            index[z] = len(names)
            names.append(z)
        mapping.append(index[z])
    return Pool(pool, np.array(mapping or [0], dtype=np.int64), tuple(names), weights)


@dataclass(frozen=True, slots=True)
class Sources:
    """Where each chain's duties and per-crew fields come from.

    Duty ``k`` of the gathered plan is base duty ``src[k]`` when ``src[k] < D_base``,
    else pool duty ``src[k] - D_base``. Chain ``i`` owns duties ``offsets[i]:offsets[i+1]``
    and takes its per-crew fields from base crew ``head_base[i]`` or, when that is -1,
    from pool group ``head_pool[i]``.
    """

    src: IntArray
    offsets: IntArray
    head_base: IntArray
    head_pool: IntArray


class _Gathered(Sequence[datetime]):
    """Rows ``src`` of two sequences laid end to end, read only when indexed."""

    def __init__(self, first: Sequence[datetime], second: Sequence[datetime], src: IntArray):
        self._first, self._second, self._src, self._n = first, second, src, len(first)

    def __len__(self) -> int:
        return int(self._src.size)

    @overload
    def __getitem__(self, k: int) -> datetime: ...
    @overload
    def __getitem__(self, k: slice) -> Sequence[datetime]: ...
    def __getitem__(self, k: int | slice) -> datetime | Sequence[datetime]:
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        s = int(self._src[k])
        return self._first[s] if s < self._n else self._second[s - self._n]

    def __iter__(self) -> Iterator[datetime]:
        return (self[j] for j in range(len(self)))


def gather_plan(base: CrewPlan, pool: Pool, sources: Sources) -> CrewPlan:
    """The plan of the chains ``sources`` describes (see :class:`Sources`)."""
    p = pool.plan
    src = sources.src
    fields: dict[str, object] = {}
    for name in _DUTY_FIELDS:
        both = np.concatenate([getattr(base, name), getattr(p, name)])
        fields[name] = both[src]
    for name in ("start_zone", "end_zone"):
        both = np.concatenate([getattr(base, name), pool.zone_map[getattr(p, name)]])
        fields[name] = both[src]
    # rest windows: each duty's CSR rows, in duty order
    n_base_w = base.rest_ptr[-1]
    row_start = np.concatenate([base.rest_ptr[:-1], p.rest_ptr[:-1] + n_base_w])[src]
    row_count = np.concatenate([np.diff(base.rest_ptr), np.diff(p.rest_ptr)])[src]
    ptr = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(row_count, out=ptr[1:])
    rows = np.repeat(row_start - ptr[:-1], row_count) + np.arange(int(ptr[-1]))
    fields["rest_ptr"] = ptr
    for name in _REST_FIELDS:
        fields[name] = np.concatenate([getattr(base, name), getattr(p, name)])[rows]
    hb, hp = sources.head_base, sources.head_pool
    from_base = hb >= 0
    home_zone = np.where(from_base, base.home_zone[np.maximum(hb, 0)], 0)
    if (~from_base).any():
        home_zone[~from_base] = pool.zone_map[p.home_zone[hp[~from_base]]]
    # per-crew fields: base crew ``hb``, else pool group ``hp`` (rows of both laid end to end)
    head = np.where(from_base, hb, base.n_crew + hp)
    empty = ((),) * head.size
    return CrewPlan(
        references=_take(base.references, p.references, head),
        offsets=sources.offsets,
        on_instant=_Gathered(base.on_instant, p.on_instant, src),
        off_instant=_Gathered(base.off_instant, p.off_instant, src),
        zones=pool.zones,
        home_zone=home_zone.astype(np.int64),
        home_base=_take(base.home_base, p.home_base, head),
        warmup=_take(base.warmup, p.warmup, head),
        activities=empty,
        sleep=empty,
        schedules=_no_schedules,
        **fields,  # type: ignore[arg-type]
    )


def _take(first: Sequence[T], second: Sequence[T], rows: IntArray) -> tuple[T, ...]:
    """Rows ``rows`` of ``first`` and ``second`` laid end to end, as a tuple."""
    both = [*first, *second]
    return tuple(map(both.__getitem__, rows.tolist()))


def _no_schedules(crew: IntArray) -> Sequence[Schedule]:
    raise NotImplementedError("candidate chains have no Schedule objects")
