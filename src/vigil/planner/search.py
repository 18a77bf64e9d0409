"""The search over in-flight rest splits, as arrays (pure NumPy, no dates, no I/O).

A *split* divides the cruise window ``[z0, z1]`` (epoch hours) into consecutive breaks and
gives every pilot one break:

* 4 pilots: two breaks; the two landing pilots share one, the relief pair the other;
* 3 pilots: three breaks, one pilot each.

Interior boundaries lie on the 15-minute clock grid (``:00, :15, :30, :45`` UTC). A split is
admissible when every landing pilot's break lasts at least 2 h and every other pilot's at
least 90 min (EASA CS FTL.1.205(c)(2) [1]_), and when the duty's report and off-duty times
are given, no pilot is at the controls for longer than :data:`MAX_STRETCH_HOURS` in one
stretch (the longest daily FDP of an unaugmented crew, ORO.FTL.205(b) [2]_: augmentation
exists so that nobody works longer than that without rest). The equal split (equal breaks, see
:func:`equal_split`) is added as a candidate even when its boundary is off the grid, so a
proposal can never be worse than it on the objective.

Objective (lexicographic, lower is better): first the worst KSS of any pilot at their own
critical phase, which for the landing pilots is the duty's last hour (top of descent, approach
and landing) and for the other pilots their longest stretch at the controls; then the landing
pilots' worst last-hour KSS; then the crew's mean KSS at the controls. A split that rests the
landing pair by leaving the relief pair at the controls for most of the flight is therefore
ranked by the relief pair's fatigue, not hidden behind the landing pair's gain.

References
----------
.. [1] EASA, Easy Access Rules for Flight Time Limitations (Regulation (EU) No 965/2012,
   Annex III ORO.FTL and CS FTL.1), CS FTL.1.205(c): in-flight rest of at least 2
   consecutive hours for the flight crew members at the controls during landing, and
   90 minutes for the others.
.. [2] EASA, the same rules, ORO.FTL.205(b)(1): the maximum basic daily FDP of an
   unaugmented crew is 13 hours (reports 06:00-13:29 acclimatised, 1-2 sectors) and less at
   other report times.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np
import numpy.typing as npt

from vigil.contract import INTERVAL_HOURS

__all__ = [
    "GRID_HOURS",
    "MIN_LANDING_HOURS",
    "MIN_OTHER_HOURS",
    "Candidates",
    "candidate_splits",
    "equal_split",
    "objective",
    "rank",
    "windows",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Break boundaries lie on this clock grid [h] (the scores' 15-min interval).
GRID_HOURS = INTERVAL_HOURS
#: CS FTL.1.205(c): rest of the pilots at the controls for landing [h].
MIN_LANDING_HOURS = 2.0
#: CS FTL.1.205(c): rest of the other flight crew members [h].
MIN_OTHER_HOURS = 1.5
#: ORO.FTL.205(b)(1): the longest daily FDP of an unaugmented crew [h]; no pilot's stretch at
#: the controls (report to break, or break to off duty) is planned longer [C].
MAX_STRETCH_HOURS = 13.0
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate splits: ``C`` rows of break boundaries and pilot-to-break assignments.

    ``bounds`` is ``(C, B + 1)`` epoch hours, ``bounds[:, 0] = z0`` and ``bounds[:, B] =
    z1``; ``assign`` is ``(C, P)``, the 0-based break of each pilot. Row 0 is the equal
    split when ``equal`` is true (it met the minimums).
    """

    bounds: FloatArray
    assign: IntArray
    equal: bool

    def __len__(self) -> int:
        return int(self.assign.shape[0])


def _assignments(landing: npt.NDArray[np.bool_]) -> IntArray:
    """Every assignment of pilots to breaks (4 pilots: pairs; 3 pilots: one each)."""
    n = landing.size
    if n == 4:
        first = np.where(landing, 0, 1)
        return np.stack([first, 1 - first]).astype(np.int64)
    return np.asarray(list(permutations(range(n))), dtype=np.int64)


def n_breaks(n_pilots: int) -> int:
    """Breaks in a split for a crew of ``n_pilots`` (3 or 4)."""
    if n_pilots not in (3, 4):
        raise ValueError(f"rest is planned for 3 or 4 pilots, not {n_pilots}")
    return 2 if n_pilots == 4 else 3


def equal_split(
    z0: float, z1: float, landing: npt.NDArray[np.bool_], order: IntArray | None = None
) -> tuple[FloatArray, IntArray]:
    """The rule-of-thumb split: equal breaks, boundaries ``(B + 1,)`` and assignment ``(P,)``.

    ``order`` is each pilot's 0-based break as rostered (SleepOrder, reference §5.1); when it
    is missing or not a valid assignment, the landing pilots take the last break(s).
    """
    b = n_breaks(landing.size)
    bounds = np.linspace(z0, z1, b + 1)
    valid = _assignments(landing)
    if order is not None and (valid == order).all(axis=1).any():
        return bounds, np.asarray(order, dtype=np.int64)
    # landing pilots last: the assignment whose landing breaks are latest
    score = np.where(landing, valid, 0).sum(axis=1)
    return bounds, valid[int(np.argmax(score))]


