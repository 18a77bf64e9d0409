"""The cyclic garbage collector paused while many small acyclic objects are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["cyclic_gc_paused"]


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a roster is read.

    Reading 150,000 rows allocates about a million small objects, none in reference
    cycles; the collector's repeated scans of them took longer than the reading itself
    (benchmarks/bench_roster.py: 4-5 s with, 2.7 s without). Reference counting still
    frees everything; the collector is switched back on afterwards if it was on.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
