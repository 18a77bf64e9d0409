"""Fatigue at the controls: summaries count only the intervals when the crew member works.

The per-interval scores are the contract's (unchanged, golden baseline); what changes is
every summary of them, through one mask (:mod:`vigil.scoring.controls`). The expected
rest runs below are computed by hand from the roster's times and the stated rule (an
interval is off when it lies wholly inside ``[rest start, rest end + 20 min)``), not
read from Vigil's output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.vgs1_writer import compact_chunk, pack
from vigil.cli import _tables
from vigil.domain import DateFormat
from vigil.fleet.table import duty_table, roster_facts
from vigil.results.compact import IndexedSchedule, unpack
from vigil.results.frames import decode_frames, encode_frame, join_frames
from vigil.roster import parse_request
from vigil.scoring.controls import (
    TOD_INTERVALS,
    WAKE_ALLOWANCE_H,
    duty_summaries,
    mask_from_ranges,
    rest_ranges,
)
from vigil.scoring.rest import rest_windows
from vigil.scoring.service import SCALE_CODES, ScoreReport, ScoreRequest, score
from vigil.web.console.charts import chart_payload

HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference,CrewComposition,SleepCount,SleepClass,FirstRestStartDate,"
    "FirstRestStartTime,FirstRestEndDate,FirstRestEndTime"
)
#: LHR-SIN overnight, 20:00Z-10:30Z (58 intervals). BUNK: a relief pilot of a crew of 3
#: with a bunk rest 03:00-07:00Z; TWO: two pilots, no rest; EARLY: rest 22:00-03:00Z;
#: CABIN: cabin crew whose break the model derives (reference §5.1, pattern 0).
ROSTER = "\r\n".join(
    [
        HEADER,
        "BUNK,01/03/2026,20:00,LHR,02/03/2026,10:30,SIN,LHR,0,3,1,1,02/03/2026,03:00,02/03/2026,07:00",
        "TWO,01/03/2026,20:00,LHR,02/03/2026,10:30,SIN,LHR,0,2,0,1,,,,",
        "EARLY,01/03/2026,20:00,LHR,02/03/2026,10:30,SIN,LHR,0,3,1,1,01/03/2026,22:00,02/03/2026,03:00",
        "CABIN,01/03/2026,20:00,LHR,02/03/2026,10:30,SIN,LHR,0,9,1,1,,,,",
    ]
)
ON = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


def _interval(hour: int, minute: int, day: int = 2) -> int:
    """Index of the interval starting at ``day`` March ``hour:minute`` UTC in the duty."""
    return int((datetime(2026, 3, day, hour, minute, tzinfo=UTC) - ON).total_seconds() // 900)


@pytest.fixture(scope="module")
def report() -> ScoreReport:
    return score(ScoreRequest(ROSTER, risk=True, include_sleep=True, extra_scales=SCALE_CODES))


def _by_name(report: ScoreReport) -> dict[str, dict[str, Any]]:
    body = json.loads(report.to_json())
    return {e["schedule"]: e for e in body["scheduleScores"]}


def _cli_row(report: ScoreReport, name: str) -> dict[str, Any]:
    """``vigil score --per duty``'s row of schedule ``name``'s (only) duty."""
    table = _tables.duty_table(report, parse_request(ROSTER, DateFormat.DMY).columns)
    return table.row(table["schedule"].to_list().index(name), named=True)


def test_the_allowance_is_the_stated_twenty_minutes() -> None:
    # Rosekind et al. 1994 (NASA TM-108839) and EASA GM1 CAT.OP.MPA.210: 20 min recovery
    assert WAKE_ALLOWANCE_H * 60 == pytest.approx(20.0)


def test_the_api_lists_the_rest_intervals(report: ScoreReport) -> None:
    entries = _by_name(report)
    # rest 03:00-07:00Z + 20 min: intervals from 03:00 up to the one ending 07:15 (the
    # 07:15-07:30 interval is partly at work, so it counts)
    first, end = _interval(3, 0), _interval(7, 15)
    assert entries["BUNK"]["duties"][0]["restIntervals"] == [[first, end - first]]
    first, end = _interval(22, 0, day=1), _interval(3, 15)
    assert entries["EARLY"]["duties"][0]["restIntervals"] == [[first, end - first]]
    assert "restIntervals" not in entries["TWO"]["duties"][0]  # no rest: the field is left out


def test_cabin_crew_breaks_are_left_out_too(report: ScoreReport) -> None:
    schedules = parse_request(ROSTER, DateFormat.DMY).schedules
    (duty,) = next(s for s in schedules if s.reference == "CABIN").duties
    (window,) = rest_windows(duty)  # the derived break, as the sleep predictor uses it
    quarter = 900.0
    start = (window.start - ON).total_seconds()
    end = (window.end - ON).total_seconds() + WAKE_ALLOWANCE_H * 3600.0
    first = int(np.ceil(start / quarter))
    last = int(end // quarter)  # intervals [first, last) lie wholly inside
    entry = _by_name(report)["CABIN"]
    assert entry["duties"][0]["restIntervals"] == [[first, last - first]]


def test_a_peak_in_the_bunk_is_not_the_duty_peak(report: ScoreReport) -> None:
    entry = _by_name(report)["BUNK"]
    scores = np.asarray(entry["fatigueScores"])
    duty = entry["duties"][0]
    ((start, n),) = duty["restIntervals"]
    top = int(scores.argmax())
    assert start <= top < start + n  # the scenario: the raw peak is in the bunk rest
    assert scores[top] >= 8.0
    at_work = np.r_[scores[:start], scores[start + n :]]
    row = _cli_row(report, "BUNK")
    assert row["peakKSS"] == pytest.approx(float(at_work.max()))
    assert row["peakKSS"] < 8.0
    assert row["restIntervals"] == n


def test_top_of_descent_is_unchanged_without_rest(report: ScoreReport) -> None:
    entry = _by_name(report)["TWO"]
    scores = np.asarray(entry["fatigueScores"])
    row = _cli_row(report, "TWO")
    assert row["topOfDescentKSS"] == pytest.approx(float(scores[-TOD_INTERVALS:].max()))
    assert row["peakKSS"] == pytest.approx(float(scores.max()))
    assert row["restIntervals"] == 0


def test_fleet_cli_and_api_agree(report: ScoreReport) -> None:
    """The stored-result table (dashboard, exports) and ``vigil score``'s table give the
    figures computed here from the API response alone."""
    parsed = parse_request(ROSTER, DateFormat.DMY)
    schedules = parsed.schedules
    cli = _tables.duty_table(report, parsed.columns)
    stored = unpack(pack([compact_chunk(report.schedules, SCALE_CODES)], SCALE_CODES))
    fleet = duty_table(stored, roster_facts(stored, schedules), "KSS")
    for i, entry in enumerate(_by_name(report).values()):
        scores = np.asarray(entry["fatigueScores"])
        keep = np.ones(scores.size, dtype=bool)
        for start, n in entry["duties"][0].get("restIntervals", []):
            keep[start : start + n] = False
        last = np.zeros(scores.size, dtype=bool)
        last[-TOD_INTERVALS:] = True
        lengths = np.full(scores.size, 15.0)  # 14 h 30: whole intervals
        expected = {
            "peak": scores[keep].max(),
            "tod": scores[keep & last].max(),
            "above": lengths[keep & (scores >= 7.0)].sum(),
            "mean": scores[keep].mean(),
        }
        assert cli["peakKSS"][i] == pytest.approx(expected["peak"])
        assert fleet.peak[i] == pytest.approx(expected["peak"])
        assert cli["topOfDescentKSS"][i] == pytest.approx(expected["tod"])
        assert fleet.tod[i] == pytest.approx(expected["tod"])
        assert cli["minutesAtOrAbove7"][i] == round(expected["above"])
        assert fleet.above_minutes[i] == pytest.approx(expected["above"])
        assert fleet.mean[i] == pytest.approx(expected["mean"], abs=1e-3)
        assert fleet.working_minutes[i] == pytest.approx(keep.sum() * 15.0)


def test_the_console_chart_leaves_the_rest_out(report: ScoreReport) -> None:
    entry = _by_name(report)["BUNK"]
    chart = chart_payload(entry, "KSS")
    scores = np.asarray(entry["fatigueScores"])
    ((start, n),) = entry["duties"][0]["restIntervals"]
    assert chart["duties"][0]["rest"] == [[start, n]]
    assert chart["duties"][0]["peak"] == pytest.approx(
        np.r_[scores[:start], scores[start + n :]].max()
    )


def test_stored_frames_keep_the_rest_runs(report: ScoreReport) -> None:
    from vigil.model import DEFAULT

    blob = join_frames([encode_frame(report.schedules, DEFAULT, SCALE_CODES)])
    _, rows, _ = decode_frames(blob)
    duties = [IndexedSchedule.from_json(r).duties[0] for r in rows]
    assert [d.rest for d in duties] == [r.duties[0].rest for r in report.schedules]
    again = b"".join(unpack(blob).envelope("KSS", model_version="m", errors=()))
    assert again == ScoreReport("KSS", "m", report.schedules, (), risk=True).to_json()


def test_an_older_stored_duty_without_rest_reads_as_all_at_work() -> None:
    old = IndexedSchedule.from_json(["P", 4, [[0, 3600, 0, 4, 0.5]]])
    assert old.duties[0].rest == ()
    assert mask_from_ranges(np.array([4]), [old.duties[0].rest]).all()


@given(st.lists(st.lists(st.booleans(), max_size=12), max_size=6))
def test_rest_ranges_give_back_the_mask(duties: list[list[bool]]) -> None:
    count = np.array([len(d) for d in duties], dtype=np.int64)
    mask = np.array([v for d in duties for v in d], dtype=bool)
    ranges = rest_ranges(mask, count)
    assert np.array_equal(mask_from_ranges(count, ranges), mask)
    for runs, flags in zip(ranges, duties, strict=True):  # runs are maximal and in order
        assert sum(n for _, n in runs) == flags.count(False)
        assert all(a + n < b for (a, n), (b, _) in zip(runs, runs[1:], strict=False))


def test_a_duty_wholly_at_rest_has_no_summary() -> None:
    values = np.array([5.0, 6.0, 7.0, 8.0, 4.0])
    mask = np.array([False, False, True, True, True])
    out = duty_summaries(values, np.array([2, 3]), np.full(5, 900.0), mask, 7.0)
    assert np.isnan(out.peak[0]) and np.isnan(out.mean[0]) and np.isnan(out.tod[0])
    assert out.peak[1] == 8.0 and out.peak_index[1] == 3
    assert out.above_minutes.tolist() == [0.0, 30.0]
    assert out.working_minutes.tolist() == [0.0, 45.0]


def test_risk_counts_the_same_intervals_at_work(report: ScoreReport) -> None:
    # R's exposure (reference §8: own rest and sleep left out) uses this module's mask too,
    # so the 20-min wake-up allowance after rest (Rosekind et al. 1994; EASA GM1
    # CAT.OP.MPA.210: no return to duties before it) is not counted as time at work
    for schedule in report.schedules:
        duty = schedule.duties[0]
        assert duty.drivers is not None
        off = sum(count for _, count in duty.rest)
        at_work = 0.25 * (duty.interval_count - off)  # 15-min intervals, 10:30 on the grid
        assert duty.drivers.components["workingHours"] == pytest.approx(at_work, abs=1e-9)
    bunk = next(s for s in report.schedules if s.reference == "BUNK").duties[0]
    # rest 03:00-07:00 and the allowance's whole interval 07:00-07:15 are not at work
    assert (_interval(3, 0), 17) in bunk.rest
