"""The sleep kernels' output buffer and walk state (shared by windows and in-flight rest)."""

from __future__ import annotations

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
