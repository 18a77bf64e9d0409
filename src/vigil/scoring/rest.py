"""The person's own rest inside a duty: in-flight rest windows and split-duty ground breaks.

Rules (reference = ``shared/reference/fatigue-model.md``):

* §5.1 in-flight rest: FirstRest/SecondRest when given, clipped to the duty; otherwise
  derived from CrewComposition (3 or 4 pilots), SleepCount and SleepOrder, or the
  cabin-crew pattern (CrewComposition 9, CabinCrewSleepPattern 0-3, 4 treated as 0),
  intersected with the partial-augmentation period when one is given. Two pilots get no
  rest unless given.
* §7 split duty (DutyType 2 or SplitShift "0 = True"): one ground break, FirstRest when
  given, else centred in the duty with length ``max(0, duty - 8 h)``; sleep allowed in
  ``[break start + 30 min, break end - 45 min]`` with accommodation quality 0.9 (break
  >= 6 h or touching 02:00-04:59) or rest-room quality 0.75 (3-6 h); none below 3 h.

The rules run on whole duty columns (:class:`~vigil.roster.arrays.DutyColumns`), every
duty of a roster at once: :func:`inflight_rest` and :func:`split_breaks`, which the plan
(:mod:`vigil.scoring.plan`) turns into the sleep predictor's windows (sleep may happen
inside these windows and nowhere else within a duty), the workload term's (halved during
own in-flight rest, reference §6) and risk's (rest is excluded, reference §8).
:func:`rest_windows` gives one duty's windows as :class:`RestWindow` objects, through the
same passes. Arithmetic is in whole microseconds with the rounding of
:class:`datetime.timedelta` (half to even on division; ``float * timedelta`` rounded
once); split breaks' WOCL test reads the home base's UTC offset once per distinct (zone,
instant). ``tests/scoring/test_plan.py`` checks both passes against the per-duty rules
kept in ``tests/reference/rest_rows.py``. Project choices where the reference is silent
are marked [C] and listed in ``docs/sleep.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from vigil import tz
from vigil.domain import CrewComposition, Duty, DutyType, Schedule
from vigil.model.parameters import DEFAULT, Parameters
from vigil.model.sleep import DEFAULT_SLEEP, SleepParameters
from vigil.roster.arrays import NO_TIME, DutyColumns, FloatArray, IntArray

__all__ = [
    "InflightRest",
    "RestWindow",
    "SplitBreaks",
    "duty_inflight_quality",
    "inflight_quality",
    "inflight_rest",
    "rest_windows",
    "split_breaks",
    "split_duties",
]

BoolArray = npt.NDArray[np.bool_]
_US_PER_MIN = 60_000_000
_US_PER_HOUR = 3_600_000_000
_US_PER_DAY = 86_400_000_000
_HOUR = timedelta(hours=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)
#: codes compared with whole columns, read once (an enum member lookup is slow)
_STANDBY, _SPLIT_SHIFT = int(DutyType.STANDBY), int(DutyType.SPLIT_SHIFT)
_TWO_PILOTS, _THREE_PILOTS = int(CrewComposition.TWO_PILOTS), int(CrewComposition.THREE_PILOTS)
_CABIN_CREW = int(CrewComposition.CABIN_CREW)
#: Cabin-crew rest zones (after take-off, before landing) [h] by pattern, reference §5.1 [C]
_CABIN_ZONES: dict[int, tuple[float, float]] = {0: (2.0, 1.5), 1: (1.0, 1.0), 3: (1.5, 1.5)}


@dataclass(frozen=True, slots=True)
class RestWindow:
    """One of the person's own rest periods inside a duty (aware UTC datetimes).

    ``kind`` is ``"inflight"`` (reference §5) or ``"split"`` (ground break, §7).
    ``quality`` is the restorative value per hour of any sleep in the window: ``q_k =
    0.70·r_k`` by SleepClass for in-flight rest; 0.9 / 0.75 / 0.0 (no sleep) for breaks.
    ``sleep_start``/``sleep_end`` bound where sleep may happen: the whole window for
    in-flight rest (latency and wake buffer are applied by the predictor, §5.2), the break
    minus 30 min after its start and 45 min before its end for split breaks (§7).
    """

    start: datetime
    end: datetime
    kind: str
    quality: float
    sleep_start: datetime
    sleep_end: datetime

    @property
    def hours(self) -> float:
        """Length of the window [h]."""
        return (self.end - self.start) / _HOUR


def rest_windows(
    duty: Duty,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> tuple[RestWindow, ...]:
    """The person's own rest windows inside one ``duty``, sorted, clipped to the duty.

    The column passes (:func:`inflight_rest`, :func:`split_breaks`) on a one-duty column,
    for pages and the planner that show or reshape a single duty. Empty for a standby
    duty (DutyType 3, awake throughout, reference §7) and for an ordinary two-pilot duty
    without given rest.
    """
    if duty.duty_type == DutyType.STANDBY:
        return ()
    columns = DutyColumns.from_schedules((Schedule(reference=duty.reference, duties=(duty,)),))
    if split_duties(columns)[0]:
        found = split_breaks(columns, np.zeros(1, dtype=np.int64), sleep_params)
        if not found.present[0]:
            return ()
        start, end, a, b = (
            _instant(int(x[0]))
            for x in (found.start, found.end, found.sleep_start, found.sleep_end)
        )
        return (RestWindow(start, end, "split", float(found.quality[0]), a, b),)
    inflight = inflight_rest(columns, params)
    q = duty_inflight_quality(duty, params)
    out = []
    for slot in np.flatnonzero(inflight.present[0]).tolist():
        a, b = _instant(int(inflight.start[0, slot])), _instant(int(inflight.end[0, slot]))
        out.append(RestWindow(a, b, "inflight", q, a, b))
    return tuple(out)


def duty_inflight_quality(duty: Duty, params: Parameters = DEFAULT) -> float:
    """``q_k = q_bunk·r_k`` of one duty's in-flight sleep (reference §5.2 table)."""
    return params.inflight_quality * params.facility_factor[int(duty.sleep_class) - 1]


