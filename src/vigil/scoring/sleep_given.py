"""Given sleep (SleepData) of many crew members as :class:`SleepArrays`, by array passes.

Reference §4.4: records are used exactly as given; a record lying mostly inside a duty
is in-flight sleep with that duty's quality (§5.2); habitual 23:00-07:00 home-base nights
fill the warm-up before the first record (§9.4). The result equals the per-schedule
reference (``tests/reference/grid_rows.py``, ``tests/scoring/test_plan.py``); instants are
compared in whole microseconds, as that reference's ``datetime`` arithmetic does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import numba as nb
import numpy as np

from vigil.model.parameters import Parameters
from vigil.roster.sleep_columns import instant_of, microseconds_of, record_arrays
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, IntArray
from vigil.scoring.plan import CrewPlan
from vigil.scoring.sleep_arrays import KIND_NAMES, SleepArrays

__all__ = ["given_sleep"]

_MAIN, _INFLIGHT = KIND_NAMES.index("main"), KIND_NAMES.index("inflight")
_MIN_PIECE = timedelta(minutes=30)  # as grid.habitual_nights (reference §4.2)


def given_sleep(plan: CrewPlan, crew: IntArray, params: Parameters) -> SleepArrays:
    """Given sleep plus warm-up nights of crew members ``crew`` of ``plan`` (rows in
    ``crew`` order), from the plan's arrays (module docstring)."""
    del params  # in-flight quality is the plan's, computed with the request's preset
    crew_list = crew.tolist()
    counts, start_us, end_us = record_arrays([plan.sleep[i] for i in crew_list])
    owner = np.repeat(np.arange(len(crew_list)), counts)
    order = np.lexsort((start_us, owner))  # by crew, then start (stable, as sorted())
    owner, start_us, end_us = owner[order], start_us[order], end_us[order]
    duty_lo, duty_hi = plan.offsets[crew], plan.offsets[crew + 1]
    duty = _containing(
        _duty_microseconds(plan.on_instant, duty_lo, duty_hi),
        _duty_microseconds(plan.off_instant, duty_lo, duty_hi),
        np.concatenate([[0], np.cumsum(duty_hi - duty_lo)]).astype(np.int64),
        owner,
        start_us,
        end_us,
    )
    inside = duty >= 0
    global_duty = np.where(inside, duty_lo[owner] + duty, 0)
    firsts = np.searchsorted(owner, np.arange(len(crew_list)))
    first_start = [instant_of(t) for t in start_us[firsts].tolist()] if start_us.size else []
    nights = _warmup_nights(plan, crew_list, first_start)
    n_nights = np.array([len(n) for n in nights], dtype=np.int64)
    flat = [night for per_crew in nights for night in per_crew]
    night_owner = np.repeat(np.arange(len(crew_list)), n_nights)
    rows = np.argsort(np.concatenate([night_owner, owner]), kind="stable")  # nights first
    counts = n_nights + np.bincount(owner, minlength=len(crew_list))
    return SleepArrays(
        np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        np.concatenate([_hours_of([a for a, _ in flat]), _hours(start_us)])[rows],
        np.concatenate([_hours_of([b for _, b in flat]), _hours(end_us)])[rows],
        np.concatenate(
            [np.ones(len(flat)), np.where(inside, plan.inflight_quality[global_duty], 1.0)]
        )[rows],
        np.concatenate([np.full(len(flat), _MAIN), np.where(inside, _INFLIGHT, _MAIN)]).astype(
            np.int64
        )[rows],
        np.concatenate([np.zeros(len(flat), dtype=bool), np.ones(owner.size, dtype=bool)])[rows],
    )


