"""Brute-force protection for client authentication (contract §1, §8).

10 failed authentications for one client ID within 5 minutes block that client ID:
further token requests for it answer 429 with ``Retry-After`` until fewer than 10
failures remain inside the sliding window. Other client IDs are unaffected. While
blocked, attempts are refused *before* the secret is checked and are not counted
(ours), so a blocked attacker cannot extend the block of a legitimate client forever,
and a success does not reset the count (ours: the window simply slides).

The state is in process memory (ours): each server process limits on its own, which
bounds guesses to ``10 × processes`` per window. At most ``max_keys`` client IDs are
tracked, so random IDs cannot exhaust memory.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

#: failures that trigger the block (contract §8)
MAX_FAILURES = 10
#: sliding window [s] (contract §8: 5 minutes)
WINDOW = 300.0


class FailureLimiter:
    """Count authentication failures per key in a sliding window.

    Parameters
    ----------
    max_failures : int
        Failures inside ``window`` that block a key.
    window : float
        Window length [s].
    clock : callable
        Monotonic clock [s]; injectable for tests.
    max_keys : int
        Most keys tracked at once.
    """

    def __init__(
        self,
        *,
        max_failures: int = MAX_FAILURES,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 100_000,
    ) -> None:
        self.max_failures = max_failures
        self.window = window
        self._clock = clock
        self._max_keys = max_keys
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failures.get(key)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[key]
        return times

    def retry_after(self, keys: Iterable[str]) -> int | None:
        """Seconds until the most blocked of ``keys`` is free, or ``None`` if none is."""
        now = self._clock()
        worst: float | None = None
        with self._lock:
            for key in keys:
                times = self._recent(key, now)
                if len(times) >= self.max_failures:
                    free_at = times[-self.max_failures] + self.window
                    worst = free_at if worst is None else max(worst, free_at)
        return None if worst is None else max(1, math.ceil(worst - now))

    def failures(self, key: str) -> int:
        """Failures of ``key`` inside the window."""
        with self._lock:
            return len(self._recent(key, self._clock()))

    def record_failure(self, keys: Iterable[str]) -> None:
        """Count one failure against each of ``keys``."""
        now = self._clock()
        with self._lock:
            for key in keys:
                times = self._recent(key, now)
                if key not in self._failures:
                    if len(self._failures) >= self._max_keys:
                        self._evict(now)
                    self._failures[key] = times
                times.append(now)

    def _evict(self, now: float) -> None:
        for key in list(self._failures):
            self._recent(key, now)
        while len(self._failures) >= self._max_keys:
            oldest = min(self._failures, key=lambda k: self._failures[k][-1])
            del self._failures[oldest]
