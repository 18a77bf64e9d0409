"""A bound on expensive work per process: password hashing.

An argon2id check costs about 64 MiB and 0.25 s of one core. Without a bound, anonymous
sign-in attempts queue up that work without limit and starve every other request.
:class:`WorkGate` runs at most ``slots`` of them at once, lets at most ``queue`` more
wait up to ``wait`` seconds, and turns everything beyond away at once (the caller
answers 503 with ``Retry-After``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class WorkGate:
    """Admission control for a kind of expensive, blocking work.

    Parameters
    ----------
    slots : int
        Jobs running at once.
    queue : int
        Jobs allowed to wait for a slot.
    wait : float
        Longest wait for a slot [s].
    """

    def __init__(self, *, slots: int, queue: int, wait: float) -> None:
        if slots < 1 or queue < 0 or wait <= 0:
            raise ValueError("slots >= 1, queue >= 0 and wait > 0 are required")
        self.slots = slots
        self.queue = queue
        self.wait = wait
        self._semaphore = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self._waiting = 0
        #: jobs turned away so far (tests, metrics)
        self.refused = 0

    def _admit(self) -> bool:
        if self._semaphore.acquire(blocking=False):
            return True
        with self._lock:
            if self._waiting >= self.queue:
                self.refused += 1
                return False
            self._waiting += 1
        try:
            got = self._semaphore.acquire(timeout=self.wait)
        finally:
            with self._lock:
                self._waiting -= 1
        if not got:
            with self._lock:
                self.refused += 1
        return got

    @contextmanager
    def slot(self) -> Iterator[bool]:
        """Hold a slot for the ``with`` body; yields ``False`` (no slot held) when refused."""
        admitted = self._admit()
        try:
            yield admitted
        finally:
            if admitted:
                self._semaphore.release()
