"""Where a candidate's evaluation restarts and how far the change can matter (per chain).

Compiled loops over candidates; the rules are stated in docs/optimise.md ("Horizon").
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from vigil.model._arrays import FloatArray, IntArray
from vigil.optimise._walk import GROUND, Records


@nb.njit(cache=True)
def restarts(
    crew: IntArray, first: IntArray, t_change: FloatArray, chain_on: FloatArray,
    chain_off: FloatArray, chain_ptr: IntArray, full: IntArray, rec: Records,
    rec_ptr: IntArray, ep_ptr: IntArray, gap: float, full_sleep: float, any_length: bool,
    out_p: IntArray, out_r: IntArray, out_a: IntArray, out_seed: IntArray,
) -> None:  # fmt: skip
    """Per candidate ``i`` (base crew ``crew[i]``, first changed chain duty ``first[i]``,
    earliest changed latest-wake ``t_change[i]``):

    * ``out_a``: the risk context's first chain duty: back from ``first`` while the gap to
      the previous duty is under ``gap`` (a run of nights or earlies never spans a longer
      gap, reference §8);
    * ``out_p``: the base record of the predictor's restart window, the last ground window
      starting at or before ``t_change`` (-1: the walk runs from the warm-up start);
    * ``out_r``: the base record whose last wake starts the simulation: the latest one at
      or before both that window and duty ``a``'s report whose last sleep gave full
      inertia (the simulator's start state, reference §2.3), or the first record;
    * ``out_seed``: the first base episode seeded into the restarted walk (the last one
      before the restart window, which the walk's convergence check compares).
    """
    for i in range(crew.size):
        c = crew[i]
        lo, hi = rec_ptr[c], rec_ptr[c + 1]
        base0 = chain_ptr[i]
        a = first[i]
        while a > 0 and chain_on[base0 + a] - chain_off[base0 + a - 1] < gap:
            a -= 1
        out_a[i] = a
        p = -1
        if not full[i]:
            for j in range(lo, hi):
                if rec.ws[j] > t_change[i]:
                    break
                if rec.kind[j] == GROUND:
                    p = j
        out_p[i] = p
        limit = chain_on[base0 + a] if a < chain_ptr[i + 1] - base0 else math.inf
        r = lo
        if p >= 0:
            limit = min(limit, rec.ws[p])
            for j in range(p, lo - 1, -1):
                if rec.kind[j] != GROUND or rec.t_wake[j] > limit:
                    continue
                if (
                    rec.n[j] == 0
                    or any_length
                    or rec.last_e[j] - rec.last_s[j] >= full_sleep - 1e-9
                ):
                    r = j
                    break
        out_r[i] = r
        seed = ep_ptr[c]
        if p >= 0:
            n_p = ep_ptr[c] + rec.n[p]
            seed = n_p - 1 if n_p > ep_ptr[c] else n_p
        out_seed[i] = seed


@nb.njit(cache=True)
def risk_ends(
    first: IntArray, conv_ws: FloatArray, chain_on: FloatArray, chain_off: FloatArray,
    chain_ptr: IntArray, gap: float, out_e: IntArray, out_b: IntArray,
) -> None:  # fmt: skip
    """Per candidate: ``out_e``, the first chain duty reporting at or after the converged
    window (its scores are the base's), and ``out_b``, the end of the risk range: one
    past ``e``, then on while the gap to the previous duty is under ``gap``."""
    for i in range(first.size):
        base0, n = chain_ptr[i], chain_ptr[i + 1] - chain_ptr[i]
        e = first[i]
        while e < n and not chain_on[base0 + e] >= conv_ws[i]:
            e += 1
        out_e[i] = e
        b = min(n, e + 1)
        while b < n and chain_on[base0 + b] - chain_off[base0 + b - 1] < gap:
            b += 1
        out_b[i] = b


@nb.njit(cache=True)
def crew_search(
    values: FloatArray, lo: IntArray, hi: IntArray, t: FloatArray, right: bool, out: IntArray
) -> None:
    """Per row ``i``: ``lo[i] + searchsorted(values[lo[i]:hi[i]], t[i], side)`` (side
    "right" when ``right``), ``values`` sorted within each slice."""
    for i in range(lo.size):
        a, b = lo[i], hi[i]
        while a < b:
            m = (a + b) // 2
            if values[m] < t[i] or (right and values[m] == t[i]):
                a = m + 1
            else:
                b = m
        out[i] = a


def seeded_capacity(span: FloatArray, n_busy: IntArray, n_rest: IntArray) -> IntArray:
    """Episode rows per walk, as :func:`vigil.model.sleep.predict_packed` sizes them."""
    cap: IntArray = (np.ceil(span / 10.0) + 2 * (n_busy + n_rest) + 4).astype(np.int64)
    return cap
