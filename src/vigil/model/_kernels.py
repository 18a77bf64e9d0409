"""The one home of every scalar Numba formula and of the kernels' packed constants.

Closed forms of the Three-Process Model used inside the Numba kernels of
:mod:`.simulate` and of the sleep predictor (:mod:`.sleep_windows`, :mod:`.sleep_gates`,
:mod:`.sleep_inflight`): S while awake and asleep (reference §2.1), the body-clock move
toward its target (§3), C (§2.2) and the inertia amplitude (§2.3). The vectorised public
functions of :mod:`.homeostatic`, :mod:`.circadian` and :mod:`.inertia` are an independent
NumPy statement of the same equations; tests/model/test_simulate.py checks they agree.

The kernels read their constants as a named tuple (:func:`constants`) whose fields are
generated from the scalar fields of a dataclass (``Parameters``, ``SleepParameters``) plus a
few derived values, so no hand-kept index layout exists.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np

#: Type of the constants tuple inside kernels (a Numba named uni-tuple of float64).
Consts = Any


def scalar_fields(obj: object) -> dict[str, float]:
    """The dataclass fields of ``obj`` holding a number or a bool, as floats, by name."""
    out: dict[str, float] = {}
    for f in fields(obj):  # type: ignore[arg-type]
        if not f.init:
            continue
        value = getattr(obj, f.name)
        if isinstance(value, bool | int | float):
            out[f.name] = float(value)
    return out


_KERNEL_SOURCES = (
    "_kernels", "_clock", "simulate", "sleep_gates", "sleep_inflight", "sleep_windows",
)  # fmt: skip


@functools.cache
def _read_by_kernels() -> frozenset[str]:
    """Names the kernels read as ``k.<name>`` (small tuples compile much faster)."""
    here = Path(__file__).parent
    text = "".join((here / f"{m}.py").read_text(encoding="utf-8") for m in _KERNEL_SOURCES)
    return frozenset(re.findall(r"\bk\.([a-z_]\w*)", text))


def kernel_fields(cls: type, derived: tuple[str, ...]) -> list[str]:
    """Fields of dataclass ``cls`` plus ``derived`` names that some kernel reads.

    The named-tuple types built from these are module attributes (so Numba's on-disk cache
    finds them again in a new process) and hold only what the kernels read (small tuples
    compile faster).
    """
    used = _read_by_kernels()
    names = [f.name for f in fields(cls) if f.init]
    return [n for n in (*names, *derived) if n in used]


def constants(values: dict[str, float], kind: Any) -> Consts:
    """An instance of the named-tuple type ``kind`` from ``values`` (extra names ignored)."""
    return kind(**{n: values[n] for n in kind._fields})


# ---------------------------------------------------------------------------------------
# Argument types: one compiled signature per callee.


@nb.njit(cache=True, inline="always")
def signed(i: int) -> int:
    """``i`` as a plain int64, for an index or count passed on to another kernel.

    A ``prange`` index is uint64 in the parallel loop body but int64 in the serial typing
    pass before it, and a literal ``0`` is typed ``Literal[int](0)`` before the loop that
    reassigns it widens it: passed on as is, either compiles the callee (and all it calls)
    twice. The value is unchanged.
    """
    return int(np.int64(i))


# ---------------------------------------------------------------------------------------
# S, the homeostatic process (reference §2.1).


@nb.njit(cache=True, inline="always")
def s_wake(k: Consts, s0: float, t: float) -> float:
    """S after ``t`` hours awake from ``s0``: ``la + (s0 - la)·exp(d·t)``."""
    s: float = k.la + (s0 - k.la) * math.exp(k.d * t)
    return s


@nb.njit(cache=True, inline="always")
def sleep_break(k: Consts, s0: float) -> tuple[float, float]:
    """Recovery from ``s0``: (τ_b, A) with S = s0 + r_lin·τ for τ <= τ_b, else ha - A·exp(g·τ).

    τ_b = -inf when the sleep starts above the break level and the preset uses the
    continuous exponential form (``fips_break`` = 0); FIPS keeps the negative τ_b.
    """
    if s0 >= k.bl and k.fips_break == 0.0:
        return -math.inf, k.ha - s0
    tau_b = (k.bl - s0) / k.r_lin
    return tau_b, (k.ha - k.bl) * math.exp(-k.g * tau_b)


@nb.njit(cache=True, inline="always")
def s_sleep(k: Consts, s0: float, t: float, q: float) -> float:
    """S after ``t`` hours of sleep of quality ``q`` (effective time ``τ = q·t``) from ``s0``."""
    tau = q * t
    if s0 >= k.bl and k.fips_break == 0.0:
        above: float = k.ha - (k.ha - s0) * math.exp(k.g * tau)
        return above
    tau_b = (k.bl - s0) / k.r_lin
    if tau <= tau_b:
        linear: float = s0 + k.r_lin * tau
        return linear
    s: float = k.ha - (k.ha - k.bl) * math.exp(k.g * (tau - tau_b))
    return s


# ---------------------------------------------------------------------------------------
# W, inertia amplitude (reference §2.3).


@nb.njit(cache=True, inline="always")
def inertia_amp(k: Consts, last_sleep: float) -> float:
    """W at waking after a sleep of ``last_sleep`` hours (0 when inertia is off)."""
    if k.inertia == 0.0:
        return 0.0
    if k.inertia_short_sleep_scaling != 0.0:
        scaled: float = k.wc * min(1.0, last_sleep / k.inertia_full_sleep)
        return scaled
    wc: float = k.wc
    return wc


# ---------------------------------------------------------------------------------------
# Body clock (reference §3) and C (§2.2).


@nb.njit(cache=True, inline="always")
def wrap(x: float) -> float:
    """``x`` wrapped into (-12, 12] [h]."""
    return 12.0 - ((12.0 - x) % 24.0)


@nb.njit(cache=True, inline="always")
def phase_plan(k: Consts, phi0: float, theta: float) -> tuple[float, float]:
    """Signed distance and rate [h/h] for φ to reach θ (antidromic rule), ref §3."""
    delta = wrap(theta - phi0)
    if k.phase_exp != 0.0:
        return delta, k.phase_k
    r_e, r_w = k.rate_e, k.rate_w
    if delta > 24.0 * r_e / (r_e + r_w):
        delta -= 24.0
    return delta, (r_e if delta > 0.0 else r_w)


@nb.njit(cache=True, inline="always")
def phase_at(k: Consts, phi_seg: float, move: float, rate: float, dt: float) -> float:
    """φ ``dt`` hours into a segment of constant target (closed form of ref §3)."""
    if k.phase_exp != 0.0:
        return phi_seg + move * (1.0 - math.exp(-rate * dt))
    if move > 0.0:
        return phi_seg + min(move, rate * dt)
    return phi_seg - min(-move, rate * dt)


@nb.njit(cache=True, inline="always")
def circadian(k: Consts, tau: float) -> float:
    """C at unwrapped body-clock time ``tau`` [h]: ``Cm + Ca·cos(2π(τ - p)/24)``."""
    c: float = k.cm + k.ca * math.cos(2.0 * math.pi * (tau - k.p) / 24.0)
    return c


@nb.njit(cache=True, inline="always")
def sleep_needed(k: Consts, s0: float, target: float, q: float) -> float:
    """Hours of sleep of quality ``q`` for S to rise from ``s0`` to ``target`` (< ha).

    The inverse of :func:`s_sleep` (reference §2.1); 0 when ``s0 >= target``.
    """
    if s0 >= target:
        return 0.0
    if s0 >= k.bl and k.fips_break == 0.0:
        above: float = math.log((k.ha - target) / (k.ha - s0)) / k.g / q
        return above
    tau_b = (k.bl - s0) / k.r_lin
    if target <= s0 + k.r_lin * max(tau_b, 0.0):
        linear: float = (target - s0) / k.r_lin / q
        return linear
    tau: float = tau_b + math.log((k.ha - target) / (k.ha - k.bl)) / k.g
    return tau / q
