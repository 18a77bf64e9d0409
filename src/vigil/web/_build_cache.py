"""A bounded per-operator cache of values built once per roster, with builds in progress
tracked so that concurrent first views wait for one build instead of each building
(the console's duty explorer keeps its filter columns in one: :class:`RuntimeState`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Generic, TypeVar

__all__ = ["BuildCache", "Key"]

V = TypeVar("V")
Key = tuple[Any, ...]


class BuildCache(Generic[V]):
    """Values per key whose first item is the operator and second the roster (e.g.
    (operator, upload, last update, scale)), least recently used first out, bounded in
    all (``limit``) and per operator (``per_operator``); builds in progress are tracked
    so that each roster is built once."""

    def __init__(self, limit: int, per_operator: int) -> None:
        self.limit = limit
        self.per_operator = per_operator
        self._items: OrderedDict[Key, V] = OrderedDict()
        self._building: dict[Key, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, key: Key) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Key, columns: V) -> None:
        with self._lock:
            # an older build of the same roster (before an overwrite) goes first
            for old in [k for k in self._items if k[:2] == key[:2] and k != key]:
                del self._items[old]
            self._items[key] = columns
            self._items.move_to_end(key)
            own = [k for k in self._items if k[0] == key[0]]
            while len(own) > self.per_operator:
                del self._items[own.pop(0)]
            while len(self._items) > self.limit:
                self._items.popitem(last=False)

    def claim(self, key: Key) -> threading.Event | None:
        """Mark ``key`` as being built and return its event (set by :meth:`release`);
        ``None`` when it is cached or already being built."""
        with self._lock:
            if key in self._items or key in self._building:
                return None
            event = self._building[key] = threading.Event()
            return event

    def release(self, key: Key) -> None:
        with self._lock:
            event = self._building.pop(key, None)
        if event is not None:
            event.set()

    def wait(self, key: Key, timeout: float) -> None:
        """Wait (at most ``timeout``) for a build of ``key`` in progress, if any."""
        with self._lock:
            event = self._building.get(key)
        if event is not None:
            event.wait(timeout)

    def __len__(self) -> int:
        return len(self._items)
