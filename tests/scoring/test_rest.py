"""Tests of the person's own rest windows (reference §5.1 in-flight rest, §7 split duty)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vigil import tz
from vigil.domain import (
    Airport,
    CrewComposition,
    Duty,
    DutyType,
    Period,
    SleepClass,
)
from vigil.scoring.rest import rest_windows

LHR = tz.airport("LHR")
SIN = tz.airport("SIN")
assert LHR is not None and SIN is not None


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, tzinfo=UTC)


def _duty(on: datetime, off: datetime, end: Airport = SIN, **kw: object) -> Duty:
    return Duty(
        row=2, reference="P1", on_duty=on, off_duty=off, start_airport=LHR, end_airport=end,
        home_base=(LHR,), **kw,  # type: ignore[arg-type]
    )  # fmt: skip


# A 12-h one-sector flight: report 20:00, off 08:00. Flight period 21:00-07:30 (ref §6),
# cruise 21:30-07:00 (30-min margins, ref §5.1 step 2), 9.5 h.
ON, OFF = _at(10, 20), _at(11, 8)
CRUISE0, CRUISE_H = _at(10, 21, 30), 9.5


def _slots(n: int) -> list[tuple[datetime, datetime]]:
    w = timedelta(hours=CRUISE_H / n)
    return [(CRUISE0 + i * w, CRUISE0 + (i + 1) * w) for i in range(n)]


def _spans(duty: Duty) -> list[tuple[datetime, datetime]]:
    return [(r.start, r.end) for r in rest_windows(duty)]


def test_two_pilots_get_no_rest_unless_given() -> None:
    """Ref §5.1 step 3: n = 2, no rest unless given explicitly."""
    assert rest_windows(_duty(ON, OFF, sleep_count=1)) == ()
    given = Period(_at(11, 1), _at(11, 1, 40))
    windows = rest_windows(_duty(ON, OFF, first_rest=given, sleep_count=1))
    assert [(w.start, w.end, w.kind) for w in windows] == [(given.start, given.end, "inflight")]


def test_given_rest_is_used_and_clipped_to_the_duty() -> None:
    """Ref §5.1: given FirstRest/SecondRest are used as they are (inside the duty)."""
    first = Period(_at(10, 22), _at(11, 1))
    second = Period(_at(11, 4), _at(11, 9))  # runs past off-duty: clipped
    duty = _duty(ON, OFF, crew_composition=CrewComposition.FOUR_PILOTS, sleep_count=2,
                 first_rest=first, second_rest=second)  # fmt: skip
    assert _spans(duty) == [(first.start, first.end), (second.start, OFF)]


@pytest.mark.parametrize(("order", "slot"), [(1, 0), (2, 1), (3, 2)])
def test_three_pilots_one_sleep_slot_by_order(order: int, slot: int) -> None:
    """Ref §5.1 step 3: n = 3, c = 1: cruise in 3 equal slots, the person gets slot k."""
    duty = _duty(ON, OFF, crew_composition=CrewComposition.THREE_PILOTS, sleep_count=1,
                 sleep_order=order)  # fmt: skip
    assert _spans(duty) == [_slots(3)[slot]]


def test_three_pilots_two_sleeps() -> None:
    """Ref §5.1 step 3: n = 3, c = 2: 6 slots, the person gets slots k and k + 3."""
    duty = _duty(ON, OFF, crew_composition=CrewComposition.THREE_PILOTS, sleep_count=2,
                 sleep_order=2)  # fmt: skip
    s = _slots(6)
    assert _spans(duty) == [s[1], s[4]]


@pytest.mark.parametrize(("order", "slots"), [(1, [0, 2]), (2, [1, 3])])
def test_four_pilots_two_sleeps(order: int, slots: list[int]) -> None:
    """Ref §5.1 step 3: n = 4, c = 2: two crews alternate over 4 slots, k and k + 2."""
    duty = _duty(ON, OFF, crew_composition=CrewComposition.FOUR_PILOTS, sleep_count=2,
                 sleep_order=order)  # fmt: skip
    s = _slots(4)
    assert _spans(duty) == [s[i] for i in slots]


def test_four_pilots_one_sleep_halves() -> None:
    """Ref §5.1 step 3: n = 4, c = 1: 2 slots, order 2 takes the second half of cruise."""
    duty = _duty(ON, OFF, crew_composition=CrewComposition.FOUR_PILOTS, sleep_count=1,
                 sleep_order=2)  # fmt: skip
    assert _spans(duty) == [_slots(2)[1]]


def test_partial_augmentation_intersects_cruise() -> None:
    """Ref §5.1 step 2: rest is derived only inside the partial-augmentation period."""
    aug = Period(_at(11, 0), _at(11, 6))
    duty = _duty(ON, OFF, crew_composition=CrewComposition.THREE_PILOTS, sleep_count=1,
                 sleep_order=3, partial_augment=aug)  # fmt: skip
    assert _spans(duty) == [(_at(11, 4), _at(11, 6))]  # third of 00:00-06:00


@pytest.mark.parametrize(
    ("pattern", "zone"),
    [
        (0, (_at(10, 23), _at(11, 6))),  # [TO + 2 h, LD - 1.5 h]
        (1, (_at(10, 22), _at(11, 6, 30))),  # [TO + 1 h, LD - 1 h]
        (3, (_at(10, 22, 30), _at(11, 6))),  # [TO + 1.5 h, LD - 1.5 h]
        (4, (_at(10, 23), _at(11, 6))),  # 4 is treated as 0 (contract §3.1)
    ],
)
def test_cabin_crew_patterns(pattern: int, zone: tuple[datetime, datetime]) -> None:
    """Ref §5.1 step 4: cabin-crew rest zone by pattern, split into 2·c slots."""
    duty = _duty(ON, OFF, crew_composition=CrewComposition.CABIN_CREW, sleep_count=1,
                 sleep_order=2, cabin_crew_sleep_pattern=pattern)  # fmt: skip
    mid = zone[0] + (zone[1] - zone[0]) / 2
    assert _spans(duty) == [(mid, zone[1])]


def test_cabin_crew_pattern_2_half_of_cruise() -> None:
    """Ref §5.1 step 4, pattern 2: one sleep covering 50 % of cruise; order 1 first half."""
    half = timedelta(hours=CRUISE_H / 2)
    for order, expected in [(1, (CRUISE0, CRUISE0 + half)), (2, (CRUISE0 + half, _at(11, 7)))]:
        duty = _duty(ON, OFF, crew_composition=CrewComposition.CABIN_CREW, sleep_count=2,
                     sleep_order=order, cabin_crew_sleep_pattern=2)  # fmt: skip
        assert _spans(duty) == [expected]


def test_quality_by_sleep_class() -> None:
    """Ref §5.2 table: q_k = 0.70·r_k; a bunk (class 1) restores more than economy (4)."""
    base = {"crew_composition": CrewComposition.FOUR_PILOTS, "sleep_count": 1}
    bunk = rest_windows(_duty(ON, OFF, sleep_class=SleepClass.BUNK, **base))[0]
    economy = rest_windows(_duty(ON, OFF, sleep_class=SleepClass.ECONOMY_SEAT, **base))[0]
    assert bunk.quality == pytest.approx(0.70)
    assert economy.quality == pytest.approx(0.14)


def test_standby_has_no_rest() -> None:
    """Ref §7: a standby row is awake throughout."""
    duty = _duty(ON, OFF, duty_type=DutyType.STANDBY, first_rest=Period(_at(11, 0), _at(11, 2)))
    assert rest_windows(duty) == ()


@pytest.mark.parametrize(
    ("on", "off", "quality"),
    [
        (_at(10, 6), _at(10, 20), 0.9),  # 14 h duty: 6 h break, accommodation
        (_at(10, 6), _at(10, 18), 0.75),  # 12 h duty: 4 h break, rest room
        (_at(10, 6), _at(10, 16, 30), 0.0),  # 2.5 h break < 3 h: no sleep
        (_at(10, 20), _at(11, 8), 0.9),  # 4 h break 00:00-04:00 touches 02:00-04:59
    ],
)
def test_split_duty_break(on: datetime, off: datetime, quality: float) -> None:
    """Ref §7: break centred, max(0, duty - 8 h); q by length and the night window."""
    duty = _duty(on, off, end=LHR, duty_type=DutyType.SPLIT_SHIFT)
    windows = rest_windows(duty)
    length = max(timedelta(0), (off - on) - timedelta(hours=8))
    if length == timedelta(0):
        assert windows == ()
        return
    (w,) = windows
    mid = on + (off - on) / 2
    assert (w.start, w.end, w.kind) == (mid - length / 2, mid + length / 2, "split")
    assert w.quality == quality
    if quality > 0:  # sleep from break start + 30 min to break end - 45 min
        assert w.sleep_start == w.start + timedelta(minutes=30)
        assert w.sleep_end == w.end - timedelta(minutes=45)


def test_split_shift_flag_uses_given_break() -> None:
    """Seed §2.2 col 27 (0 = True) / ref §7: the break is FirstRest when given."""
    brk = Period(_at(10, 11), _at(10, 14))
    duty = _duty(_at(10, 6), _at(10, 18), end=LHR, split_shift=True, first_rest=brk)
    (w,) = rest_windows(duty)
    assert (w.start, w.end, w.quality) == (brk.start, brk.end, 0.75)
