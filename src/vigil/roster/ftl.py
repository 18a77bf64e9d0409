"""EASA flight time limitations a generated roster keeps (Regulation (EU) No 83/2014).

What :func:`vigil.roster.synthetic.generate_airline_duties` checks by default, and what
the tests check on its output:

- ORO.FTL.205(b)(1): the maximum daily FDP of acclimatised crew by the local start time
  of the FDP and the number of sectors (13:00 for 1-2 sectors starting 06:00-13:29, 15
  minutes less per half hour earlier or later down to 11:00 for 17:00-04:59 starts; 30
  minutes less per sector from the third, at least 9:00);
- CS FTL.1.220: a split duty's ground break of at least 3 h extends the FDP by half the
  break;
- CS FTL.1.205(c)(2): augmented crews (CrewComposition 3 or 4) with in-flight rest:
  16/15/14 h (one extra pilot) or 17/16/15 h (two) for class 1/2/3 rest facilities
  (SleepClass 1, 2, 3; a seat, SleepClass 4, counts as class 3); cabin crew
  (CrewComposition 9) are held to the flight crew's two-extra-pilot limits by their
  class;
- ORO.FTL.235(a)/(b): rest before a duty at least as long as the preceding duty period,
  and at least 12 h at home base or 10 h away;
- ORO.FTL.210(a): at most 60 duty hours in any 7 consecutive days, 110 in 14 and 190 in
  28, and (b) at most 100 hours of flight (block) time in 28 consecutive days.

The FDP ends at the on-blocks of the last sector, taken as off duty less 30 minutes of
post-flight duty (the generator's convention). Not modelled: the unacclimatised table
(ORO.FTL.205(b)(2)), disruptive schedules, extended recovery rest after time-zone
crossings (ORO.FTL.235(c)-(d)) and annual limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["FtlDuty", "augmented_fdp", "max_fdp", "violations"]

POST_FLIGHT = timedelta(minutes=30)  #: off duty after the last on-blocks (generator)


def max_fdp(local_start_minutes: int, sectors: int) -> float:
    """ORO.FTL.205(b)(1): maximum daily FDP [h] of acclimatised crew starting at local
    ``local_start_minutes`` after midnight with ``sectors`` sectors."""
    m = local_start_minutes % (24 * 60)
    if 6 * 60 <= m < 13 * 60 + 30:
        base = 13.0
    elif 13 * 60 + 30 <= m < 17 * 60:  # 15 min less per half hour after 13:30
        base = 12.75 - 0.25 * ((m - (13 * 60 + 30)) // 30)
    elif 5 * 60 <= m < 6 * 60:  # 12:00 at 05:00, 15 min more per quarter hour
        base = 12.0 + 0.25 * ((m - 5 * 60) // 15)
    else:  # 17:00-04:59
        base = 11.0
    return max(9.0, base - 0.5 * max(0, sectors - 2))


def augmented_fdp(crew_composition: int, sleep_class: int) -> float:
    """CS FTL.1.205(c)(2): maximum FDP [h] of an augmented crew (see module docstring)."""
    facility = min(max(sleep_class, 1), 3)
    extra = 2 if crew_composition in (4, 9) else 1
    return {1: 16.0, 2: 15.0, 3: 14.0}[facility] + (extra - 1)


@dataclass(frozen=True, slots=True)
class FtlDuty:
    """What the limits read of one duty (UTC instants; local start at the report)."""

    on: datetime
    off: datetime
    local_start_minutes: int
    sectors: int
    crew_composition: int = 2
    sleep_class: int = 1
    split_break: timedelta = timedelta(0)  #: ground break of a split duty
    at_home: bool = True  #: the rest before this duty is taken at home base
    block_hours: float = 0.0

    @property
    def fdp_hours(self) -> float:
        return (self.off - POST_FLIGHT - self.on) / timedelta(hours=1)

    @property
    def limit_hours(self) -> float:
        if self.crew_composition in (3, 4, 9):
            return augmented_fdp(self.crew_composition, self.sleep_class)
        extension = (
            self.split_break / timedelta(hours=2) if self.split_break >= timedelta(hours=3) else 0.0
        )
        return max_fdp(self.local_start_minutes, max(self.sectors, 1)) + extension


def violations(duties: Sequence[FtlDuty]) -> list[str]:
    """Every limit of the module docstring that one crew member's duties (in time order)
    break, in words; empty when the roster is legal."""
    out: list[str] = []
    hour = timedelta(hours=1)
    for i, d in enumerate(duties):
        if d.fdp_hours > d.limit_hours + 1e-9:
            out.append(f"{d.on:%Y-%m-%d %H:%M}Z FDP {d.fdp_hours:.2f} h > {d.limit_hours} h")
        if i:
            prev = duties[i - 1]
            need = max((prev.off - prev.on) / hour, 12.0 if d.at_home else 10.0)
            rest = (d.on - prev.off) / hour
            if rest + 1e-9 < need:
                out.append(f"{d.on:%Y-%m-%d %H:%M}Z rest {rest:.2f} h < {need:.2f} h")
        for days, cap in ((7, 60.0), (14, 110.0), (28, 190.0)):
            start = d.off - timedelta(days=days)
            total = sum(
                (min(e.off, d.off) - max(e.on, start)) / hour
                for e in duties[: i + 1]
                if e.off > start
            )
            if total > cap + 1e-9:
                out.append(f"{d.off:%Y-%m-%d %H:%M}Z {total:.1f} duty h in {days} days > {cap}")
        start = d.off - timedelta(days=28)
        block = sum(e.block_hours for e in duties[: i + 1] if e.on >= start)
        if block > 100.0 + 1e-9:
            out.append(f"{d.off:%Y-%m-%d %H:%M}Z {block:.1f} block h in 28 days > 100")
    return out
