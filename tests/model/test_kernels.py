"""The kernels' constants tuple and the closed forms of model/_kernels.py (part 3)."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from vigil.model import PRESETS, sleep_recovery
from vigil.model._kernels import Consts, sleep_needed
from vigil.model.sleep_parameters import DEFAULT_SLEEP


@pytest.mark.parametrize("name", list(PRESETS))
def test_constants_carry_every_field_by_name(name: str) -> None:
    """The tuple is generated from the dataclass fields: each entry equals its field."""
    params = PRESETS[name]
    for consts in (params.kernel, DEFAULT_SLEEP.kernel(params)):
        for field, value in consts._asdict().items():
            source = params if hasattr(params, field) else DEFAULT_SLEEP
            if hasattr(source, field):
                assert value == float(getattr(source, field)), field
        assert consts.rate_e == params.rate_east / 24.0
        assert consts.r_lin == pytest.approx(params.g * (params.bl - params.ha))


@nb.njit(cache=True)
def _needed(k: Consts, s0: float, target: float, q: float) -> float:
    return sleep_needed(k, s0, target, q)


@pytest.mark.parametrize("name", ["ingre2014_5c", "tpm_default"])
@pytest.mark.parametrize(
    ("s0", "target", "q"), [(7.0, 13.82, 1.0), (8.3, 12.0, 0.7), (12.5, 13.9, 1.0)]
)
def test_sleep_needed_inverts_the_numpy_recovery(
    name: str, s0: float, target: float, q: float
) -> None:
    """sleep_needed (sleep-in rule) against the independent NumPy S of homeostatic.py."""
    params = PRESETS[name]
    hours = _needed(DEFAULT_SLEEP.kernel(params), s0, target, q)
    assert float(sleep_recovery(s0, hours, q, params)) == pytest.approx(target, abs=1e-9)
    assert np.isclose(_needed(DEFAULT_SLEEP.kernel(params), target, s0, q), 0.0)
