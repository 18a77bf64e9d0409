"""Sums added in NumPy's pairwise order inside Numba kernels, so results are bit-equal to
the array statements they replace (``a.sum()``, ``values.sum(axis=1)``).

NumPy's float reduction (``pairwise_sum`` in ``numpy/_core/src/umath/loops_utils.h.src``)
adds a block of at most 128 values with eight interleaved accumulators, and splits longer
runs in halves at a multiple of eight.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._arrays import FloatArray

__all__ = ["block_sum", "pairwise_sum"]


@nb.njit(cache=True)
def block_sum(a: FloatArray, lo: int, n: int) -> float:
    """NumPy's pairwise-sum leaf (``n <= 128``): eight accumulators, then the tail."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    acc: float = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        acc += a[lo + i]
        i += 1
    return acc


@nb.njit(cache=True)
def pairwise_sum(a: FloatArray) -> float:
    """``a.sum()`` added in NumPy's pairwise order, so results are bit-equal.

    NumPy halves ``n > 128`` (at a multiple of 8) and adds the halves' sums; the tree is
    walked with an explicit stack (Numba's cache cannot reload a recursive function).
    """
    n = a.shape[0]
    if n <= 128:
        return block_sum(a, 0, n)
    todo_lo = np.empty(128, np.int64)
    todo_n = np.empty(128, np.int64)
    todo_join = np.zeros(128, np.bool_)
    values = np.empty(128)
    top, depth = 1, 0
    todo_lo[0], todo_n[0] = 0, n
    while top:
        top -= 1
        lo, m = todo_lo[top], todo_n[top]
        if todo_join[top]:  # both halves done: their sums are the last two values
            depth -= 1
            values[depth - 1] = values[depth - 1] + values[depth]
            continue
        if m <= 128:
            values[depth] = block_sum(a, lo, m)
            depth += 1
            continue
        half = m // 2
        half -= half % 8
        todo_join[top] = True
        todo_lo[top + 1], todo_n[top + 1] = lo + half, m - half
        todo_join[top + 1] = False
        todo_lo[top + 2], todo_n[top + 2] = lo, half
        todo_join[top + 2] = False
        top += 3
    total: float = values[0]
    return total
