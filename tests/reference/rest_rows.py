"""The retired per-duty rest rules, kept as an independent reference.

Production finds rest windows by column passes (:mod:`vigil.scoring.rest`, every duty
of a roster at once). This module applies the same rules to one
:class:`~vigil.domain.Duty` at a time with ``datetime`` arithmetic, so the tests can
hold the column passes to an encoding written another way
(``tests/scoring/test_plan.py``, ``tests/reference/plan_rows.py``).

Rules (reference = ``shared/reference/fatigue-model.md``):

* §5.1 in-flight rest: FirstRest/SecondRest when given; otherwise derived from
  CrewComposition (3 or 4 pilots), SleepCount and SleepOrder, or the cabin-crew pattern
  (CrewComposition 9, CabinCrewSleepPattern 0-3, 4 treated as 0), intersected with the
  partial-augmentation period when one is given. Two pilots get no rest unless given.
* §7 split duty (DutyType 2 or SplitShift "0 = True"): one ground break, FirstRest when
  given, else centred in the duty with length ``max(0, duty - 8 h)``; sleep allowed in
  ``[break start + 30 min, break end - 45 min]`` with accommodation quality 0.9 (break
  >= 6 h or touching 02:00-04:59) or rest-room quality 0.75 (3-6 h); none below 3 h.

Project choices where the reference is silent are marked [C] and listed in ``docs/sleep.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from vigil import tz
from vigil.domain import CrewComposition, Duty, DutyType
from vigil.model.parameters import DEFAULT, Parameters
from vigil.model.sleep import DEFAULT_SLEEP, SleepParameters

__all__ = ["RestWindow", "rest_windows", "inflight_quality", "is_split_duty"]

_HOUR = timedelta(hours=1)


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


def inflight_quality(duty: Duty, params: Parameters = DEFAULT) -> float:
    """Restorative value of in-flight sleep ``q_k = q_bunk·r_k`` (reference §5.2 table)."""
    return params.inflight_quality * params.facility_factor[int(duty.sleep_class) - 1]


def is_split_duty(duty: Duty) -> bool:
    """DutyType 2, or SplitShift "0 = True" (seed §2.2 col 27, reference §7)."""
    return duty.duty_type == DutyType.SPLIT_SHIFT or duty.split_shift


def rest_windows(
    duty: Duty,
    params: Parameters = DEFAULT,
    sleep_params: SleepParameters = DEFAULT_SLEEP,
) -> tuple[RestWindow, ...]:
    """The person's own rest windows inside ``duty``, sorted, clipped to the duty.

    Parameters
    ----------
    duty : Duty
        One roster row, times in UTC.
    params : Parameters
        Flight timing and in-flight quality constants (reference §5, §6, §10).
    sleep_params : SleepParameters
        Split-duty break constants (reference §7).

    Returns
    -------
    tuple of RestWindow
        Empty for a standby duty (DutyType 3, awake throughout, reference §7) and for an
        ordinary two-pilot duty without given rest.
    """
    if duty.duty_type == DutyType.STANDBY:
        return ()
    if duty.first_rest is None and duty.second_rest is None and not duty.split_shift:
        if duty.sleep_count <= 0 or duty.crew_composition == CrewComposition.TWO_PILOTS:
            if duty.duty_type != DutyType.SPLIT_SHIFT:
                return ()  # fast path: the common short-haul duty has no own rest
    if is_split_duty(duty):
        return _split_break(duty, sleep_params)
    given = [p for p in (duty.first_rest, duty.second_rest) if p is not None]
    if given:  # §5.1: given periods are used as they are [C: whatever SleepCount says]
        spans = [(max(p.start, duty.on_duty), min(p.end, duty.off_duty)) for p in given]
    else:
        spans = _derived_rest(duty, params)
    q = inflight_quality(duty, params)
    out = [RestWindow(a, b, "inflight", q, a, b) for a, b in sorted(spans) if b > a]
    return tuple(out)


def _split_break(duty: Duty, sp: SleepParameters) -> tuple[RestWindow, ...]:
    """Ground break of a split duty (reference §7)."""
    if duty.first_rest is not None:
        start = max(duty.first_rest.start, duty.on_duty)
        end = min(duty.first_rest.end, duty.off_duty)
    else:
        length = max(timedelta(0), duty.duration - sp.split_free_hours * _HOUR)
        mid = duty.on_duty + duty.duration / 2
        start, end = mid - length / 2, mid + length / 2
    if end <= start:
        return ()
    hours = (end - start) / _HOUR
    if hours >= sp.split_accommodation_hours or _touches_wocl(duty, start, end, sp):
        quality = sp.split_accommodation_quality
    elif hours >= sp.split_rest_room_hours:
        quality = sp.split_rest_room_quality
    else:
        quality = 0.0
    a = start + sp.split_settle_hours * _HOUR
    b = end - sp.split_rise_hours * _HOUR
    if quality == 0.0 or b <= a:
        a = b = start
        quality = 0.0
    return (RestWindow(start, end, "split", quality, a, b),)


def _touches_wocl(duty: Duty, start: datetime, end: datetime, sp: SleepParameters) -> bool:
    """Whether [start, end) touches 02:00-04:59 home-base local time.

    [C] Body time is approximated by home-base local time: split duties are short-haul
    duties of acclimatised crew, and this keeps :func:`rest_windows` a function of one duty.
    """
    lo, hi = sp.split_wocl
    zone = duty.home.tz
    local = tz.utc_to_local(start, zone).replace(tzinfo=None)
    local_end = local + (end - start)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    while day < local_end:
        w0, w1 = day + lo * _HOUR, day + hi * _HOUR
        if w0 < local_end and local < w1:
            return True
        day += timedelta(days=1)
    return False


def _derived_rest(duty: Duty, p: Parameters) -> list[tuple[datetime, datetime]]:
    """Rest slots derived from the crew complement (reference §5.1 steps 1-4)."""
    n = duty.crew_composition
    c = duty.sleep_count
    if c <= 0 or n == CrewComposition.TWO_PILOTS:
        return []
    flight_start = duty.on_duty + p.report_to_takeoff * _HOUR
    flight_end = duty.off_duty - p.landing_to_off * _HOUR
    if flight_end <= flight_start:
        return []
    # [C] rest is derived in the first sector; sectors are evenly spaced (§6) so all are equal
    sector = (flight_end - flight_start) / max(1, duty.sectors)
    takeoff, landing = flight_start, flight_start + sector
    k = duty.sleep_order
    if n == CrewComposition.CABIN_CREW:
        pattern = duty.cabin_crew_sleep_pattern if duty.cabin_crew_sleep_pattern in (1, 2, 3) else 0
        if pattern == 2:  # one sleep covering 50 % of cruise, order 1 first half, else second
            zone = _cruise(takeoff, landing, p)
            if zone is None:
                return []
            z0, z1 = _augment(duty, zone)
            if z1 <= z0:
                return []
            half = (z1 - z0) / 2
            return [(z0, z0 + half)] if k == 1 else [(z0 + half, z1)]
        after_to, before_ld = _CABIN_ZONES[pattern]
        zone = (takeoff + after_to * _HOUR, landing - before_ld * _HOUR)
        groups = 2
    else:
        cruise = _cruise(takeoff, landing, p)
        if cruise is None:
            return []
        zone = cruise
        groups = 3 if n == CrewComposition.THREE_PILOTS else 2
    z0, z1 = _augment(duty, zone)
    if z1 <= z0:
        return []
    n_slots = groups * min(c, 2)
    slot = (z1 - z0) / n_slots
    first = (k - 1) % groups  # [C] SleepOrder beyond the number of crews wraps around
    chosen = [first] + ([first + groups] if c >= 2 else [])
    return [(z0 + i * slot, z0 + (i + 1) * slot) for i in chosen]


#: Cabin-crew rest zones (after take-off, before landing) [h] by pattern, reference §5.1 [C]
_CABIN_ZONES: dict[int, tuple[float, float]] = {0: (2.0, 1.5), 1: (1.0, 1.0), 3: (1.5, 1.5)}


def _cruise(
    takeoff: datetime, landing: datetime, p: Parameters
) -> tuple[datetime, datetime] | None:
    a = takeoff + p.cruise_margin_takeoff * _HOUR
    b = landing - p.cruise_margin_landing * _HOUR
    return (a, b) if b > a else None


def _augment(duty: Duty, zone: tuple[datetime, datetime]) -> tuple[datetime, datetime]:
    """Intersect with the partial-augmentation period when one is given (§5.1 step 2)."""
    a, b = zone
    if duty.partial_augment is not None:
        a = max(a, duty.partial_augment.start)
        b = min(b, duty.partial_augment.end)
    return a, b
