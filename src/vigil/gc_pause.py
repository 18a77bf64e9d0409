"""Python's cyclic garbage collector paused while many small acyclic objects are built.

Reading a 150,000-row roster, its SleepData, scoring and writing a 10,000-crew month
allocate millions of tracked objects (rows, records, duty results, JSON entries) and no
reference cycles: reference counting frees them, and the collector's repeated passes over
the growing heap found nothing but cost time (reading: benchmarks/bench_roster.py 4-5 s
with, 2.7 s without; `vigil score` on the month: 0.4 CPU-s of 9, 20 objects collected in
all, measured with ``gc.callbacks``). Usable by every layer, like :mod:`vigil.tz`.

The collector is one switch for the whole process, and pauses overlap across threads (the
kernel warm-up scores on its own thread while ``vigil score`` reads the roster): the
first pause to begin switches it off, and only the last to end switches it back on (if it
was on), so one thread's pause never ends another's.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cyclic_gc_paused"]


_lock = threading.Lock()
#: pauses now running, in any thread
_depth = 0
#: whether the collector was on when the first of them began
_was_enabled = False


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block; the last pause to end (in any thread)
    switches it back on if it was on when the first began (also when a block raises)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