def _warmup_nights(
    plan: CrewPlan, crew: Sequence[int], first_start: Sequence[datetime]
) -> list[list[tuple[datetime, datetime]]]:
    """Habitual home-base nights from each warm-up start until the first record or the
    first duty's wake-up for commute and preparation, whichever is earlier (§9.4).

    Crew members of one home zone and warm-up start share their nights: they are found
    once (:func:`grid.habitual_nights`), up to a day past the latest of their limits so
    that none is cut, and then cut at each member's own limit (:func:`_until`).
    """
    keys, limits = [], []
    for i, first in zip(crew, first_start, strict=True):
        d0 = int(plan.offsets[i])
        ready = timedelta(minutes=int(plan.ready_minutes[d0]))
        limits.append(min(first, plan.on_instant[d0] - ready))
        keys.append((plan.zones[plan.home_zone[i]], plan.warmup[i]))
    latest: dict[tuple[str, datetime], datetime] = {}
    for key, limit in zip(keys, limits, strict=True):
        latest[key] = max(latest.get(key, limit), limit)
    nights = {
        (zone, start): grid.habitual_nights(zone, start, limit + timedelta(days=1))
        for (zone, start), limit in latest.items()
    }
    return [_until(nights[key], limit) for key, limit in zip(keys, limits, strict=True)]


def _until(
    nights: Sequence[tuple[datetime, datetime]], limit: datetime
) -> list[tuple[datetime, datetime]]:
    """:func:`grid.habitual_nights` up to ``limit`` from the uncut nights of the same zone
    and start (each under a day long): those starting before ``limit``, cut at it, and
    pieces shorter than 30 min dropped (reference §4.2 minimum episode)."""
    out = []
    for bed, wake in nights:
        if bed >= limit:
            break
        end = min(wake, limit)
        if end - bed >= _MIN_PIECE:
            out.append((bed, end))
    return out


def _microseconds(instants: Sequence[datetime]) -> IntArray:
    """Aware datetimes → whole microseconds since the epoch.

    A month's plan shares a few thousand distinct instants among its 280,000 duty
    reports and ends: from 1,000 instants on, each distinct one is converted once.
    """
    if len(instants) < 1000:
        return np.array([microseconds_of(t) for t in instants], dtype=np.int64)
    distinct = {t: microseconds_of(t) for t in set(instants)}
    return np.fromiter(map(distinct.__getitem__, instants), np.int64, len(instants))


def _duty_microseconds(instants: Sequence[datetime], lo: IntArray, hi: IntArray) -> IntArray:
    """Microseconds of ``instants[lo[c]:hi[c]]`` for every crew member ``c``, flat."""
    return _microseconds(
        [t for a, b in zip(lo.tolist(), hi.tolist(), strict=True) for t in instants[a:b]]
    )


def _hours(microseconds: IntArray) -> FloatArray:
    """Microseconds → epoch hours, rounded as :func:`grid.epoch_hours` (timestamp / 3600)."""
    out: FloatArray = microseconds / 1e6 / 3600.0
    return out


def _hours_of(instants: Sequence[datetime]) -> FloatArray:
    return np.array([grid.epoch_hours(t) for t in instants], dtype=np.float64)


@nb.njit(cache=True)
def _containing(
    on: IntArray,
    off: IntArray,
    duty_ptr: IntArray,
    owner: IntArray,
    start: IntArray,
    end: IntArray,
) -> IntArray:
    """For each record ``[start, end)`` of crew member ``owner``, the index (within that
    crew member's duties ``duty_ptr[c]:duty_ptr[c + 1]``) of the duty holding more than
    half of it, or -1, in microseconds (``timedelta / 2`` rounds half to even), as the
    per-schedule reference finds it (``tests/reference/grid_rows.py``)."""
    out = np.full(start.size, -1, np.int64)
    for j in range(start.size):
        lo, hi = duty_ptr[owner[j]], duty_ptr[owner[j] + 1]
        i = lo + np.searchsorted(on[lo:hi], end[j]) - 1  # bisect_left
        length = end[j] - start[j]
        half, odd = length // 2, length % 2
        half += odd & (half & 1)  # round half to even
        for k in range(max(i - 1, lo), i + 1):
            if min(end[j], off[k]) - max(start[j], on[k]) > half:
                out[j] = k - lo
                break
    return out
