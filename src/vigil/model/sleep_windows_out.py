"""The sleep kernels' output buffer and walk state (shared by windows and in-flight rest)."""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb

#: One person's slice of the output CSR arrays: start, end, quality, kind, first row, rows.
Out = namedtuple("Out", ["s", "e", "q", "kind", "base", "cap"])

#: The walk state: episodes emitted, S at the last wake, the last wake [epoch h].
State = tuple[int, float, float]


@nb.njit(cache=True)
def emit(out: Out, n: int, a: float, b: float, q: float, kind: int) -> int:
    """Write episode ``[a, b)`` as row ``n`` when it fits; return ``n + 1`` (counts overflow)."""
    if n < out.cap:
        r = out.base + n
        out.s[r], out.e[r], out.q[r], out.kind[r] = a, b, q, kind
    return n + 1


@nb.njit(cache=True)
def last_onset(out: Out, n: int, kind: int) -> float:
    """Start of the latest emitted episode of ``kind`` among the first ``n`` (NaN: none)."""
    for j in range(min(n, out.cap) - 1, -1, -1):
        if out.kind[out.base + j] == kind:
            start: float = out.s[out.base + j]
            return start
    return math.nan
