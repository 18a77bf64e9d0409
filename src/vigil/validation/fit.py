"""Fitting the project-choice parameters ([C]) to the validation rows marked *fitted*.

A :class:`FitGroup` names the parameters it chooses, the fitted rows it is fitted to, the
loss it minimises (in words, for the report) and a residual function for
:func:`scipy.optimize.least_squares`. Rows used by a group must be ``kind="fitted"`` and
name the group's parameters in ``fits``; rows of kind ``"independent"`` are never used.

:func:`fit` minimises the sum of squared residuals of one group: a coarse grid over the
bounds (:func:`scipy.optimize.brute`) picks the start, then
:func:`scipy.optimize.least_squares` (trust-region reflective, finite differences) refines
it. The model's sleep rules make the residuals piecewise constant (the predictor works to
the minute), so the grid is what finds the basin and the gradient steps are coarse
(``diff_step``). The hand-set value is kept unless another value lowers the loss; a
parameter whose loss does not change anywhere on the grid is reported as not identified by
its rows. :func:`render_markdown` and :func:`to_json` write the fit report.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import optimize

#: Grid points per parameter of the coarse start.
GRID = 5
#: Relative finite-difference step of least_squares (the predictor resolves 1 min).
DIFF_STEP = 0.05
#: Most residual evaluations of the least-squares refinement.
MAX_NFEV = 30
#: A fitted value this close to the hand-set one (relative to the bounds' width) is equal.
SAME = 1e-3


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


@dataclass(frozen=True, slots=True)
class FitResult:
    """One group fitted: the values, the residuals before and after, and what moved."""

    group: FitGroup
    fitted: tuple[float, ...]
    before: tuple[float, ...]  #: residuals at the hand-set values
    after: tuple[float, ...]  #: residuals at the fitted values
    identified: tuple[bool, ...]  #: per parameter: its rows' loss changes over its bounds
    evaluations: int  #: residual evaluations (grid and refinement)
    message: str  #: least_squares' status message

    @property
    def cost_before(self) -> float:
        """Sum of squared residuals at the hand-set values."""
        return float(np.sum(np.square(self.before)))

    @property
    def cost_after(self) -> float:
        """Sum of squared residuals at the fitted values."""
        return float(np.sum(np.square(self.after)))

    @property
    def same(self) -> tuple[bool, ...]:
        """Per parameter: the fitted value equals the hand-set one (within :data:`SAME`)."""
        lows, highs = self.group.bounds
        return tuple(
            abs(f - i) <= SAME * (hi - lo)
            for f, i, lo, hi in zip(self.fitted, self.group.initial, lows, highs, strict=True)
        )


class _Memo:
    """A group's residual function with each distinct point evaluated once (``len``: the
    number of evaluations)."""

    def __init__(self, group: FitGroup) -> None:
        self._group = group
        self._cache: dict[tuple[float, ...], NDArray[np.float64]] = {}

    def residuals(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        key = tuple(float(v) for v in np.atleast_1d(x))
        if key not in self._cache:
            self._cache[key] = np.asarray(self._group.residuals(np.asarray(key)), dtype=float)
        return self._cache[key]

    def cost(self, x: NDArray[np.float64]) -> float:
        """Sum of squared residuals at ``x``."""
        return float(np.sum(np.square(self.residuals(x))))

    def __len__(self) -> int:
        return len(self._cache)


def _coarse_grid(
    memo: _Memo, lows: NDArray[np.float64], highs: NDArray[np.float64], grid: int
) -> tuple[NDArray[np.float64], tuple[bool, ...]]:
    """The best point of a ``grid``-point grid over the bounds (``scipy.optimize.brute``),
    and whether each parameter is identified: the loss is not the same at every grid
    point along it."""
    ranges = tuple(zip(lows.tolist(), highs.tolist(), strict=True))
    found = optimize.brute(memo.cost, ranges, Ns=grid, finish=None, full_output=True)
    x_grid = np.atleast_1d(np.asarray(found[0], dtype=float))
    n = lows.size
    surface = np.asarray(found[3], dtype=float).reshape((grid,) * n)
    identified = tuple(bool(np.max(np.ptp(surface, axis=i)) > 1e-12) for i in range(n))
    return x_grid, identified


def fit(
    group: FitGroup, *, grid: int = GRID, diff_step: float = DIFF_STEP, max_nfev: int = MAX_NFEV
) -> FitResult:
    """Fit one group: coarse grid, then least squares; keep the hand-set value on ties.

    Parameters
    ----------
    group : FitGroup
        The parameters, bounds, rows and residual function.
    grid : int
        Grid points per parameter for the start (``scipy.optimize.brute``).
    diff_step : float
        Relative finite-difference step of ``scipy.optimize.least_squares``.
    max_nfev : int
        Most residual evaluations of the refinement.
    """
    memo = _Memo(group)
    x0 = np.asarray(group.initial, dtype=float)
    lows, highs = (np.asarray(b, dtype=float) for b in group.bounds)
    x_grid, identified = _coarse_grid(memo, lows, highs, grid)
    start = x_grid if memo.cost(x_grid) < memo.cost(x0) else x0
    refined = optimize.least_squares(
        memo.residuals,
        np.clip(start, lows, highs),
        bounds=(lows, highs),
        diff_step=[diff_step] * len(x0),
        max_nfev=max_nfev,
        method="trf",
    )
    best = x0
    for candidate in (x_grid, np.asarray(refined.x, dtype=float)):
        if memo.cost(candidate) < memo.cost(best) - 1e-12:
            best = candidate
    return FitResult(
        group=group,
        fitted=tuple(float(v) for v in best),
        before=tuple(float(v) for v in memo.residuals(x0)),
        after=tuple(float(v) for v in memo.residuals(best)),
        identified=identified,
        evaluations=len(memo),
        message=str(refined.message),
    )


def standardised(
    value: float, low: float, high: float, *, one_sided: bool = False, unit: float = 1.0
) -> float:
    """A row's residual: ``(value - centre) / half-band`` for a two-sided band; for a
    one-sided band (or ``one_sided``), the distance outside it in ``unit`` (0 inside).
    NaN (no value) counts as 10 half-bands."""
    if math.isnan(value):
        return 10.0
    if one_sided or not (math.isfinite(low) and math.isfinite(high)):
        if value < low:
            return (low - value) / unit
        return (value - high) / unit if value > high else 0.0
    return (value - (low + high) / 2.0) / ((high - low) / 2.0)


def _number(x: float) -> str:
    return f"{x:.4g}"


def _parameter_table(results: Sequence[FitResult]) -> tuple[list[str], list[str]]:
    """One line per fitted parameter (hand-set, fitted, bounds, identified, equal), and
    ``name: hand-set -> fitted`` of each that differs."""
    lines = [
        "| Group | Parameter | Hand-set | Fitted | Bounds | Identified | Equal |",
        "|---|---|---|---|---|---|---|",
    ]
    diffs: list[str] = []
    for res in results:
        g = res.group
        for i, name in enumerate(g.parameters):
            lo, hi = g.bounds[0][i], g.bounds[1][i]
            lines.append(
                f"| {g.name} | `{name}` | {_number(g.initial[i])} | {_number(res.fitted[i])} | "
                f"{_number(lo)}-{_number(hi)} | {'yes' if res.identified[i] else 'no'} | "
                f"{'yes' if res.same[i] else '**no**'} |"
            )
            if not res.same[i]:
                diffs.append(f"{name}: {_number(g.initial[i])} -> {_number(res.fitted[i])}")
    return lines, diffs


def _residuals(res: FitResult) -> list[str]:
    """One group's loss, cost before and after, and each row's residual."""
    g = res.group
    lines = [
        f"### {g.name}",
        "",
        f"Loss: {g.loss}. Sum of squares {_number(res.cost_before)} at the hand-set "
        f"values, {_number(res.cost_after)} fitted ({res.evaluations} evaluations; "
        f"least_squares: {res.message}).",
        "",
        "| Row | Residual, hand-set | Residual, fitted |",
        "|---|---|---|",
    ]
    labels = list(g.rows) if len(g.rows) == len(res.before) else [
        f"residual {k + 1}" for k in range(len(res.before))
    ]  # fmt: skip
    for label, b, a in zip(labels, res.before, res.after, strict=True):
        lines.append(f"| `{label}` | {b:+.3f} | {a:+.3f} |")
    lines.append("")
    return lines


def _holds(diffs: Sequence[str]) -> list[str]:
    """Whether parameters.py holds the fitted values, and what to change if not."""
    if diffs:
        return [
            "**No.** Apply by hand (then regenerate the validation report and this file):",
            "",
            *[f"- {d}" for d in diffs],
        ]
    return ["**Yes**: every fitted value equals the hand-set value in the source."]


def render_markdown(
    results: Sequence[FitResult],
    hand_set: Mapping[str, str],
    not_fitted: Mapping[str, str],
    model_version: str,
) -> str:
    """The fit report's Markdown text (deterministic for the same results)."""
    table, diffs = _parameter_table(results)
    lines = [
        "# Fit report",
        "",
        "<!-- generated by `vigil report fit --out docs/validation/`; do not edit -->",
        "",
        f"Model `{model_version}`. Each group of project-choice parameters [C] is fitted to",
        "the validation rows marked *fitted* that chose it (never to an independent row):",
        "a coarse grid over the bounds (`scipy.optimize.brute`) picks the start, then",
        "`scipy.optimize.least_squares` refines it. The hand-set value is kept unless",
        "another lowers the loss. Residuals are standardised: (value - centre of the band) /",
        "half the band for two-sided bands, the distance outside the band for one-sided",
        "ones (0 inside). A parameter is *not identified* when its rows' loss is the same",
        "at every grid point: the rows do not choose it.",
        "",
        *table,
    ]
    lines += ["", "## Residuals by row", ""]
    for res in results:
        lines += _residuals(res)
    lines += ["## Does parameters.py hold the fitted values?", "", *_holds(diffs)]
    lines += ["", "## Fitted parameters that are not fitted here, and why", ""]
    lines += [f"- `{name}`: {why}" for name, why in not_fitted.items()]
    lines += ["", "## Project-choice parameters [C] that stay hand-set", ""]
    lines += [
        "No validation row was used to choose these, so there is nothing to fit them to;",
        "each keeps the value and source its comment gives:",
        "",
    ]
    lines += [f"- `{name}`: {why}" for name, why in hand_set.items()]
    return "\n".join(lines) + "\n"


def to_json(results: Sequence[FitResult], model_version: str) -> str:
    """The fitted values and residuals as JSON (sorted keys, for a stable file)."""
    body = {
        "modelVersion": model_version,
        "groups": [
            {
                "name": r.group.name,
                "loss": r.group.loss,
                "rows": list(r.group.rows),
                "parameters": {
                    name: {
                        "handSet": r.group.initial[i],
                        "fitted": r.fitted[i],
                        "bounds": [r.group.bounds[0][i], r.group.bounds[1][i]],
                        "identified": r.identified[i],
                        "equal": r.same[i],
                    }
                    for i, name in enumerate(r.group.parameters)
                },
                "residualsHandSet": list(r.before),
                "residualsFitted": list(r.after),
                "costHandSet": r.cost_before,
                "costFitted": r.cost_after,
            }
            for r in results
        ],
    }
    return json.dumps(body, indent=2, sort_keys=True) + "\n"