def _instant(us: int) -> datetime:
    """Microseconds since the epoch → an aware UTC datetime."""
    return _EPOCH + timedelta(microseconds=us)


@lru_cache(maxsize=256)
def _us(hours: float) -> int:
    """``hours * timedelta(hours=1)`` in whole microseconds, rounded as timedelta rounds."""
    return (hours * _HOUR) // timedelta(microseconds=1)


def _div(a: IntArray, b: IntArray | int) -> IntArray:
    """``a / b`` rounded half to even, as ``timedelta / int``."""
    q, r = np.divmod(a, b)
    twice = 2 * r
    up = (twice > b) | ((twice == b) & (q % 2 == 1))
    out: IntArray = q + up
    return out


def _half(a: IntArray) -> IntArray:
    """``a / 2`` rounded half to even (:func:`_div` by 2, in fewer array passes)."""
    q = a >> 1  # floor, as divmod
    out: IntArray = q + (a & q & 1)  # remainder 1 and an odd quotient: round up
    return out


def split_duties(columns: DutyColumns) -> BoolArray:
    """DutyType 2, or SplitShift "0 = True" (reference §7)."""
    out: BoolArray = (columns.duty_type == _SPLIT_SHIFT) | (columns.split_shift == 0)
    return out


class InflightRest:
    """Up to two in-flight rest windows per duty: ``(D, 2)`` start/end [µs], -1 if none."""

    def __init__(self, start: IntArray, end: IntArray) -> None:
        self.start, self.end = start, end

    @property
    def present(self) -> BoolArray:
        out: BoolArray = self.end > self.start
        return out


def _periods_us(columns: DutyColumns) -> tuple[IntArray, IntArray, BoolArray]:
    """Start and end [µs] (0: absent) of each duty's partial-augmentation, first and
    second rest periods (:data:`~vigil.roster.arrays.PERIODS`), and which are given."""
    ps = np.where(columns.period_start != NO_TIME, columns.period_start * _US_PER_MIN, 0)
    pe = np.where(columns.period_end != NO_TIME, columns.period_end * _US_PER_MIN, 0)
    return ps, pe, columns.period_start != NO_TIME


def _given_windows(
    columns: DutyColumns, eligible: BoolArray
) -> tuple[IntArray, IntArray, BoolArray]:
    """Window starts and ends [µs] (``-1``: none; two per duty) of the duties with given
    rest periods (§5.1: used as they are, clipped to the duty), sorted by (start, end);
    and which duties have them."""
    on, off = columns.on_duty * _US_PER_MIN, columns.off_duty * _US_PER_MIN
    ps, pe, has = _periods_us(columns)
    start = np.full((on.size, 2), -1, dtype=np.int64)
    end = np.full((on.size, 2), -1, dtype=np.int64)
    given = eligible & (has[1] | has[2])
    a = np.where(has[1:], np.maximum(ps[1:], on), 0)
    b = np.where(has[1:], np.minimum(pe[1:], off), 0)
    swap = has[1] & has[2] & ((a[1] < a[0]) | ((a[1] == a[0]) & (b[1] < b[0])))
    a = np.where(swap, a[::-1], a)
    b = np.where(swap, b[::-1], b)
    use = (np.where(swap, has[2::-1][:2], has[1:]) & (b > a)) & given
    start[:, 0], end[:, 0] = np.where(use[0], a[0], -1), np.where(use[0], b[0], -1)
    start[:, 1], end[:, 1] = np.where(use[1], a[1], -1), np.where(use[1], b[1], -1)
    return start, end, given


