"""Wire models (contract §3): property names and enum values in any case, valid Unicode.

The names are folded with a per-class table; these tests pin the answers the
contract gives, record by record: each record's names in any case, the first of two
names that differ only in case, unknown names ignored, and a lone surrogate refused in
any text property while any other non-ASCII text passes.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from vigil.web.schemas import ScoringRequestIn, SleepRecordIn

RECORD = {
    "ScheduleName": "P1",
    "SleepStart": "2026-03-01T22:00:00Z",
    "SleepEnd": "2026-03-02T06:00:00Z",
}


def _request(**changes: Any) -> dict[str, Any]:
    """A valid request; ``changes`` replace the property of the same name in any case."""
    base = {"RosterData": "x", "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}
    folded = {name.lower() for name in changes}
    return {k: v for k, v in base.items() if k.lower() not in folded} | changes


def test_record_names_in_any_case_on_every_record() -> None:
    spellings = [
        {"schedulename": "P1", "SLEEPSTART": RECORD["SleepStart"], "sleepEnd": RECORD["SleepEnd"]},
        {"ScheduleName": "P1", "sleepstart": RECORD["SleepStart"], "SleepEnd": RECORD["SleepEnd"]},
        dict(RECORD),
    ]
    parsed = ScoringRequestIn.model_validate(_request(sleepdata=spellings))
    assert [r.model_dump() for r in parsed.SleepData] == [RECORD] * 3


def test_first_of_two_names_differing_in_case_wins_and_unknown_names_are_ignored() -> None:
    record = SleepRecordIn.model_validate(
        {**RECORD, "schedulename": "P2", "Extra": 1, "sleepend": "not used"}
    )
    assert record.model_dump() == RECORD
    request = ScoringRequestIn.model_validate(
        {"rosterdata": "first", "RosterData": "second", **_request(), "Other": []}
    )
    assert request.RosterData == "first"


@pytest.mark.parametrize(
    ("date_format", "scale"), [(" DMY ", "kss"), ("Mdy", " sp"), ("dmy", "Crd")]
)
def test_enum_values_in_any_case(date_format: str, scale: str) -> None:
    request = ScoringRequestIn.model_validate(
        _request(dateformat=date_format, PREFERREDSCALE=scale)
    )
    assert (request.DateFormat, request.PreferredScale) == (
        date_format.strip().lower(),
        scale.strip().upper(),
    )


def test_sleep_records_keep_their_values_verbatim() -> None:
    """Only DateFormat and PreferredScale are folded: a record's text is its own."""
    record = {**RECORD, "ScheduleName": " p1 dmy "}
    assert SleepRecordIn.model_validate(record).ScheduleName == " p1 dmy "


def test_non_ascii_text_passes_and_a_lone_surrogate_is_refused() -> None:
    roster = "Reference,Base\r\nZürich-Ø,ÅLB 🛫"
    assert ScoringRequestIn.model_validate(_request(RosterData=roster)).RosterData == roster
    with pytest.raises(ValidationError) as refused:
        ScoringRequestIn.model_validate(_request(RosterData="P1,\ud800"))
    assert refused.value.errors()[0]["msg"] == (
        "Value error, text is not valid Unicode (lone surrogate)"
    )
    with pytest.raises(ValidationError) as refused:
        ScoringRequestIn.model_validate(_request(SleepData=[{**RECORD, "SleepEnd": "\udfff"}]))
    assert [(e["loc"], e["msg"]) for e in refused.value.errors()] == [
        (
            ("SleepData", 0, "SleepEnd"),
            "Value error, text is not valid Unicode (lone surrogate)",
        )
    ]


def test_record_is_the_dumped_model() -> None:
    spellings = [RECORD, {k.lower(): v for k, v in RECORD.items()}, {**RECORD, "Extra": "x"}]
    for given in spellings:
        record = SleepRecordIn.model_validate(given)
        assert record.record() == record.model_dump() == RECORD
        assert list(record.record()) == list(record.model_dump())  # same key order
