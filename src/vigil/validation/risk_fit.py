"""The joint fit of the duty risk's project-choice parameters (:data:`RISK_FIT`).

Two parameters of :mod:`vigil.model.risk` are not given by their sources and are fitted
together, by least squares on standardised residuals, to the rows marked *fitted*:

- ``risk_tod_amplitude`` (a of the time-of-day component T): to the three-shift trend,
  night/morning 1.23 (Smith et al. 1994, SE 0.043 from the 95 % CI 1.14-1.31) and
  afternoon/morning 1.18 (Folkard & Tucker 2003 as the reference quotes it, SE 0.05
  stated by us: no interval is published);
- ``tot_coefficient`` (c of the time-on-duty component D): to the 12-h over 8-h risk per
  hour, 1.275 (SE 0.035, half the row's band).

Held out: ``folkard2003-10h``, ``folkard2003-nights`` and ``-nights-first`` (consecutive
nights) and the orderings of ``tests/model/test_risk_orderings.py``. The acrophase of T
(midnight) is taken from Folkard, Lombardi & Spencer (2006), not fitted; row
``folkard2004-midnight`` is marked fitted to it because that estimate integrates the
same evidence.

Run ``python -m vigil.validation.risk_fit`` to score the scenarios, fit, and print the
fitted values, the rows' residuals and the K_typ table (``risk_typical_alertness``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from vigil import model
from vigil.validation import risk_measures as rm
from vigil.validation import scenarios as sc
from vigil.validation.fit import FitGroup
from vigil.validation.runs import run_all

#: (row key, published value, its standard error) of the fitted rows, in loss order.
TARGETS: tuple[tuple[str, float, float], ...] = (
    ("smith1994-night", 1.23, 0.043),
    ("folkard2004-afternoon", 1.18, 0.05),
    ("folkard2003-12h", 1.275, 0.035),
)
PARAMETERS = ("risk_tod_amplitude", "tot_coefficient")


def row_values(runs: sc.Runs, params: model.Parameters) -> NDArray[np.float64]:
    """Vigil's value of each fitted row under ``params``, in :data:`TARGETS` order."""
    return np.array(
        [
            rm.shift_ratio(runs, "SHIFT-N", "SHIFT-M", params),
            rm.shift_ratio(runs, "SHIFT-A", "SHIFT-M", params),
            rm.hourly_rate_ratio(runs, "DAY-12H", "DAY-8H", params),
        ]
    )


def with_values(x: NDArray[np.float64], base: model.Parameters = model.DEFAULT) -> model.Parameters:
    """``base`` with the fitted parameters set to ``x`` (in :data:`PARAMETERS` order)."""
    amplitude, coefficient = (float(v) for v in x)
    return replace(base, risk_tod_amplitude=amplitude, tot_coefficient=coefficient)


def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Standardised residuals ``(value - published) / SE`` of the fitted rows."""
    values = row_values(run_all(), with_values(x))
    published = np.array([t[1] for t in TARGETS])
    se = np.array([t[2] for t in TARGETS])
    out: NDArray[np.float64] = (values - published) / se
    return out


RISK_FIT = FitGroup(
    name="duty risk",
    parameters=PARAMETERS,
    initial=(model.DEFAULT.risk_tod_amplitude, model.DEFAULT.tot_coefficient),  # hand-set today
    bounds=((0.0, 0.0), (0.9, 1.0)),
    rows=tuple(t[0] for t in TARGETS),
    loss="Σ ((value − published) / SE)² over night/morning, afternoon/morning and "
    "12-h/8-h risk per hour",
    residuals=residuals,
)


def typical_alertness(runs: sc.Runs, params: model.Parameters = model.DEFAULT) -> list[float]:
    """Hourly alertness X of the three-shift scenarios (``risk_typical_alertness``)."""
    out = [0.0] * 24
    for name, first in (("SHIFT-M", 6), ("SHIFT-A", 14), ("SHIFT-N", 22)):
        kss = np.asarray(runs[name].scores["KSS"], dtype=np.float64).reshape(8, 4).mean(axis=1)
        for i, k in enumerate(kss):
            out[(first + i) % 24] = round(float((k - params.kss_intercept) / params.kss_slope), 2)
    return out


def main() -> None:
    """Fit :data:`RISK_FIT` and print the result (a standalone entry of the fit)."""
    from scipy.optimize import least_squares

    runs = run_all()
    print("risk_typical_alertness =", tuple(typical_alertness(runs)))
    fit = least_squares(RISK_FIT.residuals, RISK_FIT.initial, bounds=RISK_FIT.bounds)
    print(f"group {RISK_FIT.name!r}: loss {RISK_FIT.loss}; cost {2 * fit.cost:.3f}")
    for name, value, start in zip(PARAMETERS, fit.x, RISK_FIT.initial, strict=True):
        print(f"  {name:22s} {value:.4f}  (start {start})")
    fitted = row_values(runs, with_values(fit.x))
    default = row_values(runs, model.DEFAULT)
    for (key, published, se), v, d in zip(TARGETS, fitted, default, strict=True):
        print(f"  {key:24s} published {published:.3f} ± {se:.3f}  fit {v:.3f}  "
              f"defaults {d:.3f}")  # fmt: skip
    held = rm.hourly_rate_ratio(runs, "DAY-10H", "DAY-8H", with_values(fit.x))
    print(f"  held out folkard2003-10h: published 1.13, fit {held:.3f}")


if __name__ == "__main__":
    main()
