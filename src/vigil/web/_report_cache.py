"""Calibration reports kept in memory, bounded per operator and in total.

A report holds every compared rating (a 7.6 MiB observation set made a report of about
100 MiB), so a cache counted in reports let one operator's large sets fill the process
and push out everyone else's. :class:`ReportCache` weighs each report by its ratings
(matched and not compared) and keeps at most ``per_operator`` of that weight per
operator and ``total`` in all, evicting the least recently used report of the operator
that is over, then across operators. One operator's reports never evict another's
while that operator is within its share.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["ReportCache"]

T = TypeVar("T")


class ReportCache(Generic[T]):
    """LRU of ``(operator, key) → value`` bounded by weight per operator and in total."""

    def __init__(self, *, per_operator: int, total: int) -> None:
        self.per_operator = per_operator
        self.total = total
        self._entries: OrderedDict[tuple[str, Hashable], tuple[T, int]] = OrderedDict()
        self._weights: dict[str, int] = {}
        self._lock = threading.Lock()

    def get(self, operator: str, key: Hashable) -> T | None:
        with self._lock:
            found = self._entries.get((operator, key))
            if found is None:
                return None
            self._entries.move_to_end((operator, key))
            return found[0]

    def put(self, operator: str, key: Hashable, value: T, weight: int) -> None:
        """Keep ``value`` unless it alone exceeds the operator's share (then not kept)."""
        weight = max(1, weight)
        with self._lock:
            self._drop((operator, key))
            if weight > self.per_operator or weight > self.total:
                return
            self._entries[(operator, key)] = (value, weight)
            self._weights[operator] = self._weights.get(operator, 0) + weight
            while self._weights[operator] > self.per_operator:
                oldest = next(k for k in self._entries if k[0] == operator)
                self._drop(oldest)
            while sum(self._weights.values()) > self.total:
                self._drop(next(iter(self._entries)))

    def discard(self, operator: str, key: Hashable) -> None:
        with self._lock:
            for entry in [k for k in self._entries if k[0] == operator and _first(k[1]) == key]:
                self._drop(entry)

    def weight(self, operator: str) -> int:
        with self._lock:
            return self._weights.get(operator, 0)

    def _drop(self, entry: tuple[str, Hashable]) -> None:
        found = self._entries.pop(entry, None)
        if found is None:
            return
        operator = entry[0]
        left = self._weights[operator] - found[1]
        if left:
            self._weights[operator] = left
        else:
            del self._weights[operator]


def _first(key: Hashable) -> Hashable:
    return key[0] if isinstance(key, tuple) and key else key
