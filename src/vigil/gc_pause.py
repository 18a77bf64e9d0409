"""Python's cyclic garbage collector paused while many small acyclic objects are built.

Reading a 150,000-row roster, its SleepData, scoring and writing a 10,000-crew month
allocate millions of tracked objects (rows, records, duty results, JSON entries) and no
reference cycles: reference counting frees them, and the collector's repeated passes over
the growing heap found nothing but cost time (reading: benchmarks/bench_roster.py 4-5 s
with, 2.7 s without; `vigil score` on the month: 0.4 CPU-s of 9, 20 objects collected in
all, measured with ``gc.callbacks``). Usable by every layer, like :mod:`vigil.tz`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cyclic_gc_paused"]


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block; switch it back on afterwards if it was on
    (also when the block raises). Nested pauses are harmless."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
