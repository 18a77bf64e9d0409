"""Parsing in the chunk tasks (scale-out): same schedules, same errors, same scores."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vigil.domain import DateFormat
from vigil.results.compact import unpack
from vigil.results.stored_sleep import decode_sleep
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest, score
from vigil.worker.run import InlineScorer, plan_tasks, score_roster
from vigil.worker.split import split_roster

from ._rosters import HEADER, ROSTER


def _messy(quoted: bool = True) -> str:
    """Twelve crew of the realistic mix, with bad rows, blank lines and quoting."""
    lines = generate_airline_roster(12, 14, seed=3).split("\r\n")
    lines.insert(5, "")  # a blank line: row numbers count it
    lines.insert(9, "  ")
    bad = lines[12].split(",")
    bad[1] = "31/02/2026"  # a bad date: that schedule is left out
    lines[12] = ",".join(bad)
    lines.append('"C00003",garbage')  # a short row of an existing schedule, quoted
    lines.append("," * 33)  # a row without a Reference
    lines.append('"unclosed,quote')
    return "\r\n".join(lines)


def _service(roster: str, scale: str, **kw: object):  # type: ignore[no-untyped-def]
    with np.errstate(invalid="ignore"):
        return score(ScoreRequest(roster, DateFormat.DMY, scale=scale, risk=True, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize("quoted", [True, False])
@pytest.mark.parametrize("chunk", [1, 5, 100])
def test_split_parsing_equals_the_service(chunk: int, quoted: bool) -> None:
    roster = _messy(quoted)
    request = ScoreRequest(roster, DateFormat.DMY, risk=True)
    plan = plan_tasks(request, chunk)
    assert len(plan.tasks) == -(-12 // chunk) and all(t.roster_text for t in plan.tasks)
    done: list[tuple[int, int]] = []
    scored = score_roster(
        request, chunk_size=chunk, local=InlineScorer(), progress=lambda d, t: done.append((d, t))
    )
    want = _service(roster, "KSS", include_sleep=True)
    assert scored.errors == list(want.errors) and len(want.errors) >= 4
    assert done[0] == (0, 12) and done[-1] == (12, 12)
    stored = unpack(scored.scores)
    for scale in SCALE_CODES:
        got = b"".join(
            stored.envelope(scale, model_version=scored.model_version, errors=scored.errors)
        )
        assert json.loads(got) == _service(roster, scale).to_envelope()
    sleep = decode_sleep(scored.sleep or b"")
    assert list(sleep) == [r.reference for r in want.schedules]


def test_parts_keep_row_numbers_and_the_header() -> None:
    roster = "\ufeff" + ROSTER + "\r\n\r\np1,05/03/2026,06:00,LHR,05/03/2026,14:30,LHR,LHR,0"
    split = split_roster(roster, "dmy", 2)
    assert split is not None and split.header_row == 1 and split.counts == [2, 1]
    first, second = (p.split("\n") for p in split.parts)
    assert first[0].rstrip("\r") == HEADER and second[0].rstrip("\r") == HEADER
    assert first[1].startswith("P1,") and first[6].startswith("p1,")  # P1 and p1: one part
    assert second[4].startswith("P3,") and not second[1].strip()
    no_header = split_roster(ROSTER.split("\r\n", 1)[1], "dmy", 1)
    assert no_header is not None and no_header.header_row == 0 and no_header.counts == [1, 1, 1]


@pytest.mark.parametrize(
    ("roster", "whole"),
    [
        ("", True),
        ("\r\n  \r\n", True),
        (HEADER, True),
        ("Reference,Nonsense\r\nP1,1", True),  # header error: nothing else is read
        ("Foo,Bar\r\nP1,x", False),  # two short data rows, each its own part
    ],
)
def test_unusual_rosters_same_errors(roster: str, whole: bool) -> None:
    assert (split_roster(roster, "dmy", 1) is None) is whole
    request = ScoreRequest(roster, DateFormat.DMY, risk=True)
    assert len(plan_tasks(request, 1).tasks) == (1 if whole else 2)
    scored = score_roster(request, chunk_size=1, local=InlineScorer())
    assert scored.errors == list(_service(roster, "KSS").errors)


def test_sleep_data_rosters_are_parsed_by_the_worker() -> None:
    sleep = [{"ScheduleName": "P9", "SleepStart": "2026-03-01T22:00:00Z", "SleepEnd": "x"}]
    request = ScoreRequest(ROSTER, DateFormat.DMY, risk=True, sleep_data=sleep)
    plan = plan_tasks(request, 1)
    assert [len(t.schedules) for t in plan.tasks] == [1, 1, 1] and plan.errors
    scored = score_roster(request, chunk_size=1, local=InlineScorer())
    assert scored.errors == list(_service(ROSTER, "KSS", sleep_data=sleep).errors)


def test_a_roster_without_any_valid_schedule_still_reads_back() -> None:
    sleep = [{"ScheduleName": "P1", "SleepStart": "x", "SleepEnd": "y"}]
    bad = ROSTER.replace("02/03/2026,06:00", "31/02/2026,06:00")
    for request in (
        ScoreRequest("just,garbage", DateFormat.DMY, risk=True),
        ScoreRequest("just,garbage", DateFormat.DMY, risk=True, sleep_data=sleep),
        ScoreRequest(
            bad.split("\r\n")[0] + "\r\n" + bad.split("\r\n")[1], DateFormat.DMY, sleep_data=sleep
        ),
    ):
        scored = score_roster(request, chunk_size=1, local=InlineScorer())
        assert scored.errors and scored.schedule_count == 0
        body = b"".join(
            unpack(scored.scores).envelope("KSS", model_version="m", errors=scored.errors)
        )
        assert json.loads(body)["scheduleScores"] == []
