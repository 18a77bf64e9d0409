"""Sleep inertia W: the transient loss of alertness just after waking.

References
----------
.. [1] Åkerstedt T, Folkard S, Portin C (2004). Predictions from the three-process model of
   alertness. Aviat Space Environ Med 75(3 Suppl):A75-A83.
.. [2] Tassi P, Muzet A (2000). Sleep inertia. Sleep Med Rev 4:341-353.
.. [3] Brooks A, Lack L (2006). A brief afternoon nap following nocturnal sleep restriction:
   which nap duration is most recuperative? Sleep 29:831-840.
"""

from __future__ import annotations

import numpy as np

from ._arrays import FloatArray, Numeric, as_float
from .parameters import DEFAULT, Parameters


def inertia_amplitude(last_sleep_hours: Numeric, params: Parameters = DEFAULT) -> FloatArray:
    """Inertia at the moment of waking [TPM units] after a sleep of ``last_sleep_hours`` [h].

    ``Wc`` scaled by ``min(1, T_sleep/1.5 h)`` when ``inertia_short_sleep_scaling`` is on
    (reference §2.3 [C], [2]_ [3]_), plain ``Wc`` otherwise; 0 when inertia is off.
    """
    t_sleep = as_float(last_sleep_hours)
    if not params.inertia:
        return np.zeros_like(t_sleep)
    if params.inertia_short_sleep_scaling:
        return params.wc * np.minimum(1.0, t_sleep / params.inertia_full_sleep)
    return np.full_like(t_sleep, params.wc)


def sleep_inertia(
    hours_since_wake: Numeric, last_sleep_hours: Numeric = np.inf, params: Parameters = DEFAULT
) -> FloatArray:
    """Sleep inertia W while awake.

    Parameters
    ----------
    hours_since_wake : numeric
        t_w, time since the last awakening (>= 0). [h]
    last_sleep_hours : numeric
        Length of the sleep episode that just ended (``inf``: a full night). [h]
    params : Parameters
        ``wc``, ``wd``, ``inertia``, ``inertia_short_sleep_scaling``, ``inertia_full_sleep``.

    Returns
    -------
    numpy.ndarray
        W [TPM units], ``Wc·exp(Wd·t_w)`` (reference §2.3, [1]_); time constant
        ``-1/Wd`` = 0.66 h. W = 0 while asleep is the caller's business.
    """
    t_w = as_float(hours_since_wake)
    return inertia_amplitude(last_sleep_hours, params) * np.exp(params.wd * t_w)
