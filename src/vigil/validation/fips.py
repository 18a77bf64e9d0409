"""FIPS's Three-Process Model, written out segment by segment, to check ``tpm_default``.

An independent transcription of the published definitions in humanfactors/FIPS @040e6f3
(``R/simulation_threeprocessmodel.R``: ``TPM_make_pvec`` defaults, ``TPM_Sfun``,
``TPM_Spfun`` with its break time, ``TPM_Wfun``, ``TPM_Cfun``, ``TPM_Ufun``; a sleep row
runs from its start to its end). It uses no :mod:`vigil.model` code: S is carried across
each wake and sleep segment in closed form and evaluated at the requested instants.

Reference: Wilson MK, Strickland L, Ballard T (2020). FIPS: an R package for
biomathematical modelling of human fatigue related impairment. JOSS 5(51):2340.
doi:10.21105/joss.02340
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

#: TPM_make_pvec() defaults (FIPS); g from its formula ln((ha - 14)/(ha - 7.96))/8.
PVEC: dict[str, float] = {
    "la": 2.4, "ha": 14.3, "d": -0.0353, "g": math.log(0.3 / 6.34) / 8.0, "bl": 12.2,
    "Cm": 0.0, "Ca": 2.5, "p": 16.8, "Um": -0.5, "Ua": 0.5, "Wc": -5.72, "Wd": -1.51,
    "S0": 7.96, "KSS_intercept": 10.6, "KSS_beta": -0.6,
}  # fmt: skip


def _s_asleep(s_onset: float, hours: float) -> float:
    """TPM_Spfun: linear recovery below the break level, exponential above it."""
    p = PVEC
    rate = p["g"] * (p["bl"] - p["ha"])
    breaktime = (p["bl"] - s_onset) / rate
    if hours <= breaktime:
        return s_onset + hours * rate
    return p["ha"] - (p["ha"] - p["bl"]) * math.exp(p["g"] * (hours - breaktime))


def fips_tpm(
    start: float, times: Sequence[float], sleeps: Sequence[tuple[float, float]]
) -> npt.NDArray[np.float64]:
    """S, C, U, W and KSS of FIPS's TPM at ``times`` (UTC hours, body clock = UTC).

    Parameters
    ----------
    start : float
        Simulation start, awake with S = S0 = 7.96. [h]
    times : sequence of float
        Ascending instants at or after ``start``. [h]
    sleeps : sequence of (float, float)
        Sorted, non-overlapping sleeps ``[onset, end)`` after ``start``. [h]

    Returns
    -------
    numpy.ndarray, shape (5, len(times))
        Rows S, C, U, W, KSS.
    """
    p = PVEC
    # segment boundaries: (begin, asleep, S at begin)
    segments: list[tuple[float, bool, float]] = []
    wake_from, s_wake = start, p["S0"]
    for onset, end in sleeps:
        segments.append((wake_from, False, s_wake))
        s_onset = p["la"] + (s_wake - p["la"]) * math.exp(p["d"] * (onset - wake_from))
        segments.append((onset, True, s_onset))
        wake_from, s_wake = end, _s_asleep(s_onset, end - onset)
    segments.append((wake_from, False, s_wake))
    begins = [b for b, _, _ in segments]
    out = np.empty((5, len(times)))
    for i, t in enumerate(times):
        begin, asleep, s0 = segments[max(0, int(np.searchsorted(begins, t, "right")) - 1)]
        if asleep:
            s, w = _s_asleep(s0, t - begin), 0.0
        else:
            s = p["la"] + (s0 - p["la"]) * math.exp(p["d"] * (t - begin))
            w = p["Wc"] * math.exp(p["Wd"] * (t - begin))
        tod = t % 24.0
        c = p["Cm"] + p["Ca"] * math.cos(2.0 * math.pi / 24.0 * (tod - p["p"]))
        u = p["Um"] + p["Ua"] * math.cos(2.0 * math.pi / 12.0 * (tod - p["p"] - 3.0))
        out[:, i] = s, c, u, w, p["KSS_intercept"] + p["KSS_beta"] * (s + c + u + w)
    return out
