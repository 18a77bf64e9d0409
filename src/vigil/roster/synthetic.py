"""Synthetic, valid RosterData for tests, benchmarks and demos (ours; no real crew data).

:func:`generate_duties` builds a deterministic roster from a seed: each crew member has
a home base in one of several time zones and flies either short-haul days (2 or 4
sectors, out and back, 4-5 days on then 2-3 off) or long-haul trips (out, a 24-48 h
layover, back, then days off; 3-4 pilots or cabin crew with in-flight rest on long
sectors). Every duty is built in UTC first; :func:`render_roster` then writes it with a
TimeReference of 0, 1 or 2 and the matching local wall times, falling back to UTC for
a row whose local wall time would be ambiguous or missing around a DST change. So the
ground truth (UTC instants, interval counts) is known exactly for each row.

Block times are rough great-circle schedules, enough for realistic duty lengths.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from vigil import tz
from vigil.domain import INTERVAL, DateFormat
from vigil.roster import ftl

__all__ = [
    "SyntheticDuty",
    "generate_airline_duties",
    "generate_airline_roster",
    "generate_duties",
    "generate_roster",
    "ftl_duties",
    "render_roster",
]

#: base -> (short-haul destinations with block hours, long-haul destinations with block hours)
_NETWORK: dict[str, tuple[dict[str, float], dict[str, float]]] = {
    "LHR": (
        {"CDG": 1.25, "AMS": 1.25, "FRA": 1.5, "MAD": 2.3, "DUB": 1.2, "EDI": 1.3},
        {"JFK": 8.0, "DXB": 7.0, "SIN": 13.0, "LAX": 11.0, "JNB": 11.0},
    ),
    "JFK": (
        {"BOS": 1.3, "ORD": 2.5, "ATL": 2.3, "MIA": 3.0, "YYZ": 1.7},
        {"LHR": 7.0, "CDG": 7.5, "NRT": 14.0, "GRU": 10.0},
    ),
    "SYD": (
        {"MEL": 1.5, "BNE": 1.5, "ADL": 2.0, "PER": 5.0, "AKL": 3.0},
        {"LAX": 14.0, "SIN": 8.0, "NRT": 10.0},
    ),
    "DXB": (
        {"DOH": 1.0, "BAH": 1.2, "MCT": 1.2, "KWI": 2.0},
        {"LHR": 8.0, "SIN": 7.5, "JNB": 8.0},
    ),
    "KLAX": (
        {"SFO": 1.5, "PHX": 1.5, "SEA": 2.8, "DEN": 2.5, "LAS": 1.2},
        {"NRT": 12.0, "SYD": 15.0, "LHR": 11.0},
    ),
    "EGCC": (  # ICAO code for Manchester: rosters mix code kinds (seed §2.2 col 4)
        {"DUB": 1.0, "AMS": 1.2, "PMI": 2.5, "FAO": 3.0},
        {"JFK": 8.5, "DXB": 7.0},
    ),
}
_BASES = tuple(_NETWORK)


@dataclass(frozen=True, slots=True)
class SyntheticDuty:
    """One generated duty with its ground truth in UTC."""

    reference: str
    on_duty: datetime
    off_duty: datetime
    start: str
    end: str
    home: str
    sectors: int = 1
    crew_composition: int = 2
    sleep_count: int = 0
    sleep_order: int = 1
    sleep_class: int = 1
    first_rest: tuple[datetime, datetime] | None = None
    time_reference: int = 0
    fleet: str = ""
    rank: str = ""
    partial_augment: tuple[datetime, datetime] | None = None
    second_rest: tuple[datetime, datetime] | None = None
    split_shift: int = 1  #: as written: 0 means True (seed §2.2 col 27)
    duty_type: int = 1  #: seed §2.2 col 28 (3 = standby)
    workload: str = ""  #: as written; blank means 0
    crew_prep_minutes: int = 60
    commute_minutes: int = 60
    cabin_crew_sleep_pattern: int = 0
    block_hours: float = 0.0  #: flight (block) time of the duty's sectors [h]; not written

    @property
    def interval_count(self) -> int:
        """``ceil((off - on) / 15 min)`` (contract §4)."""
        return -(-(self.off_duty - self.on_duty) // INTERVAL)


def _at(day: date, minutes: int, zone_name: str) -> datetime:
    """Local ``day`` + ``minutes`` after midnight in ``zone_name`` → UTC (gaps moved on 1 h)."""
    wall = datetime(day.year, day.month, day.day) + timedelta(minutes=minutes)
    found = tz.local_to_utc(wall, zone_name)
    if found is None:
        found = tz.local_to_utc(wall + timedelta(hours=1), zone_name)
    assert found is not None
    return found


def _zone(code: str) -> str:
    found = tz.airport(code)
    assert found is not None, code
    return found.tz


def _round5(t: datetime) -> datetime:
    return t.replace(minute=t.minute - t.minute % 5, second=0, microsecond=0)


def _short_haul(
    rng: random.Random, ref: str, base: str, first: date, n_days: int
) -> list[SyntheticDuty]:
    short = _NETWORK[base][0]
    zone = _zone(base)
    duties: list[SyntheticDuty] = []
    day, last_off = 0, datetime(1970, 1, 1, tzinfo=UTC)
    fleet = rng.choice(("A320", "B737", "E190"))
    rank = rng.choice(("CPT", "FO", "CC"))
    while day < n_days:
        for _ in range(rng.choice((4, 5))):
            if day >= n_days:
                break
            report = _at(first + timedelta(days=day), rng.randrange(300, 840, 5), zone)
            report = max(report, last_off + timedelta(hours=11))
            legs = rng.choice((2, 2, 4))
            block = sum(short[rng.choice(tuple(short))] for _ in range(legs // 2)) * 2
            length = timedelta(hours=block + 1.0 + 0.75 * (legs - 1) + 0.5)
            off = _round5(report + length)
            duties.append(
                SyntheticDuty(
                    ref, report, off, base, base, base, sectors=legs, fleet=fleet, rank=rank
                )
            )
            last_off = off
            day += 1
        day += rng.choice((2, 3))
    return duties


def _long_haul(
    rng: random.Random, ref: str, base: str, first: date, n_days: int
) -> list[SyntheticDuty]:
    long = _NETWORK[base][1]
    zone = _zone(base)
    cabin = rng.random() < 0.3
    duties: list[SyntheticDuty] = []
    day = rng.randrange(0, 3)
    fleet = rng.choice(("B777", "B787", "A350"))
    rank = "CC" if cabin else rng.choice(("CPT", "FO", "SO"))
    while day < n_days:
        dest = rng.choice(tuple(long))
        block = long[dest]
        out_on = _at(first + timedelta(days=day), rng.randrange(480, 1320, 5), zone)
        out = _long_duty(rng, ref, base, dest, base, out_on, block, cabin)
        back_on = _round5(out.off_duty + timedelta(hours=rng.randrange(24, 49)))
        back = _long_duty(rng, ref, dest, base, base, back_on, block, cabin)
        duties += [replace(out, fleet=fleet, rank=rank), replace(back, fleet=fleet, rank=rank)]
        day = (back.off_duty.date() - first).days + rng.choice((3, 4))
    return [d for d in duties if (d.on_duty.date() - first).days < n_days + 2]


def _long_duty(
    rng: random.Random,
    ref: str,
    start: str,
    end: str,
    home: str,
    on: datetime,
    block: float,
    cabin: bool,
) -> SyntheticDuty:
    off = _round5(on + timedelta(hours=block + 1.5))
    if block < 9:
        return SyntheticDuty(ref, on, off, start, end, home, crew_composition=9 if cabin else 2)
    crew = 9 if cabin else rng.choice((3, 4))
    order = rng.randint(1, 2)
    rest = None
    if rng.random() < 0.5:  # rest given explicitly, in the middle of the cruise
        cruise_start = on + timedelta(hours=2)
        rest_start = _round5(cruise_start + timedelta(hours=(order - 1) * (block - 2) / 2))
        rest = (rest_start, rest_start + timedelta(hours=2))
    return SyntheticDuty(
        ref,
        on,
        off,
        start,
        end,
        home,
        crew_composition=crew,
        sleep_count=1,
        sleep_order=order,
        sleep_class=rng.choice((1, 1, 2)),
        first_rest=rest,
    )


def generate_duties(
    n_crew: int, n_days: int, seed: int, *, first_day: date = date(2026, 3, 1)
) -> list[SyntheticDuty]:
    """A valid roster as ground-truth duties, grouped by crew member, in time order.

    Parameters
    ----------
    n_crew : int
        Crew members (schedules).
    n_days : int
        Days rostered from ``first_day``.
    seed : int
        Seed of the pseudo-random generator; equal seeds give equal rosters.
    first_day : date
        First rostered day (default 1 March 2026, so March and later rosters cross the
        European and North American DST changes).
    """
    rng = random.Random(seed)
    duties: list[SyntheticDuty] = []
    for i in range(n_crew):
        ref = f"Crew, {i:05d}" if i % 97 == 13 else f"C{i:05d}"  # a few need quoting
        base = _BASES[rng.randrange(len(_BASES))]
        make = _long_haul if rng.random() < 0.25 else _short_haul
        for duty in make(rng, ref, base, first_day, n_days):
            duties.append(replace(duty, time_reference=rng.choice((0, 1, 2))))
    return duties


def _fmt_date(day: datetime, date_format: DateFormat, pad: bool) -> str:
    d, m = (f"{day.day:02d}", f"{day.month:02d}") if pad else (str(day.day), str(day.month))
    return f"{d}/{m}/{day.year}" if date_format is DateFormat.DMY else f"{m}/{d}/{day.year}"


def _wall(instant: datetime, zone_name: str) -> datetime | None:
    """Local wall time of ``instant``, or ``None`` if reading it back gives another instant."""
    wall = tz.utc_to_local(instant, zone_name) if zone_name != "UTC" else instant
    wall = wall.replace(tzinfo=None)
    return wall if tz.local_to_utc(wall, zone_name) == instant else None


def render_roster(
    duties: list[SyntheticDuty],
    *,
    date_format: DateFormat | str = DateFormat.DMY,
    header: bool = True,
    full: bool = True,
    pad: bool = True,
    newline: str = "\r\n",
) -> str:
    """Write duties as RosterData CSV (contract §3.1).

    ``full`` writes all 34 columns, else only the 9 required ones (without rest
    periods: use only with duties that have none or do not need them); ``pad`` writes
    dates with leading zeros.
    """
    fmt = DateFormat(str(getattr(date_format, "value", date_format)).lower())
    from vigil.roster.columns import COLUMNS, REQUIRED

    names = [c.name for c in (COLUMNS if full else REQUIRED)]
    out = [",".join(names)] if header else []
    for duty in duties:
        out.append(_render_row(duty, fmt, full, pad))
    return newline.join(out) + newline


_PERIODS = ("partial_augment", "first_rest", "second_rest")


def _render_row(duty: SyntheticDuty, fmt: DateFormat, full: bool, pad: bool) -> str:
    """One duty as a CSV row; the row falls back to UTC if a local time is ambiguous."""
    tr = duty.time_reference
    home_zone = _zone(duty.home)
    zones = {0: ("UTC", "UTC"), 1: (home_zone, home_zone)}.get(
        tr, (_zone(duty.start), _zone(duty.end))
    )
    times = [(duty.on_duty, zones[0]), (duty.off_duty, zones[1])]
    periods = [getattr(duty, name) for name in _PERIODS]
    for period in periods:  # rest and augmentation: the on-duty zone (contract §3.1)
        if period:
            times += [(period[0], zones[0]), (period[1], zones[0])]
    walls = [_wall(t, z) for t, z in times]
    if any(w is None for w in walls):  # DST fold or gap: write this row in UTC
        tr = 0
        walls = [t.replace(tzinfo=None) for t, _ in times]
    texts = [f"{_fmt_date(w, fmt, pad)},{w:%H:%M}" for w in walls if w is not None]
    ref = f'"{duty.reference}"' if "," in duty.reference else duty.reference
    home = "" if tr == 0 and duty.home == duty.start else duty.home
    required = [ref, texts[0], duty.start, texts[1], duty.end]
    if not full:
        return ",".join([*required, home, str(tr)])
    period_cells: list[str] = []
    next_text = 2
    for period in periods:
        if period:
            period_cells += [texts[next_text], texts[next_text + 1]]
            next_text += 2
        else:
            period_cells.append(",,,")  # 4 blank cells
    optional = [
        str(duty.sectors),
        str(duty.crew_composition),
        str(duty.sleep_count),
        str(duty.sleep_order),
        str(duty.sleep_class),
        home,
        str(tr),
        *period_cells,
        str(duty.split_shift),
        str(duty.duty_type),
        duty.fleet,
        duty.rank,
        duty.workload,
        str(duty.crew_prep_minutes),
        str(duty.commute_minutes),
        str(duty.cabin_crew_sleep_pattern),
    ]
    return ",".join([*required, *optional])


def generate_roster(
    n_crew: int, n_days: int, seed: int, *, date_format: DateFormat | str = DateFormat.DMY
) -> str:
    """A realistic valid 34-column RosterData CSV with header (see :func:`generate_duties`)."""
    return render_roster(generate_duties(n_crew, n_days, seed), date_format=date_format)


# ------------------------------------------------------------------ a whole airline's month
#
# The workload: half short-haul pilots flying 1-4 sectors a day from European
# bases, 30 % long-haul pilots on augmented crews (3 or 4 pilots) with their in-flight
# rests given, 20 % cabin crew on long-haul patterns; every one of the 34 columns used.

#: European short-haul bases -> destinations with block hours
_EUROPE: dict[str, dict[str, float]] = {
    "LHR": {"CDG": 1.25, "AMS": 1.25, "FRA": 1.5, "MAD": 2.3, "DUB": 1.2, "EDI": 1.3},
    "EGCC": {"DUB": 1.0, "AMS": 1.2, "PMI": 2.5, "FAO": 3.0, "CDG": 1.3},  # ICAO code
    "FRA": {"LHR": 1.5, "MAD": 2.5, "VIE": 1.3, "CPH": 1.4, "BCN": 2.0, "ATH": 2.8},
    "AMS": {"LHR": 1.25, "BCN": 2.2, "OSL": 1.7, "LIS": 2.8, "PRG": 1.4},
    "MAD": {"LIS": 1.2, "BCN": 1.3, "CDG": 2.0, "FCO": 2.4, "AGP": 1.1},
    "CDG": {"NCE": 1.4, "FCO": 2.0, "MUC": 1.4, "BER": 1.7, "ZRH": 1.2},
    "ZRH": {"VIE": 1.3, "BRU": 1.3, "MXP": 0.9, "HAM": 1.4, "ARN": 2.4},
}
#: long-haul bases -> destinations with block hours (4-14 time zones away)
_LONG: dict[str, dict[str, float]] = {
    "LHR": {"JFK": 8.0, "DXB": 7.0, "SIN": 13.0, "LAX": 11.0, "JNB": 11.0, "HKG": 12.0},
    "FRA": {"ORD": 9.5, "NRT": 12.0, "GRU": 12.0, "BOM": 8.5, "SFO": 11.5},
    "AMS": {"JFK": 8.5, "ICN": 11.0, "EZE": 13.5, "DEL": 8.0},
    "CDG": {"JFK": 8.5, "SIN": 12.5, "PVG": 11.5, "MIA": 10.0},
    "DXB": {"LHR": 8.0, "SYD": 14.0, "JFK": 14.0, "SIN": 7.5},
}
_SHORT_FLEETS = ("A320", "A321", "B737", "E190")
_LONG_FLEETS = ("B777", "B787", "A350", "A380")


@dataclass(slots=True)
class _Crew:
    """Per-crew-member context while a month is generated."""

    rng: random.Random
    ref: str
    base: str
    first: date
    n_days: int
    fleet: str
    rank: str


def _short_haul_month(crew: _Crew, legal: bool = True) -> list[SyntheticDuty]:
    """Days of 1-4 sectors out and back from a European base, 5 on then 2-4 off.

    An odd number of sectors ends the day away (a night stop); the next day starts there.
    Some days are split shifts (DutyType 2, SplitShift 0) or airport standby (DutyType 3,
    no sectors, Workload 0-50). ``legal`` keeps EASA's limits (:mod:`vigil.roster.ftl`):
    a day's sectors are cut to the maximum FDP of its report time, rest follows
    ORO.FTL.235 and a day that would pass a cumulative limit becomes a day off. The random
    draws come in a fixed order (report, kind, then the day's own), so a seed always gives
    the same month.
    """
    rng, zone, network = crew.rng, _zone(crew.base), _EUROPE[crew.base]
    duties: list[SyntheticDuty] = []
    day, where, last_off = rng.randrange(0, 3), crew.base, datetime(1970, 1, 1, tzinfo=UTC)
    while day < crew.n_days:
        for _ in range(5):
            if day >= crew.n_days:
                break
            report = _report(crew, day, zone, last_off, duties, where, legal)
            kind = rng.random()
            if kind < 0.05 and where == crew.base:  # airport standby
                duty = _standby(crew, report, where)
            else:
                duty = _flying_day(crew, report, where, network, kind, legal)
            if legal and not _cumulative_ok([*duties, *_with_way_home(duty, network)]):
                day += 1  # a day off instead: the duty would pass ORO.FTL.210
                continue
            if duty.sectors:
                where = duty.end
            duties.append(duty)
            last_off = duty.off_duty
            day += 1
        if where != crew.base:  # the day off starts with the way home
            duties.append(_home_from(crew, where, last_off, duties, network, legal))
            last_off, where = duties[-1].off_duty, crew.base
        day = max(day, (last_off.date() - crew.first).days + 1) + crew.rng.choice((2, 3, 4))
    return duties


def _report(
    crew: _Crew,
    day: int,
    zone: str,
    last_off: datetime,
    duties: list[SyntheticDuty],
    where: str,
    legal: bool,
) -> datetime:
    """A day's report: 05:00-15:00 local, at least 12 h after the last off duty, and
    (``legal``) after the ORO.FTL.235 rest (the last duty's length, 12 h at base, 10 h
    away)."""
    report = _at(crew.first + timedelta(days=day), crew.rng.randrange(300, 900, 5), zone)
    report = max(report, last_off + timedelta(hours=12))
    if legal and duties:
        before = duties[-1]
        need = max(
            before.off_duty - before.on_duty,
            timedelta(hours=12 if where == crew.base else 10),
        )
        report = max(report, _round5(last_off + need + timedelta(minutes=4)))
    return report


def _standby(crew: _Crew, report: datetime, where: str) -> SyntheticDuty:
    """An airport standby at the base: 4, 6 or 8 h, no sectors, Workload 0-10."""
    off = report + timedelta(hours=crew.rng.choice((4, 6, 8)))
    return SyntheticDuty(
        crew.ref, report, off, where, where, crew.base, sectors=0, duty_type=3,
        workload=str(crew.rng.choice((0, 5, 10))),
    )  # fmt: skip


def _flying_day(
    crew: _Crew, report: datetime, where: str, network: dict[str, float], kind: float,
    legal: bool,
) -> SyntheticDuty:  # fmt: skip
    """1-4 sectors from ``where`` (out from the base, back to it), some split shifts;
    ``legal`` drops sectors until the FDP fits its report time."""
    rng = crew.rng
    legs, end = rng.randint(1, 4), where
    blocks: list[float] = []
    stops: list[str] = []
    for _ in range(legs):
        dest = rng.choice(tuple(network)) if end == crew.base else crew.base
        blocks.append(network.get(dest) or network[end])
        stops.append(dest)
        end = dest
    split = kind < 0.12 and legs >= 2
    workload = rng.choice(("0", "0", "-10", "15", "30"))
    while True:
        block = sum(blocks[:legs])
        hours = block + 1.0 + 0.75 * (legs - 1) + 0.5 + (3.0 if split else 0.0)
        off = _round5(report + timedelta(hours=hours))
        if not legal or legs == 1 or _fdp_ok(report, off, legs, split, where):
            break
        legs -= 1
        split = split and legs >= 2
    return SyntheticDuty(
        crew.ref, report, off, where, stops[legs - 1], crew.base, sectors=legs,
        split_shift=0 if split else 1, duty_type=2 if split else 1,
        workload=workload, block_hours=sum(blocks[:legs]),
    )  # fmt: skip


def _home_from(
    crew: _Crew,
    where: str,
    last_off: datetime,
    duties: list[SyntheticDuty],
    network: dict[str, float],
    legal: bool,
) -> SyntheticDuty:
    """The one-sector way home that starts a day off away from the base."""
    report = last_off + timedelta(hours=12)
    if legal:
        report = max(report, _rested(duties[-1], at_home=False))
    block = network.get(where, 2.0)
    back = _round5(report + timedelta(hours=block + 1.5))
    return SyntheticDuty(
        crew.ref, report, back, where, crew.base, crew.base, workload="0", block_hours=block
    )


def _with_way_home(duty: SyntheticDuty, network: dict[str, float]) -> list[SyntheticDuty]:
    """``duty``, and the flight home after it when it ends away (a night stop), so the
    cumulative limits leave room for it."""
    if duty.end == duty.home or not duty.sectors:
        return [duty]
    report = _rested(duty, at_home=False)
    block = network.get(duty.end, 2.0)
    home = SyntheticDuty(duty.reference, report, report + timedelta(hours=block + 1.5),
                         duty.end, duty.home, duty.home, block_hours=block)  # fmt: skip
    return [duty, home]


def _legal_augmented(duty: SyntheticDuty) -> SyntheticDuty:
    """``duty`` with a class 1 rest facility when its FDP needs one (CS FTL.1.205(c))."""
    check = ftl_duties([duty])[0]
    if check.fdp_hours <= check.limit_hours:
        return duty
    return replace(duty, sleep_class=1)


def _rested(before: SyntheticDuty, *, at_home: bool) -> datetime:
    """Earliest report after ``before`` with ORO.FTL.235's minimum rest: as long as the
    preceding duty, and at least 12 h at home base or 10 h away."""
    floor = timedelta(hours=12 if at_home else 10)
    return before.off_duty + max(before.off_duty - before.on_duty, floor)


def _local_minutes(instant: datetime, code: str) -> int:
    """Minutes after local midnight of ``instant`` at airport ``code``."""
    wall = tz.utc_to_local(instant, _zone(code))
    return wall.hour * 60 + wall.minute


def _fdp_ok(report: datetime, off: datetime, legs: int, split: bool, where: str) -> bool:
    """Within ORO.FTL.205(b)(1) (and CS FTL.1.220 for a split duty)?"""
    duty = ftl.FtlDuty(report, off, _local_minutes(report, where), legs,
                       split_break=timedelta(hours=3) if split else timedelta(0))  # fmt: skip
    return duty.fdp_hours <= duty.limit_hours + 1e-9


def _cumulative_ok(duties: list[SyntheticDuty]) -> bool:
    """The last duty keeps ORO.FTL.210's cumulative duty and block limits."""
    last = duties[-1]
    hour = timedelta(hours=1)
    for days, cap in ((7, 60.0), (14, 110.0), (28, 190.0)):
        start = last.off_duty - timedelta(days=days)
        total = sum(
            (min(d.off_duty, last.off_duty) - max(d.on_duty, start)) / hour
            for d in duties
            if d.off_duty > start
        )
        if total > cap:
            return False
    start = last.off_duty - timedelta(days=28)
    return sum(d.block_hours for d in duties if d.on_duty >= start) <= 100.0


def ftl_duties(duties: list[SyntheticDuty]) -> list[ftl.FtlDuty]:
    """One crew member's duties (time order) as :class:`vigil.roster.ftl.FtlDuty`."""
    return [
        ftl.FtlDuty(
            d.on_duty,
            d.off_duty,
            _local_minutes(d.on_duty, d.start),
            d.sectors,
            crew_composition=d.crew_composition,
            sleep_class=d.sleep_class,
            split_break=timedelta(hours=3) if d.split_shift == 0 else timedelta(0),
            at_home=d.start == d.home,
            block_hours=d.block_hours,
        )  # fmt: skip
        for d in duties
    ]


def _rests(
    rng: random.Random, on: datetime, off: datetime, count: int
) -> list[tuple[datetime, datetime]]:
    """``count`` consecutive in-flight rests in the cruise (1 h after take-off to 1 h
    before landing), split evenly, each ending 15 min before the next starts."""
    cruise_start, cruise_end = on + timedelta(hours=2), off - timedelta(hours=1.5)
    share = (cruise_end - cruise_start) / count
    out = []
    for k in range(count):
        start = _round5(cruise_start + share * k + timedelta(minutes=rng.choice((0, 5, 10))))
        end = _round5(cruise_start + share * (k + 1) - timedelta(minutes=15))
        out.append((start, end))
    return out


def _own_rests(
    on: datetime, off: datetime, count: int, composition: int, order: int, pattern: int
) -> list[tuple[datetime, datetime]]:
    """This crew member's own rest in the cruise (report + 2 h to off - 1.5 h), as
    reference §5.1 places it: the cruise in ``groups·count`` equal slots (3 groups for 3
    pilots, 2 for 4 pilots or cabin crew), slot ``order`` and, for two rests, the same slot
    of the second round; cabin pattern 2 rests one half. Each ends 15 min before the next
    slot starts. Two pilots stay at the controls, so no one rests through the cruise."""
    cruise_start, cruise_end = on + timedelta(hours=2), off - timedelta(hours=1.5)
    groups = 3 if composition == 3 else 2
    if composition == 9 and pattern == 2:
        count, first = 1, 0 if order == 1 else 1
    else:
        first = (order - 1) % groups
    slot = (cruise_end - cruise_start) / (groups * count)
    chosen = [first] + ([first + groups] if count == 2 else [])
    return [
        (
            _round5(cruise_start + slot * i),
            _round5(cruise_start + slot * (i + 1) - timedelta(minutes=15)),
        )
        for i in chosen
    ]


def _long_haul_month(crew: _Crew, cabin: bool, legal: bool = True) -> list[SyntheticDuty]:
    """Trips out and back with a 24-48 h layover, then 3-4 days off.

    Pilots fly in augmented crews of 3 (one rest, sometimes a partial augmentation) or
    4 (two rests on the longest sectors); cabin crew (CrewComposition 9) rest once or
    twice by their CabinCrewSleepPattern. Rests are written in the on-duty zone.
    """
    rng, zone, network = crew.rng, _zone(crew.base), _LONG[crew.base]
    duties: list[SyntheticDuty] = []
    day = rng.randrange(0, 4)
    while day < crew.n_days:
        dest = rng.choice(tuple(network))
        on = _at(crew.first + timedelta(days=day), rng.randrange(480, 1380, 5), zone)
        out = _augmented(crew, crew.base, dest, on, network[dest], cabin)
        back_on = _round5(out.off_duty + timedelta(hours=rng.randrange(24, 49)))
        back = _augmented(crew, dest, crew.base, back_on, network[dest], cabin)
        if legal:  # CS FTL.1.205(c): a better rest facility where the FDP needs it
            out, back = _legal_augmented(out), _legal_augmented(back)
            if not (_cumulative_ok([*duties, out]) and _cumulative_ok([*duties, out, back])):
                break  # ORO.FTL.210: no further trip this month
        duties += [out, back]
        day = (back.off_duty.date() - crew.first).days + rng.choice((3, 4))
    return duties


def _augmented(
    crew: _Crew, start: str, end: str, on: datetime, block: float, cabin: bool
) -> SyntheticDuty:
    rng = crew.rng
    off = _round5(on + timedelta(hours=block + 1.5))
    if cabin:
        pattern = rng.choice((0, 0, 1, 2, 3)) if block >= 12 else 0
        count = 1 if pattern == 2 or block < 12 else rng.choice((1, 2))
        composition, sleep_class = 9, rng.choice((1, 4))
    else:
        pattern, composition = 0, 4 if block >= 11 else 3
        count = 2 if composition == 4 and block >= 12.5 else 1
        sleep_class = rng.choice((1, 1, 2, 3))
    _rests(rng, on, off, count)  # the crew's rest periods; drawn to keep the month's sequence
    augment = None
    if composition == 3 and rng.random() < 0.3:  # the third pilot joins for the cruise
        augment = (_round5(on + timedelta(hours=1)), _round5(off - timedelta(hours=1)))
    order = rng.randint(1, 3 if composition == 9 else composition - 1)
    rests = _own_rests(on, off, count, composition, order, pattern)
    return SyntheticDuty(
        crew.ref, on, off, start, end, crew.base, sectors=1, crew_composition=composition,
        sleep_count=count, sleep_order=order,
        sleep_class=sleep_class, first_rest=rests[0],
        second_rest=rests[1] if count == 2 else None, partial_augment=augment,
        fleet=crew.fleet, rank=crew.rank, workload=rng.choice(("0", "0", "20")), block_hours=block,
        crew_prep_minutes=rng.choice((60, 75, 90)), commute_minutes=rng.choice((45, 60, 90)),
        cabin_crew_sleep_pattern=pattern,
    )  # fmt: skip


def generate_airline_duties(
    n_crew: int,
    n_days: int,
    seed: int,
    *,
    first_day: date = date(2026, 3, 1),
    legal: bool = True,
) -> list[SyntheticDuty]:
    """An airline's month as ground-truth duties (realistic mix).

    Half the crew are short-haul pilots on European bases (1-4 sectors a day), 30 %
    long-haul pilots on augmented crews of 3 or 4 with rests given, 20 % long-haul cabin
    crew. About 13.6 rows per crew member per 28 days; every column is written (see
    :func:`render_roster`), with TimeReference 0, 1 or 2 at random. Deterministic by
    ``seed``; ``first_day`` as :func:`generate_duties`.

    ``legal`` (default) keeps the EASA flight time limitations of :mod:`vigil.roster.ftl`
    (maximum FDP by report time and sectors, augmented limits, minimum rest, cumulative
    duty and block hours); ``legal=False`` gives the earlier month, with short-haul
    duties beyond the 13-h basic maximum, for robustness tests.
    """
    rng = random.Random(seed)
    duties: list[SyntheticDuty] = []
    for i in range(n_crew):
        ref = f"Crew, {i:05d}" if i % 97 == 13 else f"C{i:05d}"  # a few need quoting
        kind = i % 10  # 0-4 short-haul pilots, 5-7 long-haul pilots, 8-9 cabin crew
        if kind < 5:
            base = rng.choice(tuple(_EUROPE))
            fleet, rank = rng.choice(_SHORT_FLEETS), rng.choice(("CPT", "FO"))
        else:
            base = rng.choice(tuple(_LONG))
            fleet = rng.choice(_LONG_FLEETS)
            rank = rng.choice(("CPT", "FO", "SO")) if kind < 8 else rng.choice(("CC", "PUR"))
        crew = _Crew(rng, ref, base, first_day, n_days, fleet, rank)
        if kind < 5:
            made = [replace(d, fleet=fleet, rank=rank) for d in _short_haul_month(crew, legal)]
        else:
            made = _long_haul_month(crew, cabin=kind >= 8, legal=legal)
        prep, commute = rng.choice((45, 60, 75)), rng.choice((30, 60, 90, 120))
        for duty in made:
            if kind < 5:
                duty = replace(duty, crew_prep_minutes=prep, commute_minutes=commute)
            duties.append(replace(duty, time_reference=rng.choice((0, 1, 2))))
    return duties


def generate_airline_roster(
    n_crew: int,
    n_days: int,
    seed: int,
    *,
    date_format: DateFormat | str = DateFormat.DMY,
    legal: bool = True,
) -> str:
    """An airline's month as 34-column RosterData CSV with header (the benchmark roster;
    see :func:`generate_airline_duties`: EASA-legal unless ``legal=False``)."""
    duties = generate_airline_duties(n_crew, n_days, seed, legal=legal)
    return render_roster(duties, date_format=date_format)
