"""Give freed heap back to the operating system after a big step (issue 15's footprint).

CPython and NumPy free their objects into the C allocator, which keeps the pages for
reuse: after a roster (or a chunk task) the process's resident size stays at its peak,
although most of it is free. In a job that is several processes summed (the server and
its scoring processes), memory held idle by one adds to the peak of another.
:func:`release_memory` asks glibc's allocator to return free pages (``malloc_trim(0)``:
the top of each heap and whole free pages inside it), a few milliseconds. It only returns
what is free, so it changes no result; elsewhere than glibc it does nothing. It does not
run the cyclic garbage collector (0.1-0.15 s of CPU in a server process: serial work),
as what the job frees is freed by reference counting.
Measured on a scoring process after a 500-crew task: 300 → 262 MiB; on the server after
its warm start and two 300-crew requests: 730 → 662 MiB.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from functools import cache

__all__ = ["release_memory"]


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (e.g. musl): nothing to call
        return None
    return trim


def release_memory() -> bool:
    """Return free heap pages to the OS; ``True`` if trimmed."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
