"""How small a difference in S leaves every later score unchanged at the output's resolution.

After a candidate's change, the candidate's and the base's model states differ by ΔS in
the homeostatic process S; once their sleep is the same and the body clock φ is the same,
nothing else differs. This module bounds what ΔS can still do to the scores:

* **ΔS never grows.** Awake, ``S(t) = la + (S0 − la)·exp(d·t)`` (d < 0) shrinks a difference
  by ``exp(d·t)``; asleep, S rises linearly below the break level and exponentially above
  it, ``ha − (ha − bl)·exp(g·τ)``, with the same slope at the break (``r_lin = −g·(ha −
  bl)``, reference §2.1), so ``∂S/∂S0 ≤ 1`` throughout. Under the same sleep, a
  difference ΔS at a wake bounds every later one.
* **KSS** is ``kss_slope·X + kss_intercept + workload``, ``X = S + C + U + W`` (reference
  §2.4-§2.5), clipped to 1-9 (which never widens a difference): ``|ΔKSS| ≤ |kss_slope|·ΔS``.
* **Duty risk** ``R = H/H_ref`` sums terms ``h = exp(β(K − K_typ))·T·D·B·M`` (reference §8):
  each moves by a factor within ``exp(±β·ΔK)``, and the run floor of consecutive duties
  (``max(f_1..f_{k-1}) / f_k``, hour-weighted means of the same exponential) by
  ``exp(±2β·ΔK)`` more, so ``|ΔR| ≤ R·(exp(3β·ΔK) − 1)``.

The output has :data:`~vigil.contract.DECIMALS` decimals; a change below half its last
place, δ = 0.0005, moves a printed value by at most one unit of that place, which is the
golden baseline's tolerance. Hence :func:`output_eps`: the largest ΔS keeping both the
interval KSS and every duty's R (up to the crew member's highest R) within δ.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vigil.contract import DECIMALS
from vigil.model.parameters import Parameters

__all__ = ["HALF_LAST_PLACE", "output_eps"]

#: δ: half a unit of the output's last decimal place.
HALF_LAST_PLACE = 0.5 * 10.0 ** (-DECIMALS)


def output_eps(params: Parameters, r_max: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per crew member (``r_max``: the highest duty R of its chain) the ΔS in S units under
    which every later interval KSS and duty R moves by at most :data:`HALF_LAST_PLACE`
    (module docstring). 0 for a model whose state is not S alone (the Unified Model, a
    slow process): such a preset gets no output horizon beyond exact convergence."""
    r = np.maximum(np.asarray(r_max, dtype=np.float64), 1.0)
    if params.alertness_model != "tpm" or params.slow_weight != 0.0:
        return np.zeros(r.shape)
    slope = abs(params.kss_slope)
    kss_bound = HALF_LAST_PLACE / slope
    risk_bound = np.log1p(HALF_LAST_PLACE / r) / (3.0 * params.risk_beta * slope)
    out: npt.NDArray[np.float64] = np.minimum(kss_bound, risk_bound)
    return out
