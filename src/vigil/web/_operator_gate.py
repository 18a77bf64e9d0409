"""One operator's synchronous scoring cannot take every thread (docs/hardening.md).

Large scoring calls run in the thread pool. Without a bound, one tenant sending many at
once holds every thread and core, and another tenant's call waits behind them all. An
:class:`OperatorGate` lets each operator run ``limit`` calls at once per process; up to
``queue`` more wait (in arrival order, holding no thread), and beyond that the call is
refused at once (:class:`GateFull`, answered 429 with ``Retry-After``). Other operators'
calls never wait for this operator's places.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["GateFull", "OperatorGate"]


class GateFull(Exception):
    """The operator already has ``limit`` calls running and ``queue`` waiting."""


class _Lane:
    __slots__ = ("running", "waiters")

    def __init__(self) -> None:
        self.running = 0
        self.waiters: list[asyncio.Future[None]] = []


class OperatorGate:
    """At most ``limit`` running and ``queue`` waiting calls per operator (one event loop)."""

    def __init__(self, limit: int, queue: int) -> None:
        self.limit = limit
        self.queue = queue
        self._lanes: dict[str, _Lane] = {}

    def running(self, operator: str) -> int:
        lane = self._lanes.get(operator)
        return 0 if lane is None else lane.running

    @asynccontextmanager
    async def slot(self, operator: str) -> AsyncIterator[None]:
        lane = self._lanes.setdefault(operator, _Lane())
        if lane.running >= self.limit:
            if len(lane.waiters) >= self.queue:
                self._drop_if_idle(operator, lane)
                raise GateFull(operator)
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            lane.waiters.append(waiter)
            try:
                await waiter  # the place is handed over by the finishing call
            except BaseException:
                if waiter in lane.waiters:
                    lane.waiters.remove(waiter)
                elif waiter.done() and not waiter.cancelled():
                    self._release(operator, lane)  # handed a place, then cancelled
                raise
        else:
            lane.running += 1
        try:
            yield
        finally:
            self._release(operator, lane)

    def _release(self, operator: str, lane: _Lane) -> None:
        while lane.waiters:
            waiter = lane.waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)  # the place passes on: running stays the same
                return
        lane.running -= 1
        self._drop_if_idle(operator, lane)

    def _drop_if_idle(self, operator: str, lane: _Lane) -> None:
        if lane.running == 0 and not lane.waiters:
            self._lanes.pop(operator, None)