def candidate_splits(
    z0: float,
    z1: float,
    landing: npt.NDArray[np.bool_],
    order: IntArray | None = None,
    *,
    grid: float = GRID_HOURS,
    duty: tuple[float, float] | None = None,
) -> Candidates:
    """Every admissible split of the cruise ``[z0, z1]`` [epoch h] for this crew.

    Parameters
    ----------
    z0, z1 : float
        Cruise window [epoch h] (reference §5.1, or the PartialAugment period).
    landing : ndarray of bool, shape (P,)
        Which pilots are at the controls for landing (exactly 2).
    order : ndarray of int, optional
        The rostered break of each pilot, for the equal split (:func:`equal_split`).
    grid : float
        Boundary grid [h].
    duty : (float, float), optional
        Report and off-duty times [epoch h]: bounds each pilot's stretch at the controls by
        :data:`MAX_STRETCH_HOURS`.
    """
    b = n_breaks(landing.size)
    first = np.ceil((z0 + _EPS) / grid) * grid
    points = np.arange(first, z1 - _EPS, grid)
    if b == 2:
        inner = points[:, None]
    else:
        i, j = np.triu_indices(points.size, k=1)
        inner = np.stack([points[i], points[j]], axis=1)
    eq_bounds, eq_assign = equal_split(z0, z1, landing, order)
    n_inner = inner.shape[0]
    bounds = np.empty((n_inner + 1, b + 1))
    bounds[0] = eq_bounds
    bounds[1:, 0], bounds[1:, b] = z0, z1
    bounds[1:, 1:b] = inner
    assigns = _assignments(landing)
    # every (boundaries, assignment) pair; the equal split only with its own assignment
    all_bounds = np.concatenate([bounds[:1], np.repeat(bounds[1:], len(assigns), axis=0)])
    all_assign = np.concatenate([eq_assign[None, :], np.tile(assigns, (n_inner, 1))])
    ok = admissible(all_bounds, all_assign, landing, duty)
    return Candidates(all_bounds[ok], all_assign[ok], bool(ok[0]))


def windows(c: Candidates) -> tuple[FloatArray, FloatArray]:
    """Each pilot's break ``(start, end)`` under each candidate, two ``(C, P)`` arrays."""
    rows = np.arange(len(c))[:, None]
    return c.bounds[rows, c.assign], c.bounds[rows, c.assign + 1]


def admissible(
    bounds: FloatArray,
    assign: IntArray,
    landing: npt.NDArray[np.bool_],
    duty: tuple[float, float] | None = None,
) -> npt.NDArray[np.bool_]:
    """Whether each split meets the EASA minimums (CS FTL.1.205(c)) and, with ``duty``
    (report, off duty [epoch h]), keeps every stretch at the controls within
    :data:`MAX_STRETCH_HOURS`; ``(C,)``."""
    rows = np.arange(bounds.shape[0])[:, None]
    start, end = bounds[rows, assign], bounds[rows, assign + 1]
    need = np.where(landing, MIN_LANDING_HOURS, MIN_OTHER_HOURS)
    ordered = (np.diff(bounds, axis=1) > 0).all(axis=1)
    ok: npt.NDArray[np.bool_] = np.asarray(ordered & (end - start >= need - _EPS).all(axis=1))
    if duty is not None:
        stretch = np.maximum(start - duty[0], duty[1] - end)
        ok &= (stretch <= MAX_STRETCH_HOURS + _EPS).all(axis=1)
    return ok


def objective(
    last_hour_max: FloatArray,
    stretch_max: FloatArray,
    controls_mean: FloatArray,
    landing: npt.NDArray[np.bool_],
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The planner's objective of each candidate (lower is better).

    Parameters
    ----------
    last_hour_max : ndarray, shape (C, P)
        Each pilot's worst KSS in the last hour of the duty under each candidate.
    stretch_max : ndarray, shape (C, P)
        Each pilot's worst KSS over their longest stretch at the controls (the longer of the
        parts of the duty before and after their break).
    controls_mean : ndarray, shape (C, P)
        Each pilot's mean KSS at the controls (the duty's intervals outside their break).
    landing : ndarray of bool, shape (P,)

    Returns
    -------
    worst, landing_kss, crew_mean : ndarray, shape (C,)
        The worst KSS of any pilot at their own critical phase (the last hour for the landing
        pilots, the longest stretch at the controls for the others), the landing pilots' worst
        last-hour KSS (top of descent), and the crew's mean KSS at the controls.
    """
    critical = np.where(landing, last_hour_max, stretch_max)
    worst: FloatArray = critical.max(axis=1)
    landing_kss: FloatArray = np.where(landing, last_hour_max, -np.inf).max(axis=1)
    crew_mean: FloatArray = controls_mean.mean(axis=1)
    return worst, landing_kss, crew_mean


def rank(*keys: FloatArray, decimals: int = 3) -> IntArray:
    """Candidate indices best first: lexicographic on ``keys``, then candidate order.

    Values are compared at the scores' reported precision (``decimals``), so a difference
    below it never decides.
    """
    n = keys[0].size
    sort_keys = (np.arange(n), *(np.round(k, decimals) for k in reversed(keys)))
    order: IntArray = np.lexsort(sort_keys).astype(np.int64)
    return order
