"""Hostile-input strategies and checks shared by the parser fuzz tests and
``benchmarks/bench_fuzz.py`` (which runs the same properties with many more examples).

Every strategy starts from valid data (the synthetic roster generator, or records built
from its duties) and then damages it, so examples reach deep into the parsers instead of
failing on the first cell. The checks assert the parsers' promise (contract §3.1, §3.2,
§5.1; STYLE §3.6): bad data is a result, never an exception, and every error is one
well-formed ``row|schedule|message`` string.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from vigil.domain import DateFormat
from vigil.roster import parse_request
from vigil.roster.synthetic import SyntheticDuty, generate_duties, render_roster
from vigil.scoring.service import ScoreRequest, score

#: cells that have broken parsers elsewhere: huge and odd numbers, impossible dates and
#: times, non-ASCII digits, control characters, formula prefixes, quoting edge cases
HOSTILE_CELLS: tuple[str, ...] = (
    "",
    " ",
    "0",
    "-1",
    "9" * 400,
    "-" + "9" * 40,
    "1e308",
    "1e999",
    "-1e999",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0x10",
    "1_000",
    "٣",
    "²",
    "３",
    "00/00/0000",
    "31/02/2026",
    "29/02/2025",
    "01/13/2026",
    "1/1/1",
    "01/01/0001",
    "31/12/9999",
    "01/01/10000",
    "//",
    "24:00",
    "23:60",
    "-1:30",
    "99999:00",
    "6:5",
    ":",
    "\x00",
    "P1\x00",
    "\u2028",
    "\ufeff",
    "😀",
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)",
    '"',
    '""',
    '"a,b"',
    '"unterminated',
    "ZZZZ",
    "LHR/JFK/",
    "/",
    "KJFK/" * 50,
)

_hostile = st.one_of(
    st.sampled_from(HOSTILE_CELLS),
    st.text(max_size=12),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@st.composite
def roster_texts(draw: st.DrawFn, max_crew: int = 3, max_days: int = 6) -> tuple[str, str]:
    """``(RosterData, date_format)``: a generated valid roster with damaged cells."""
    seed = draw(st.integers(0, 2**31))
    duties = generate_duties(draw(st.integers(1, max_crew)), draw(st.integers(1, max_days)), seed)
    fmt = draw(st.sampled_from(["dmy", "mdy"]))
    full = draw(st.booleans())
    if not full:
        duties = [d for d in duties if d.first_rest is None]
    text = render_roster(
        duties,
        date_format=fmt,
        header=draw(st.booleans()),
        full=full,
        newline=draw(st.sampled_from(["\r\n", "\n"])),
    )
    lines = text.splitlines()
    for _ in range(draw(st.integers(0, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        cells = lines[i].split(",")
        j = draw(st.integers(0, len(cells) - 1))
        cells[j] = draw(_hostile)
        if draw(st.booleans()) and "," not in cells[j] and '"' not in cells[j]:
            lines[i] = ",".join(cells)
        else:  # quote it the RFC 4180 way so the damage reaches the cell parsers
            cells[j] = '"' + cells[j].replace('"', '""') + '"'
            lines[i] = ",".join(cells)
    return "\r\n".join(lines), fmt


_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)

_instants = st.one_of(
    st.datetimes(
        min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ).map(lambda d: d.isoformat().replace("+00:00", "Z")),
    st.sampled_from(
        [
            "2026-03-01T22:00:00Z",
            "2026-03-01T22:00:00+14:00",
            "2026-03-01T22:00:00-12:00",
            "2026-03-01",
            "2026-03-01T22:00:00",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2026-02-30T00:00:00Z",
            "2026-03-01T24:00:00Z",
            "2026-03-01T22:00:00.999999999Z",
            "+002026-03-01T22:00:00Z",
            "2026-W09-7T22:00Z",
            "",
            "\x00",
            "Z",
        ]
    ),
    st.text(max_size=30),
)


def _some_duties(draw: st.DrawFn) -> list[SyntheticDuty]:
    """A few generated duties of one or two crew; never none (a roster needs a duty)."""
    seed = draw(st.integers(0, 2**31))
    return generate_duties(draw(st.integers(1, 2)), draw(st.integers(1, 4)), seed) or (
        generate_duties(1, 7, 0)
    )


def _near(duty: SyntheticDuty, minutes: int) -> str:
    return (duty.on_duty + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


@st.composite
def sleep_requests(draw: st.DrawFn) -> tuple[str, list[Any]]:
    """``(RosterData, SleepData)``: a valid roster and damaged SleepData records.

    Records mix plausible sleep near the duties (so overlap and range checks run), hostile
    date-times, wrong types, unknown and duplicate names, and non-object elements.
    """
    duties = _some_duties(draw)
    roster = render_roster(duties)
    refs = sorted({d.reference for d in duties})
    records: list[Any] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["near", "hostile", "junk"]))
        if kind == "junk":
            records.append(draw(json_values))
            continue
        duty = draw(st.sampled_from(duties))
        name: Any = draw(st.one_of(st.sampled_from(refs), st.sampled_from(HOSTILE_CELLS)))
        if kind == "near":
            start = draw(st.integers(-48 * 60, 48 * 60))
            length = draw(st.integers(-60, 30 * 60))
            begin, end = _near(duty, start), _near(duty, start + length)
        else:
            begin, end = draw(_instants), draw(_instants)
        record: dict[Any, Any] = {"ScheduleName": name, "SleepStart": begin, "SleepEnd": end}
        if draw(st.booleans()):  # property names match in any case; add or drop some
            record = {
                (k.lower() if draw(st.booleans()) else k): v
                for k, v in record.items()
                if draw(st.integers(0, 9)) > 0
            }
            if draw(st.booleans()):
                record[draw(st.sampled_from(["SleepStart", "sleepend", "x"]))] = draw(json_values)
        records.append(record)
    return roster, records


ACTIVITY_TYPES = (
    "DAYOFF",
    "LEAVE",
    "SICK",
    "GROUND",
    "SIMULATOR",
    "TRAINING",
    "POSITIONING",
    "STANDBY",
)
ACTIVITY_HEADER = (
    "Reference,StartDate,StartTime,EndDate,EndTime,Location,ActivityType,TimeReference"
)


def activity_row(
    duty: SyntheticDuty, hours_before: int, length_h: int, kind: str, tref: int
) -> str:
    """One ActivityData row (contract §5.1) in UTC before ``duty``."""
    start = duty.on_duty - timedelta(hours=hours_before)
    end = start + timedelta(hours=length_h)
    return ",".join(
        [
            duty.reference,
            start.strftime("%d/%m/%Y"),
            start.strftime("%H:%M"),
            end.strftime("%d/%m/%Y"),
            end.strftime("%H:%M"),
            duty.start,
            kind,
            str(tref),
        ]
    )


@st.composite
def activity_requests(draw: st.DrawFn) -> tuple[str, str]:
    """``(RosterData, ActivityData)`` with damaged activity cells (dmy dates)."""
    duties = _some_duties(draw)
    roster = render_roster(duties)
    rows = [ACTIVITY_HEADER] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(1, 6))):
        rows.append(
            activity_row(
                draw(st.sampled_from(duties)),
                draw(st.integers(-30, 72)),
                draw(st.integers(-5, 40)),
                draw(st.sampled_from(ACTIVITY_TYPES)),
                draw(st.integers(0, 2)),
            )
        )
    for _ in range(draw(st.integers(0, 5))):
        i = draw(st.integers(0, len(rows) - 1))
        cells = rows[i].split(",")
        cells[draw(st.integers(0, len(cells) - 1))] = draw(_hostile).replace(",", ";")
        rows[i] = ",".join(cells)
    return roster, "\r\n".join(rows)


def check_parse(
    roster: str,
    date_format: str,
    *,
    sleep_data: Sequence[Any] = (),
    activity_text: str = "",
) -> None:
    """Parse; every error must be a well-formed ``row|schedule|message`` string."""
    parsed = parse_request(roster, date_format, sleep_data=sleep_data, activity_text=activity_text)
    failed = {e.reference for e in parsed.errors}
    for line in parsed.error_strings():
        row, _schedule, message = line.split("|", 2)
        assert row and message, line
        assert not any(ord(c) < 32 or c == "\x7f" for c in line), line
    for schedule in parsed.schedules:
        assert schedule.reference not in failed
        for duty in schedule.duties:
            assert timedelta(0) < duty.off_duty - duty.on_duty <= timedelta(hours=30)


def check_score(
    roster: str,
    date_format: str,
    *,
    sleep_data: Sequence[Any] = (),
    activity_text: str = "",
    risk: bool = True,
) -> None:
    """Score end to end (the API's path); the envelope must be valid JSON with finite scores."""
    report = score(
        ScoreRequest(
            roster_text=roster,
            date_format=DateFormat(date_format),
            sleep_data=sleep_data,
            activity_text=activity_text,
            risk=risk,
        )
    )
    envelope = json.loads(report.to_json())
    for schedule in envelope["scheduleScores"]:
        assert all(math.isfinite(x) for x in schedule["fatigueScores"]), schedule["schedule"]
        assert len(schedule["fatigueScores"]) == sum(d["intervalCount"] for d in schedule["duties"])


def best_time(fn: Callable[[], object], repeat: int = 5) -> float:
    """Best CPU time of ``repeat`` calls [s]: the process's, so time spent waiting for a
    core on a shared machine doesn't count, and best-of damps what noise is left."""
    best = math.inf
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def scaling_ratio(make: Callable[[int], Callable[[], object]], small: int, large: int) -> float:
    """CPU time at size ``large`` over that at ``small``, both best of 5 (linear: ≈ large/small)."""
    make(small)()  # warm caches (airport tables, zone look-ups)
    return best_time(make(large)) / best_time(make(small))


# --- inputs for the linear-time checks ------------------------------------------------


def roster_of_rows(n_rows: int, seed: int = 7) -> str:
    """A valid generated roster with about ``n_rows`` data rows (28-day schedules)."""
    n_crew = max(1, n_rows // 12)
    duties = generate_duties(n_crew, 28, seed)[:n_rows]
    return render_roster(duties)


def bad_roster_of_rows(n_rows: int) -> str:
    """``n_rows`` rows that each raise an error (worst case for error collection)."""
    rows = [f"P{i % 50},31/02/2026,06:00,LHR,01/03/2026,14:30,ZZZZ,LHR,0" for i in range(n_rows)]
    return "\r\n".join(rows)


def quoted_roster_of_rows(n_rows: int) -> str:
    """Rows whose every cell is quoted, with escaped quotes in the Reference."""
    row = '"P""{i}","01/03/2026","06:00","LHR","01/03/2026","14:30","JFK","LHR","0"'
    return "\r\n".join(row.replace("{i}", str(i)) for i in range(n_rows))


def sleep_of_records(n: int) -> tuple[str, list[dict[str, str]]]:
    """One schedule with ``n`` back-to-back sleep records (overlap checks see them all)."""
    roster = "P1,01/01/2026,06:00,LHR,01/01/2026,14:30,JFK,LHR,0"
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    records = []
    for i in range(n):
        start = t0 + timedelta(hours=8 * i)
        end = start + timedelta(hours=6)
        records.append(
            {
                "ScheduleName": "P1",
                "SleepStart": start.isoformat().replace("+00:00", "Z"),
                "SleepEnd": end.isoformat().replace("+00:00", "Z"),
            }
        )
    return roster, records


def activities_of_rows(n: int) -> tuple[str, str]:
    """One schedule with ``n`` non-overlapping ground activities before its duty."""
    duties = generate_duties(1, 1, 3)
    roster = render_roster(duties)
    duty = duties[0]
    rows = [activity_row(duty, 10 * (i + 1) + 2, 8, "GROUND", 0) for i in range(n)]
    return roster, "\r\n".join(rows)