def _sleep_zones(
    columns: DutyColumns, p: Parameters, derive: BoolArray
) -> tuple[IntArray, IntArray, BoolArray, BoolArray]:
    """Where crew may sleep (§5.1 steps 1-2) [µs]: the first sector's cruise, or the
    cabin-crew pattern's zone, within the partial-augmentation period when one is given;
    which of the ``derive`` duties keep a zone, and which sleep over half the cruise."""
    on, off = columns.on_duty * _US_PER_MIN, columns.off_duty * _US_PER_MIN
    flight_start = on + _us(p.report_to_takeoff)
    flight_end = off - _us(p.landing_to_off)
    derive = derive & (flight_end > flight_start)
    sector = _div(flight_end - flight_start, np.maximum(1, columns.sectors))
    takeoff, landing = flight_start, flight_start + sector
    cruise0 = takeoff + _us(p.cruise_margin_takeoff)
    cruise1 = landing - _us(p.cruise_margin_landing)
    has_cruise = cruise1 > cruise0
    cabin = columns.crew_composition == _CABIN_CREW
    pattern = np.where(np.isin(columns.cabin_crew_sleep_pattern, (1, 2, 3)),
                       columns.cabin_crew_sleep_pattern, 0)  # fmt: skip
    half_cruise = cabin & (pattern == 2)
    z0, z1 = cruise0.copy(), cruise1.copy()
    for code, (after_takeoff, before_landing) in _CABIN_ZONES.items():
        rows = cabin & (pattern == code)
        z0 = np.where(rows, takeoff + _us(after_takeoff), z0)
        z1 = np.where(rows, landing - _us(before_landing), z1)
    derive &= ~(~cabin & ~has_cruise) & ~(half_cruise & ~has_cruise)
    ps, pe, has = _periods_us(columns)
    aug = has[0]
    z0 = np.where(aug, np.maximum(z0, ps[0]), z0)
    z1 = np.where(aug, np.minimum(z1, pe[0]), z1)
    return z0, z1, derive & (z1 > z0), half_cruise


def _derived_windows(
    columns: DutyColumns, p: Parameters, derive: BoolArray, start: IntArray, end: IntArray
) -> None:
    """Fill ``start``/``end`` of the ``derive`` duties with their derived slots (§5.1
    steps 3-4): the zone in groups × min(SleepCount, 2) equal slots, SleepOrder picking
    one (and one a round later); cabin pattern 2 sleeps over half the zone."""
    crew, count, order = columns.crew_composition, columns.sleep_count, columns.sleep_order
    z0, z1, derive, half_cruise = _sleep_zones(columns, p, derive)
    # pattern 2: one sleep over half the cruise, order 1 the first half, else the second
    half = _div(z1 - z0, 2)
    first_half = order == 1
    h0 = np.where(first_half, z0, z0 + half)
    h1 = np.where(first_half, z0 + half, z1)
    groups = np.where(crew == _CABIN_CREW, 2, np.where(crew == _THREE_PILOTS, 3, 2))
    n_slots = groups * np.minimum(count, 2)
    slot = _div(z1 - z0, np.maximum(n_slots, 1))
    pick = (order - 1) % groups
    second = pick + groups
    slots = derive & ~half_cruise
    start[:, 0] = np.where(slots, z0 + pick * slot, np.where(derive, h0, start[:, 0]))
    end[:, 0] = np.where(slots, z0 + (pick + 1) * slot, np.where(derive, h1, end[:, 0]))
    two = slots & (count >= 2)
    start[:, 1] = np.where(two, z0 + second * slot, start[:, 1])
    end[:, 1] = np.where(two, z0 + (second + 1) * slot, end[:, 1])


def inflight_rest(columns: DutyColumns, params: Parameters) -> InflightRest:
    """In-flight rest windows of every non-split, non-standby duty (reference §5.1).

    Given periods are used as they are (clipped to the duty); otherwise the slots
    derived from CrewComposition, SleepCount and SleepOrder, or the cabin-crew pattern,
    within the partial-augmentation period when one is given. Windows are sorted.
    """
    eligible = ~split_duties(columns) & (columns.duty_type != _STANDBY)
    start, end, given = _given_windows(columns, eligible)
    count, crew = columns.sleep_count, columns.crew_composition
    derive = eligible & ~given & (count > 0) & (crew != _TWO_PILOTS)
    _derived_windows(columns, params, derive, start, end)
    # a window that is empty after rounding is dropped, as the per-duty function does
    empty = end <= start
    start[empty], end[empty] = -1, -1
    return InflightRest(start, end)


