"""The one response builder: every path gives the same bytes.

ProcessFatigueRisk and ``vigil score`` encode :class:`ScoreReport`; GetResults streams
stored float32 results through :func:`stream_envelope`; the console builds one
schedule's entry. Scores survive the float32 store exactly (``worker/compact.py``), so
for the same roster all three must agree byte for byte.
"""

from __future__ import annotations

import json

import pytest
from golden_cases import README_ROSTER

from reference.vgs1_writer import compact_chunk, pack
from vigil.results.compact import unpack
from vigil.scoring.report import schedule_entry
from vigil.scoring.service import SCALE_CODES, ScoreReport, ScoreRequest, ScoringError, score

ERRORS = ("3|Crew, 7|unknown airport 'XXX' (StartAirport)", "4|Zoë|missing OnDutyDate")


@pytest.fixture(scope="module")
def report() -> ScoreReport:
    return score(ScoreRequest(README_ROSTER, risk=True, extra_scales=SCALE_CODES))


@pytest.mark.parametrize("scale", SCALE_CODES)
def test_stored_results_stream_the_same_bytes_as_the_api(report: ScoreReport, scale: str) -> None:
    blob = pack([compact_chunk(report.schedules, SCALE_CODES)], SCALE_CODES)
    streamed = b"".join(unpack(blob).envelope(scale, model_version="m", errors=ERRORS))
    direct = ScoreReport(scale, "m", report.schedules, ERRORS, risk=True).to_json()
    assert streamed == direct
    body = json.loads(streamed)
    assert body["errors"] == list(ERRORS)
    assert body["scheduleScores"][0]["duties"][1]["intervalCount"] == 60  # README: 14 h 50


def test_console_entry_is_the_api_entry(report: ScoreReport) -> None:
    entry = schedule_entry(report.schedules[0], "KP", risk=True, arrays=False)
    assert entry == json.loads(report.to_json("KP"))["scheduleScores"][0]


def test_a_scale_not_computed_is_refused(report: ScoreReport) -> None:
    narrow = score(ScoreRequest(README_ROSTER, scale="SP"))
    with pytest.raises(ScoringError, match="'KSS' was not computed"):
        narrow.to_json("KSS")
    assert json.loads(report.to_json("SP"))["scale"] == "SP"


@pytest.mark.parametrize("include_sleep", [False, True])
def test_the_streamed_report_is_the_report(report: ScoreReport, include_sleep: bool) -> None:
    # the pieces `vigil score --out FILE.json` writes, against the API's one-piece body
    again = ScoreReport("KP", "m", report.schedules * 200, ERRORS, True, include_sleep, None)
    pieces = list(again.stream_json())
    assert len(pieces) > 1  # several 64 KiB pieces
    assert b"".join(pieces) == again.to_json()
    assert b"".join(report.stream_json("SP")) == report.to_json("SP")
