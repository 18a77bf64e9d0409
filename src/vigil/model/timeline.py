"""The crew timeline the simulation walks, and the zone (body-clock) carry it shares.

:class:`CrewTimeline` holds every crew member's start state, sleep periods and body-clock
targets (crew axis first, NaN-padded); :func:`carry_zone` moves the body clock across zone
changes (reference §3). Both the Three-Process simulation (:mod:`.simulate`) and the
Unified Model (:mod:`.unified`) read them, so they live below both.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numba as nb
import numpy as np

from ._arrays import FloatArray, as_1d, as_2d
from ._kernels import Consts, phase_at, phase_plan, wrap

#: A zone segment: index, start, φ then, signed move and rate toward θ (ref §3).
Zone = namedtuple("Zone", ["zi", "t", "phi", "move", "rate"])
#: The timeline arrays and samples the kernel reads (fields of :class:`CrewTimeline`).
Inputs = namedtuple(
    "Inputs",
    ["start", "s_start", "phase_start", "sleep_start", "sleep_end", "sleep_quality",
     "zone_time", "zone_offset", "samples"],
)  # fmt: skip


@nb.njit(cache=True)
def carry_zone(k: Consts, inp: Inputs, i: int, t: float, z: Zone) -> Zone:
    """Carry φ across every zone change at or before ``t`` (ref §3)."""
    nz = inp.zone_time.shape[1]
    while z.zi + 1 < nz and inp.zone_time[i, z.zi + 1] <= t:
        tz = inp.zone_time[i, z.zi + 1]
        phi_seg = wrap(phase_at(k, z.phi, z.move, z.rate, tz - z.t))
        move, rate = phase_plan(k, phi_seg, inp.zone_offset[i, z.zi + 1])
        z = Zone(z.zi + 1, tz, phi_seg, move, rate)
    return z


@dataclass(frozen=True, slots=True)
class CrewTimeline:
    """Sleep and location history of ``n`` crew members, as padded arrays.

    Attributes
    ----------
    start : (n,) float
        Start of the simulation; the person wakes at ``start`` (warm-up start). [epoch h]
    s_start : (n,) float
        S at ``start`` (13.82 = 8-h steady state at waking, reference §9.4). [TPM units]
    phase_start : (n,) float
        Body-clock offset φ at ``start`` (home-base UTC offset). [h]
    sleep_start, sleep_end : (n, m) float
        Sleep episodes ``[start, end)``, sorted, non-overlapping, ``>= start``, ``end >
        start``; NaN pad on the right. [epoch h]
    sleep_quality : (n, m) float
        Restorative value q in (0, 1] per hour of each sleep (reference §2.1, §5.2). [-]
    zone_time : (n, z) float
        Instants from which ``zone_offset`` applies, sorted; ``zone_time[:, 0] <= start``;
        NaN pad. [epoch h]
    zone_offset : (n, z) float
        UTC offset of where the person is: the body-clock target θ (reference §3). [h]
    """

    start: FloatArray
    s_start: FloatArray
    phase_start: FloatArray
    sleep_start: FloatArray
    sleep_end: FloatArray
    sleep_quality: FloatArray
    zone_time: FloatArray
    zone_offset: FloatArray

    def __post_init__(self) -> None:
        for name in ("start", "s_start", "phase_start"):
            object.__setattr__(self, name, as_1d(getattr(self, name), name))
        for name in ("sleep_start", "sleep_end", "sleep_quality", "zone_time", "zone_offset"):
            object.__setattr__(self, name, as_2d(getattr(self, name), name))
        n = self.start.shape[0]
        for name in ("s_start", "phase_start"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"{name} must have shape ({n},)")
        m_shape = self.sleep_start.shape
        if (
            m_shape[0] != n
            or self.sleep_end.shape != m_shape
            or self.sleep_quality.shape != m_shape
        ):
            raise ValueError(f"sleep_start/sleep_end/sleep_quality must share shape ({n}, m)")
        z_shape = self.zone_time.shape
        if z_shape[0] != n or z_shape[1] < 1 or self.zone_offset.shape != z_shape:
            raise ValueError(f"zone_time/zone_offset must share shape ({n}, z>=1)")
        if not (np.isfinite(self.start).all() and np.isfinite(self.s_start).all()):
            raise ValueError("start and s_start must be finite")
        if not np.isfinite(self.phase_start).all():
            raise ValueError("phase_start must be finite")
        self._check_sleep()
        self._check_zones()

    def _check_sleep(self) -> None:
        rule = _first_sleep_error(self.start, self.sleep_start, self.sleep_end, self.sleep_quality)
        if rule >= 0:
            raise ValueError(_SLEEP_RULES[rule])

    def _check_zones(self) -> None:
        rule = _first_zone_error(self.start, self.zone_time, self.zone_offset)
        if rule >= 0:
            raise ValueError(_ZONE_RULES[rule])

    @property
    def n_crew(self) -> int:
        """Number of crew members (rows)."""
        return int(self.start.shape[0])


#: The rules of :class:`CrewTimeline`'s sleep episodes, in the order they are checked.
_SLEEP_RULES = (
    "sleep_start and sleep_end must be NaN in the same places",
    "sleep episodes must be NaN-padded on the right only",
    "sleep_quality must be in (0, 1] for every episode",
    "every sleep must end after it starts",
    "sleep episodes must start at or after `start`",
    "sleep episodes must be sorted and non-overlapping",
)
#: The rules of :class:`CrewTimeline`'s zone timeline, in the order they are checked.
_ZONE_RULES = (
    "zone_time and zone_offset must be NaN in the same places",
    "zone_time[:, 0] must be finite and <= start",
    "zones must be NaN-padded on the right only",
    "zone_time must be sorted",
)


@nb.njit(cache=True)
def _first_sleep_error(start: FloatArray, s: FloatArray, e: FloatArray, q: FloatArray) -> int:
    """Index of the first rule of :data:`_SLEEP_RULES` some episode breaks, else -1."""
    first = len(_SLEEP_RULES)
    for i in range(s.shape[0]):
        for j in range(s.shape[1]):
            given = np.isfinite(s[i, j])
            before = j > 0 and np.isfinite(s[i, j - 1])
            if given != np.isfinite(e[i, j]):
                rule = 0
            elif given and j > 0 and not before:
                rule = 1
            elif given and not (q[i, j] > 0.0 and q[i, j] <= 1.0):
                rule = 2
            elif given and not e[i, j] > s[i, j]:
                rule = 3
            elif given and s[i, j] < start[i]:
                rule = 4
            elif given and j > 0 and s[i, j] < e[i, j - 1]:
                rule = 5
            else:
                continue
            first = min(first, rule)
    return first if first < len(_SLEEP_RULES) else -1


@nb.njit(cache=True)
def _first_zone_error(start: FloatArray, zt: FloatArray, zo: FloatArray) -> int:
    """Index of the first rule of :data:`_ZONE_RULES` some zone entry breaks, else -1."""
    first = len(_ZONE_RULES)
    for i in range(zt.shape[0]):
        for j in range(zt.shape[1]):
            given = np.isfinite(zt[i, j])
            if given != np.isfinite(zo[i, j]):
                rule = 0
            elif j == 0 and (not given or zt[i, 0] > start[i]):
                rule = 1
            elif given and j > 0 and not np.isfinite(zt[i, j - 1]):
                rule = 2
            elif given and j > 0 and zt[i, j] < zt[i, j - 1]:
                rule = 3
            else:
                continue
            first = min(first, rule)
    return first if first < len(_ZONE_RULES) else -1