def inflight_quality(columns: DutyColumns, params: Parameters) -> FloatArray:
    """``q_k = q_bunk·r_k`` of each duty (reference §5.2)."""
    factor = np.asarray(params.facility_factor, dtype=np.float64)
    out: FloatArray = params.inflight_quality * factor[columns.sleep_class - 1]
    return out


class SplitBreaks:
    """The ground break of each of some split duties (reference §7), in µs since the epoch.

    ``present`` is False where the duty has no break; ``sleep_start``/``sleep_end`` bound
    where sleep may happen (both ``start`` when ``quality`` is 0).
    """

    def __init__(
        self,
        start: IntArray,
        end: IntArray,
        sleep_start: IntArray,
        sleep_end: IntArray,
        quality: FloatArray,
    ) -> None:
        self.start, self.end = start, end
        self.sleep_start, self.sleep_end = sleep_start, sleep_end
        self.quality = quality

    @property
    def present(self) -> BoolArray:
        out: BoolArray = self.end > self.start
        return out


def split_breaks(columns: DutyColumns, index: IntArray, sp: SleepParameters) -> SplitBreaks:
    """The break of split duties ``index`` (reference §7).

    FirstRest when given (clipped to the duty), else ``max(0, duty - 8 h)`` centred in the
    duty; accommodation quality for breaks >= 6 h or touching 02:00-04:59 home-base local
    time, rest-room quality for 3-6 h, no sleep below; sleep from 30 min after the start
    to 45 min before the end (reference §7).
    """
    on = columns.on_duty[index] * _US_PER_MIN
    off = columns.off_duty[index] * _US_PER_MIN
    duration = off - on
    mid = on + _half(duration)
    half = _half(np.maximum(duration - _us(sp.split_free_hours), 0))
    start, end = mid - half, mid + half
    given = columns.period_start[1, index] != NO_TIME  # FirstRest
    if given.any():  # most split duties leave the break to be centred
        rest_start = np.where(given, columns.period_start[1, index], 0) * _US_PER_MIN
        rest_end = np.where(given, columns.period_end[1, index], 0) * _US_PER_MIN
        start = np.where(given, np.maximum(rest_start, on), start)
        end = np.where(given, np.minimum(rest_end, off), end)
    hours = (end - start) / _US_PER_HOUR
    a = start + _us(sp.split_settle_hours)
    b = end - _us(sp.split_rise_hours)
    room = b > a  # else no sleep whatever the quality
    roomy = hours >= sp.split_accommodation_hours
    # the WOCL test decides only breaks with room to sleep below the accommodation length
    wocl = np.flatnonzero(room & ~roomy)
    if wocl.size:
        zones = [columns.home_bases[h][0].tz for h in columns.home_base[index[wocl]].tolist()]
        roomy[wocl] = _touches_wocl(start[wocl], end[wocl], zones, sp)
    quality = np.where(
        roomy,
        sp.split_accommodation_quality,
        np.where(hours >= sp.split_rest_room_hours, sp.split_rest_room_quality, 0.0),
    )
    none = (quality == 0.0) | ~room
    return SplitBreaks(
        start,
        end,
        np.where(none, start, a),
        np.where(none, start, b),
        np.where(none, 0.0, quality),
    )


def _touches_wocl(
    start: IntArray, end: IntArray, zones: list[str], sp: SleepParameters
) -> BoolArray:
    """Whether each ``[start, end)`` [µs] touches the WOCL in home-base local time, as
    the per-duty rule (local wall clock fixed at the start's offset).

    Its day loop, closed: the first day ``D`` (from the day before the start's local day)
    with ``local < D + hi`` touches iff ``D < local_end`` and ``D + lo < local_end``.
    """
    offsets: dict[tuple[str, int], int] = {}
    local = np.empty(start.size, dtype=np.int64)
    for k, (zone, us) in enumerate(zip(zones, start.tolist(), strict=True)):
        found = offsets.get((zone, us))
        if found is None:
            wall = tz.utc_to_local(_EPOCH + timedelta(microseconds=us), zone)
            found = offsets[(zone, us)] = (wall - _NAIVE_EPOCH) // timedelta(microseconds=1)
        local[k] = found
    local_end = local + (end - start)
    lo, hi = (_us(h) for h in sp.split_wocl)
    first_day = (local // _US_PER_DAY - 1) * _US_PER_DAY
    day = first_day + np.maximum((local - hi - first_day) // _US_PER_DAY + 1, 0) * _US_PER_DAY
    out: BoolArray = (day < local_end) & (day + lo < local_end)
    return out
