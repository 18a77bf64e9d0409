"""Some schedules of a roster read alone (vigil.roster.subset): the same schedules, the
same row numbers in their errors, and no row of another schedule handed to the parser."""

from __future__ import annotations

from vigil.domain import DateFormat
from vigil.roster import parse_request
from vigil.roster.subset import only_schedules
from vigil.roster.synthetic import generate_airline_roster

HEAD = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference"
)


def test_wanted_schedules_read_as_in_the_whole_roster() -> None:
    text = generate_airline_roster(30, 14, seed=5)
    whole = parse_request(text, DateFormat.DMY)
    wanted = [whole.schedules[3].reference, whole.schedules[17].reference]
    part = parse_request(only_schedules(text, wanted), DateFormat.DMY)
    assert [s.reference for s in part.schedules] == wanted
    assert part.schedules == tuple(s for s in whole.schedules if s.reference in wanted)
    assert len(only_schedules(text, wanted).split("\n")) == len(text.split("\n"))


def test_errors_keep_their_row_numbers_and_other_rows_are_blank() -> None:
    text = "\r\n".join(
        [
            HEAD,
            "P1,01/03/2026,06:00,LHR,01/03/2026,12:00,LHR,LHR,0",
            "P2,01/03/2026,06:00,XYZ,01/03/2026,09:00,LHR,LHR,0",
            '"P1",02/03/2026,06:00,QQQ,02/03/2026,09:00,LHR,LHR,0',
            "P22,01/03/2026,06:00,LHR,01/03/2026,09:00,LHR,LHR,0",
        ]
    )
    kept = only_schedules(text, ["P1"])
    assert kept.split("\n")[2:] == ["", kept.split("\n")[3], ""]
    errors = parse_request(kept, DateFormat.DMY).errors
    assert [(e.row, e.reference, e.code) for e in errors] == [(4, "P1", "unknown-airport")]


def test_without_a_header_the_first_column_is_the_reference() -> None:
    row = ",01/03/2026,06:00,LHR,01/03/2026,12:00,LHR,LHR,0"
    text = f"A{row}\nB{row}\n"
    assert only_schedules(text, ["B"]) == "\n" + text.split("\n")[1] + "\n"
