"""Fitting the project-choice parameters ([C]) to the validation rows marked *fitted*.

A :class:`FitGroup` names the parameters it chooses, the fitted rows it is fitted to, the
loss it minimises (in words, for the report) and a residual function for
:func:`scipy.optimize.least_squares`. Rows used by a group must be ``kind="fitted"`` and
name the group's parameters in ``fits``; rows of kind ``"independent"`` are never used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class FitGroup:
    """Parameters fitted together, with the rows and the loss they are fitted to."""

    name: str  #: e.g. "sleep timing", "duty risk"
    parameters: tuple[str, ...]  #: parameter names (fields of model.Parameters or rules)
    initial: tuple[float, ...]  #: starting values (today's hand-set values)
    bounds: tuple[tuple[float, ...], tuple[float, ...]]  #: (lows, highs), as least_squares
    rows: tuple[str, ...]  #: keys of the *fitted* rows the loss is computed on
    loss: str  #: the stated loss, in words (shown in the fit report)
    #: parameter vector -> standardised residuals, one or more per row
    residuals: Callable[[NDArray[np.float64]], NDArray[np.float64]]
