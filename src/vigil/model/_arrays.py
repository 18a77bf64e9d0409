"""Array type aliases and small helpers shared by the model modules (private)."""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

FloatArray: TypeAlias = npt.NDArray[np.float64]  #: float64 array, any shape
BoolArray: TypeAlias = npt.NDArray[np.bool_]  #: boolean array, any shape
IntArray: TypeAlias = npt.NDArray[np.int64]  #: int64 array, any shape
Numeric: TypeAlias = float | FloatArray  #: a scalar or an array, broadcast elementwise


def as_float(x: object) -> FloatArray:
    """Return ``x`` as a float64 array (no copy when it already is one)."""
    return np.asarray(x, dtype=np.float64)


def as_2d(x: object, name: str) -> FloatArray:
    """Return ``x`` as a C-contiguous float64 ``(n, k)`` array or raise ``ValueError``."""
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape (n_crew, k), got ndim={a.ndim}")
    return a


def as_1d(x: object, name: str) -> FloatArray:
    """Return ``x`` as a C-contiguous float64 ``(n,)`` array or raise ``ValueError``."""
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must have shape (n_crew,), got ndim={a.ndim}")
    return a


def as_shaped(x: object, shape: tuple[int, ...], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """``x`` as a C-contiguous ``dtype`` array broadcast to ``shape``, for a kernel.

    An array already of that shape is only converted (``x`` itself when it already is
    one): no broadcast machinery for the common call.
    """
    if isinstance(x, np.ndarray) and x.shape == shape:
        return np.ascontiguousarray(x, dtype=dtype)
    return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=dtype), shape))


def logistic(x: Numeric) -> FloatArray:
    """The standard logistic function ``1 / (1 + exp(-x))``, overflow-safe; NaN stays NaN.

    NaN marks padding (e.g. the missing minutes of a short last interval), so it passes
    through without the floating-point warning ``logaddexp`` raises for it.
    """
    x = as_float(x)
    with np.errstate(invalid="ignore"):
        return np.exp(-np.logaddexp(0.0, -x))
