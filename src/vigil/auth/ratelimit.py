"""Failed-credential throttling (contract §1, §8).

A :class:`FailureLimiter` counts failures per key in a sliding window and says how long
a key must wait once it has ``max_failures`` failures inside ``window`` seconds. The
*policy* (which keys) belongs to the callers; ours (docs/identity.md, docs/hardening.md):

- the token endpoint and Basic calls key failures by **source address and client ID**
  and by **source address** alone, so a caller who knows a client ID can only block
  itself, never the client's owner elsewhere. Correct credentials from another address
  always work; per-client failures from all addresses only slow *failed* answers down;
- the console keys failures by source address and username, and by source address.

While a key is blocked, attempts are refused *before* any secret is checked and are not
counted, so a blocked attacker cannot extend its block forever; a success does not reset
the count (the window slides).

The counts live in a :class:`FailureStore`, so every server process (``vigil serve
--workers N``) and host shares them: :class:`MemoryFailureStore` here (one process,
tests), the database or Redis in :mod:`vigil.store.failures`. Keys are hashed
(SHA-256) before they reach a store: a secret pasted into a client-ID field must not be
written anywhere.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

#: failures that trigger the block (contract §8)
MAX_FAILURES = 10
#: sliding window [s] (contract §8: 5 minutes)
WINDOW = 300.0


class FailureStore(Protocol):
    """Where failure instants are kept, by hashed key."""

    def add(self, keys: Sequence[str], at: float) -> None:
        """Record one failure at ``at`` [s since the epoch] against each key."""
        ...

    def recent(self, key: str, since: float, limit: int) -> list[float]:
        """Failure instants of ``key`` later than ``since``, newest first, at most ``limit``."""
        ...


class MemoryFailureStore:
    """A :class:`FailureStore` in process memory, tracking at most ``max_keys`` keys."""

    def __init__(self, *, max_keys: int = 100_000, horizon: float = WINDOW) -> None:
        self._max_keys = max_keys
        self._horizon = horizon
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._failures)

    def add(self, keys: Sequence[str], at: float) -> None:
        with self._lock:
            for key in keys:
                times = self._failures.get(key)
                if times is None:
                    if len(self._failures) >= self._max_keys:
                        self._evict(at)
                    times = self._failures[key] = deque()
                times.append(at)
                while times and times[0] <= at - self._horizon:
                    times.popleft()

    def recent(self, key: str, since: float, limit: int) -> list[float]:
        with self._lock:
            times = self._failures.get(key)
            if not times:
                return []
            out = [t for t in reversed(times) if t > since][:limit]
            if not out and times[-1] <= since - self._horizon:
                del self._failures[key]
            return out

    def _evict(self, now: float) -> None:
        for key in [k for k, v in self._failures.items() if not v or v[-1] <= now - self._horizon]:
            del self._failures[key]
        while len(self._failures) >= self._max_keys:
            oldest = min(self._failures, key=lambda k: self._failures[k][-1])
            del self._failures[oldest]


def hashed(key: str) -> str:
    """The store form of a throttle key (SHA-256 hex): nothing typed is stored verbatim."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class FailureLimiter:
    """Count authentication failures per key in a sliding window.

    Parameters
    ----------
    max_failures : int
        Failures inside ``window`` that block a key.
    window : float
        Window length [s].
    store : FailureStore, optional
        Shared storage; a private :class:`MemoryFailureStore` when omitted.
    clock : callable
        Wall clock [s since the epoch] (shared stores compare instants across
        processes); injectable for tests.
    max_keys : int
        Most keys tracked by the default memory store.
    """

    def __init__(
        self,
        *,
        max_failures: int = MAX_FAILURES,
        window: float = WINDOW,
        store: FailureStore | None = None,
        clock: Callable[[], float] = time.time,
        max_keys: int = 100_000,
    ) -> None:
        self.max_failures = max_failures
        self.window = window
        self.store: FailureStore = store or MemoryFailureStore(max_keys=max_keys, horizon=window)
        self._clock = clock

    def retry_after(self, keys: Iterable[str]) -> int | None:
        """Seconds until the most blocked of ``keys`` is free, or ``None`` if none is."""
        now = self._clock()
        worst: float | None = None
        for key in keys:
            times = self.store.recent(hashed(key), now - self.window, self.max_failures)
            if len(times) >= self.max_failures:
                free_at = times[-1] + self.window
                worst = free_at if worst is None else max(worst, free_at)
        return None if worst is None else max(1, math.ceil(worst - now))

    def failures(self, key: str, *, cap: int = 100) -> int:
        """Failures of ``key`` inside the window (counted up to ``cap``)."""
        return len(self.store.recent(hashed(key), self._clock() - self.window, cap))

    def record_failure(self, keys: Iterable[str]) -> None:
        """Count one failure against each of ``keys``."""
        self.store.add([hashed(k) for k in keys], self._clock())
