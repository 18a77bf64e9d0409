"""RosterData rules of contract §3.1 and §8, one test per rule or failure mode.

Times in expected values are derived by hand from the IANA rules: Europe/London is
UTC+0 in winter and UTC+1 from 29 Mar 2026 01:00Z to 25 Oct 2026 01:00Z;
America/New_York is UTC-5 in winter and UTC-4 from 8 Mar 2026 07:00Z to
1 Nov 2026 06:00Z (tzdata 2026, EU and US DST rules).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vigil.domain import CrewComposition, DutyType, SleepClass, TimeReference
from vigil.roster import parse_request, parse_roster, read_roster

from .helpers import HEADER_9, HEADER_34, row9, row34, triples


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def only_duty(text: str, date_format: str = "dmy"):
    parsed = parse_request(text, date_format)
    assert parsed.errors == ()
    (schedule,) = parsed.schedules
    (duty,) = schedule.duties
    return duty


# --------------------------------------------------------------------------- CSV shape


def test_crlf_and_lf_rows_give_the_same_duties() -> None:
    crlf = parse_roster(
        f"{HEADER_9}\r\n{row9()}\r\n{row9(OnDutyDate='02/03/2026', OffDutyDate='02/03/2026')}\r\n"
    )
    lf = parse_roster(
        f"{HEADER_9}\n{row9()}\n{row9(OnDutyDate='02/03/2026', OffDutyDate='02/03/2026')}"
    )
    assert crlf.errors == lf.errors == ()
    assert crlf.schedules == lf.schedules
    assert len(crlf.schedules[0].duties) == 2


def test_blank_rows_are_ignored_but_counted_in_row_numbers() -> None:
    text = f"\r\n{HEADER_9}\r\n\r\n   \r\n{row9(StartAirport='XYZ')}\r\n"
    # line 1 blank, 2 header, 3 and 4 blank, 5 the row
    assert triples(text) == [("5", "P1", "Unknown airport code 'XYZ' in StartAirport")]
    assert parse_roster(text).rows == 1


@pytest.mark.parametrize(
    ("column", "code"),
    [
        ("StartAirport", "\u017ffo"),  # long s: str.upper() gives SFO
        ("EndAirport", "\u0131st"),  # dotless i: IST
        ("StartAirport", "\ufb02l"),  # fl ligature: FLL
        ("HomeBase", "LHR/\uff2a\uff26\uff2b"),  # full-width JFK as a second home base
    ],
)
def test_look_alike_airport_codes_are_row_errors(column: str, code: str) -> None:
    """Only ASCII letters and digits name an airport: Unicode case mapping must
    not turn look-alikes into real codes that the feedback would show differently."""
    errors = triples(f"{HEADER_9}\n{row9(**{column: code})}")
    bad = code.split("/")[-1]
    assert errors == [("2", "P1", f"Unknown airport code '{bad}' in {column}")]


def test_quoted_reference_may_hold_a_comma_and_doubled_quotes() -> None:
    row = '"Smith, J ""Jo""",01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0'
    parsed = parse_roster(f"{HEADER_9}\r\n{row}\r\n")
    assert parsed.errors == ()
    assert parsed.schedules[0].reference == 'Smith, J "Jo"'


def test_unclosed_quote_is_a_row_error_without_schedule() -> None:
    bad = '"P1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0'
    text = f"{HEADER_9}\r\n{bad}\r\n{row9(Reference='P2')}"
    assert triples(text) == [
        (
            "2",
            "",
            "Row cannot be read as CSV (a quoted field is not closed); a field holding a comma "
            'or quote must be wrapped in double quotes, with quotes inside it doubled ("")',
        )
    ]
    assert [s.reference for s in parse_roster(text).schedules] == ["P2"]


def test_text_after_closing_quote_is_a_row_error() -> None:
    text = f'{HEADER_9}\r\n"P1"x,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0'
    assert [t[2].split(";")[0] for t in triples(text)] == [
        "Row cannot be read as CSV (text follows a closing quote)"
    ]


def test_whitespace_around_values_is_trimmed() -> None:
    text = " P1 , 1/3/2026 ,  6:00 , lhr ,01/03/2026, 14:30 ,JFK , ,  0 "
    duty = only_duty(text)
    assert (duty.reference, duty.start_airport.code) == ("P1", "LHR")
    assert duty.on_duty == utc(2026, 3, 1, 6, 0)


def test_byte_order_mark_before_the_header_is_ignored() -> None:
    assert parse_roster(f"\ufeff{HEADER_9}\r\n{row9()}").errors == ()


# ------------------------------------------------------------------------------ header


def test_header_in_any_case_and_order_with_a_subset_of_columns() -> None:
    header = (
        "TIMEREFERENCE,homebase,Reference,EndAirport,OffDutyTime,OffDutyDate,StartAirport,"
        "OnDutyTime,OnDutyDate,Sectors"
    )
    duty = only_duty(f"{header}\r\n0,LHR,P1,JFK,14:30,01/03/2026,LHR,06:00,01/03/2026,3")
    assert (duty.sectors, duty.crew_composition) == (3, CrewComposition.TWO_PILOTS)
    assert duty.off_duty == utc(2026, 3, 1, 14, 30)


def test_header_with_an_unknown_column_is_a_row_1_error() -> None:
    assert triples(f"{HEADER_9},Foo\r\n{row9()},x") == [("1", "", "Unknown column 'Foo'")]


def test_header_missing_a_required_column() -> None:
    header = HEADER_9.replace(",HomeBase", "")
    assert triples(f"{header}\r\nP1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,0") == [
        ("1", "", "The header lacks the required column 'HomeBase'")
    ]


def test_header_naming_a_column_twice() -> None:
    assert triples(f"{HEADER_9},sectors,Sectors\r\n{row9()},1,1") == [
        ("1", "", "Column 'Sectors' appears more than once in the header")
    ]


def test_header_errors_are_reported_again_after_a_clean_header_was_read() -> None:
    # the header cache keeps clean headers only; errors are on the header's own row
    for _ in range(2):
        assert parse_roster(f"{HEADER_9}\r\n{row9()}").errors == ()
        assert triples(f"\r\n{HEADER_9},Foo\r\n{row9()},x") == [("2", "", "Unknown column 'Foo'")]


def test_row_with_other_count_than_the_header() -> None:
    assert triples(f"{HEADER_9}\r\n{row9()},1") == [
        ("2", "P1", "Row has 10 columns; the header names 9")
    ]


def test_without_header_9_and_34_columns_are_accepted() -> None:
    parsed = parse_roster(
        f"{row9()}\r\n{row34(OnDutyDate='02/03/2026', OffDutyDate='02/03/2026', Sectors='2')}"
    )
    assert parsed.errors == ()
    assert [d.sectors for d in parsed.schedules[0].duties] == [1, 2]


@pytest.mark.parametrize("count", [8, 10, 33, 35])
def test_without_header_other_column_counts_are_row_errors(count: int) -> None:
    cells = row34().split(",")
    row = ",".join((cells + [""] * 2)[:count])
    assert triples(row) == [
        (
            "1",
            "P1",
            f"Row has {count} columns; a row without a header needs the 9 required columns "
            "or all 34",
        )
    ]


def test_first_row_that_is_not_all_names_and_lacks_reference_is_data() -> None:
    assert triples("Foo,Bar") == [
        (
            "1",
            "Foo",
            "Row has 2 columns; a row without a header needs the 9 required columns or all 34",
        )
    ]


def test_34_column_header_gives_all_columns() -> None:
    text = f"{HEADER_34}\r\n{row34(Fleet='B777', Rank='CPT', Workload='10', CrewPrepTime='90')}"
    duty = only_duty(text)
    assert (duty.fleet, duty.rank, duty.workload, duty.crew_prep_minutes) == (
        "B777",
        "CPT",
        10.0,
        90,
    )


# ---------------------------------------------------------------------- dates and times


def test_dmy_and_mdy_with_optional_leading_zeros() -> None:
    dmy = only_duty(row9(OnDutyDate="2/3/2026", OnDutyTime="6:05", OffDutyDate="02/03/2026"))
    mdy = only_duty(
        row9(OnDutyDate="3/2/2026", OnDutyTime="06:05", OffDutyDate="03/02/2026"), "MDY"
    )
    assert dmy.on_duty == mdy.on_duty == utc(2026, 3, 2, 6, 5)


@pytest.mark.parametrize(
    "value", ["31/02/2026", "2026-03-01", "1/3/26", "01/13/2026", "01/03/2026x", "١/3/2026"]
)
def test_invalid_dates(value: str) -> None:
    assert triples(row9(OnDutyDate=value)) == [
        ("1", "P1", f"OnDutyDate '{value}' is not a valid date; expected DD/MM/YYYY")
    ]


def test_mdy_error_names_the_mdy_pattern() -> None:
    assert triples(row9(OffDutyDate="13/01/2026"), "mdy") == [
        ("1", "P1", "OffDutyDate '13/01/2026' is not a valid date; expected MM/DD/YYYY")
    ]


@pytest.mark.parametrize("value", ["01/01/1899", "31/12/2101"])
def test_dates_outside_1900_2100_are_errors(value: str) -> None:
    assert triples(row9(OnDutyDate=value)) == [
        ("1", "P1", f"OnDutyDate '{value}' is outside the years 1900-2100")
    ]


def test_dates_at_the_year_limits_are_read() -> None:
    assert triples(row9(OnDutyDate="01/01/1900", OffDutyDate="01/01/1900")) == []
    assert triples(row9(OnDutyDate="31/12/2100", OffDutyDate="31/12/2100")) == []


@pytest.mark.parametrize("value", ["24:00", "12:60", "6:0", "0600", "06.00", "-1:00", "06:00:00"])
def test_invalid_times(value: str) -> None:
    assert triples(row9(OffDutyTime=value)) == [
        (
            "1",
            "P1",
            f"OffDutyTime '{value}' is not a valid time; expected H:MM or HH:MM, 00:00-23:59",
        )
    ]


def test_blank_required_cells_each_give_an_error() -> None:
    assert triples(row9(OnDutyTime="", EndAirport="", TimeReference="")) == [
        ("1", "P1", "OnDutyTime is blank; it is required"),
        ("1", "P1", "EndAirport is blank; it is required"),
        ("1", "P1", "TimeReference is blank; it is required"),
    ]


def test_blank_reference_is_an_error_without_schedule() -> None:
    assert triples(row9(Reference="")) == [("1", "", "Reference is blank; it is required")]


def test_reference_with_a_vertical_bar_is_shown_with_a_slash() -> None:
    assert triples(row9(Reference="P|1")) == [
        (
            "1",
            "P/1",
            "Reference 'P/1' contains a vertical bar, which a Reference cannot hold "
            "(it separates the parts of an error)",
        )
    ]


# ---------------------------------------------------------------------------- airports


def test_airport_codes_icao_iata_and_mixed_case() -> None:
    duty = only_duty(row9(StartAirport="egll", EndAirport="KJFK", HomeBase="lhr"))
    assert (duty.start_airport.tz, duty.end_airport.tz) == ("Europe/London", "America/New_York")
    assert duty.start_airport.code == "EGLL"


def test_faa_lid_with_a_digit() -> None:
    # 00C: Animas Air Park, Durango CO, an FAA LID with no IATA or ICAO code (airportsdata)
    duty = only_duty(row9(StartAirport="00C", EndAirport="00C", HomeBase="00C", TimeReference="2"))
    assert duty.start_airport.tz == "America/Denver"
    assert duty.on_duty == utc(2026, 3, 1, 13, 0)  # 06:00 MST (UTC-7)


def test_iata_wins_over_a_lid_with_the_same_letters() -> None:
    # AAA: IATA Anaa (French Polynesia, UTC-10); LID AAA is Logan County, Illinois.
    duty = only_duty(row9(StartAirport="AAA", EndAirport="AAA", HomeBase="AAA", TimeReference="2"))
    assert duty.start_airport.tz == "Pacific/Tahiti"
    assert duty.on_duty == utc(2026, 3, 1, 16, 0)


def test_unknown_airport_codes_in_each_column() -> None:
    assert triples(row9(StartAirport="XYZ", EndAirport="ABCDE", HomeBase="LHR/QQQQ")) == [
        ("1", "P1", "Unknown airport code 'XYZ' in StartAirport"),
        ("1", "P1", "Unknown airport code 'ABCDE' in EndAirport"),
        ("1", "P1", "Unknown airport code 'QQQQ' in HomeBase"),
    ]


def test_home_base_blank_means_the_start_airport() -> None:
    duty = only_duty(row9(HomeBase="", StartAirport="JFK", EndAirport="LHR", TimeReference="1"))
    assert [a.code for a in duty.home_base] == ["JFK"]
    assert duty.on_duty == utc(2026, 3, 1, 11, 0)  # 06:00 EST = 11:00Z


def test_several_home_base_codes_the_first_sets_the_zone() -> None:
    duty = only_duty(row9(HomeBase="KJFK/EGLL", TimeReference="1"))
    assert [a.code for a in duty.home_base] == ["KJFK", "EGLL"]
    assert duty.home.tz == "America/New_York"
    assert duty.on_duty == utc(2026, 3, 1, 11, 0)


# ------------------------------------------------------------------------ TimeReference


def test_time_reference_0_is_utc() -> None:
    duty = only_duty(row9(OnDutyDate="01/07/2026", OffDutyDate="01/07/2026"))
    assert (duty.on_duty, duty.off_duty) == (utc(2026, 7, 1, 6, 0), utc(2026, 7, 1, 14, 30))
    assert duty.time_reference is TimeReference.UTC


def test_time_reference_1_is_home_base_for_all_times() -> None:
    text = row34(
        OnDutyDate="01/07/2026", OffDutyDate="01/07/2026", HomeBase="JFK", TimeReference="1",
        OffDutyTime="20:00", CrewComposition="3", SleepCount="1",
        FirstRestStartDate="01/07/2026", FirstRestStartTime="09:00",
        FirstRestEndDate="01/07/2026", FirstRestEndTime="11:00",
    )  # fmt: skip
    duty = only_duty(text)
    # New York summer time is UTC-4
    assert (duty.on_duty, duty.off_duty) == (utc(2026, 7, 1, 10, 0), utc(2026, 7, 2, 0, 0))
    assert duty.first_rest is not None
    assert (duty.first_rest.start, duty.first_rest.end) == (
        utc(2026, 7, 1, 13),
        utc(2026, 7, 1, 15),
    )


def test_time_reference_2_on_duty_at_start_off_duty_at_end_rest_at_start() -> None:
    text = row34(
        OnDutyDate="01/07/2026", OnDutyTime="10:00", OffDutyDate="01/07/2026",
        OffDutyTime="13:00", TimeReference="2", CrewComposition="4", SleepCount="1",
        FirstRestStartDate="01/07/2026", FirstRestStartTime="12:00",
        FirstRestEndDate="01/07/2026", FirstRestEndTime="14:00",
        OnPartialAugmentDate="01/07/2026", OnPartialAugmentTime="11:00",
        OffPartialAugmentDate="01/07/2026", OffPartialAugmentTime="16:00",
    )  # fmt: skip
    duty = only_duty(text)
    # LHR 10:00 BST = 09:00Z; JFK 13:00 EDT = 17:00Z; rest and augmentation in London time
    assert (duty.on_duty, duty.off_duty) == (utc(2026, 7, 1, 9), utc(2026, 7, 1, 17))
    assert duty.first_rest is not None and duty.partial_augment is not None
    assert (duty.first_rest.start, duty.first_rest.end) == (
        utc(2026, 7, 1, 11),
        utc(2026, 7, 1, 13),
    )
    assert duty.partial_augment.start == utc(2026, 7, 1, 10)


def test_time_reference_outside_0_to_2() -> None:
    assert triples(row9(TimeReference="3")) == [
        ("1", "P1", "TimeReference 3 is not allowed; use 0 to 2")
    ]


# -------------------------------------------------------------------- daylight saving


def test_london_spring_forward_gap_is_an_error() -> None:
    text = row9(
        OnDutyDate="29/03/2026", OnDutyTime="01:30", OffDutyDate="29/03/2026", TimeReference="2"
    )
    assert triples(text) == [
        (
            "1",
            "P1",
            "On-duty 29/03/2026 01:30 does not exist in Europe/London: the clocks go forward "
            "then (daylight saving)",
        )
    ]


def test_london_fall_back_takes_the_earlier_instant() -> None:
    duty = only_duty(
        row9(
            OnDutyDate="25/10/2026", OnDutyTime="01:30", OffDutyDate="25/10/2026", TimeReference="1"
        )
    )
    assert duty.on_duty == utc(2026, 10, 25, 0, 30)  # 01:30 BST, not 01:30 GMT


def test_new_york_spring_forward_gap_is_an_error() -> None:
    text = row9(
        StartAirport="JFK", EndAirport="JFK", HomeBase="JFK", TimeReference="1",
        OnDutyDate="07/03/2026", OnDutyTime="22:00", OffDutyDate="08/03/2026", OffDutyTime="02:30",
    )  # fmt: skip
    assert triples(text) == [
        (
            "1",
            "P1",
            "Off-duty 08/03/2026 02:30 does not exist in America/New_York: the clocks go "
            "forward then (daylight saving)",
        )
    ]


def test_new_york_fall_back_takes_the_earlier_instant() -> None:
    text = row9(
        StartAirport="JFK", EndAirport="JFK", HomeBase="JFK", TimeReference="2",
        OnDutyDate="11/01/2026", OnDutyTime="1:30", OffDutyDate="11/01/2026", OffDutyTime="09:00",
    )  # fmt: skip
    duty = only_duty(text, "mdy")
    assert duty.on_duty == utc(2026, 11, 1, 5, 30)  # 01:30 EDT (UTC-4)
    assert duty.off_duty == utc(2026, 11, 1, 14, 0)  # 09:00 EST (UTC-5)


def test_duty_across_london_spring_forward_is_an_hour_shorter() -> None:
    # 22:00 GMT to 06:00 BST: 8 wall-clock hours but 7 real hours -> 28 intervals
    text = row9(
        OnDutyDate="28/03/2026", OnDutyTime="22:00", OffDutyDate="29/03/2026",
        OffDutyTime="06:00", StartAirport="LHR", EndAirport="LHR", TimeReference="1",
    )  # fmt: skip
    duty = only_duty(text)
    assert duty.duration == timedelta(hours=7)
    assert duty.interval_count == 28


def test_duty_across_new_york_fall_back_is_an_hour_longer() -> None:
    text = row9(
        StartAirport="JFK", EndAirport="JFK", HomeBase="JFK", TimeReference="1",
        OnDutyDate="31/10/2026", OnDutyTime="23:00", OffDutyDate="01/11/2026", OffDutyTime="07:00",
    )  # fmt: skip
    duty = only_duty(text)
    assert duty.duration == timedelta(hours=9)
    assert duty.interval_count == 36


# ---------------------------------------------------------------- defaults and ranges


def test_defaults_of_blank_optional_columns() -> None:
    duty = only_duty(row34())
    assert duty.sectors == 1
    assert duty.crew_composition is CrewComposition.TWO_PILOTS
    assert (duty.sleep_count, duty.sleep_order, duty.sleep_class) == (0, 1, SleepClass.BUNK)
    assert (duty.crew_prep_minutes, duty.commute_minutes) == (60, 60)
    assert (duty.cabin_crew_sleep_pattern, duty.duty_type, duty.workload) == (
        0,
        DutyType.ACTIVE,
        0.0,
    )
    assert duty.split_shift is False  # blank SplitShift -> 1, no split (contract §8)
    assert duty.partial_augment is duty.first_rest is duty.second_rest is None


def test_nine_column_rows_take_the_same_defaults() -> None:
    assert only_duty(row9()) == only_duty(row34())


def test_split_shift_0_means_true() -> None:
    assert only_duty(row34(SplitShift="0")).split_shift is True
    assert only_duty(row34(SplitShift="1")).split_shift is False


def test_cabin_crew_sleep_pattern_4_is_read_as_0() -> None:
    assert only_duty(row34(CabinCrewSleepPattern="4")).cabin_crew_sleep_pattern == 0
    assert only_duty(row34(CabinCrewSleepPattern="3")).cabin_crew_sleep_pattern == 3


@pytest.mark.parametrize(
    ("column", "value", "allowed"),
    [
        ("CrewComposition", "5", "2, 3, 4 or 9"),
        ("SleepCount", "3", "0 to 2"),
        ("SleepOrder", "0", "1 to 3"),
        ("SleepOrder", "4", "1 to 3"),
        ("SleepClass", "6", "1 to 5"),
        ("SplitShift", "2", "0 or 1"),
        ("DutyType", "4", "1 to 3"),
        ("CabinCrewSleepPattern", "5", "0 to 4"),
        ("Sectors", "-1", "0 or more"),
        ("CrewPrepTime", "-5", "0 or more"),
        ("DutyCommuteTime", "-1", "0 or more"),
    ],
)
def test_values_outside_their_range(column: str, value: str, allowed: str) -> None:
    assert triples(row34(**{column: value})) == [
        ("1", "P1", f"{column} {value} is not allowed; use {allowed}")
    ]


@pytest.mark.parametrize("value", ["x", "1.5", "one", "2 "[:1] + "a"])
def test_whole_number_columns_reject_other_text(value: str) -> None:
    assert triples(row34(Sectors=value)) == [
        ("1", "P1", f"Sectors '{value}' is not a whole number")
    ]


def test_sleep_order_may_be_1_to_3_whatever_sleep_count_is() -> None:
    assert only_duty(row34(SleepOrder="3", SleepCount="0")).sleep_order == 3


@pytest.mark.parametrize(
    ("sectors", "workload"), [("0", "0"), ("0", "50"), ("2", "-50"), ("2", "100"), ("1", "12.5")]
)
def test_workload_inside_its_interval(sectors: str, workload: str) -> None:
    assert only_duty(row34(Sectors=sectors, Workload=workload)).workload == float(workload)


@pytest.mark.parametrize(
    ("sectors", "workload", "message"),
    [
        ("0", "-10", "Workload -10 is outside 0 to 50, the range when Sectors is 0"),
        ("0", "60", "Workload 60 is outside 0 to 50, the range when Sectors is 0"),
        ("3", "-51", "Workload -51 is outside -50 to 100, the range when Sectors is above 0"),
        ("3", "100.5", "Workload 100.5 is outside -50 to 100, the range when Sectors is above 0"),
    ],
)
def test_workload_outside_its_interval(sectors: str, workload: str, message: str) -> None:
    assert triples(row34(Sectors=sectors, Workload=workload)) == [("1", "P1", message)]


@pytest.mark.parametrize("value", ["nan", "inf", "1e", "ten"])
def test_workload_must_be_a_finite_number(value: str) -> None:
    assert triples(row34(Workload=value)) == [("1", "P1", f"Workload '{value}' is not a number")]


# ------------------------------------------------------------------------- cross-field


def test_30_hour_message_names_both_date_times_as_written() -> None:
    # The brief's example pairs 01/01 06:00 with 03/01 14:30, which is 56 h 30 min apart;
    # 02/01 14:30 gives the 32 h 30 min it quotes.
    text = f"{HEADER_9}\r\n{row9(Reference='P9')}\r\n\r\n" + row9(
        Reference="P123", OnDutyDate="01/01/2026", OnDutyTime="06:00",
        OffDutyDate="02/01/2026", OffDutyTime="14:30",
    )  # fmt: skip
    assert triples(text) == [
        (
            "4",
            "P123",
            "Off-duty 02/01/2026 14:30 is more than 30 hours after on-duty 01/01/2026 06:00 "
            "(32 h 30 min)",
        )
    ]


def test_30_hour_rule_uses_the_dates_as_written_and_real_elapsed_time() -> None:
    # 30 h exactly is allowed; one minute more is not. Dates written without zeros.
    assert triples(row9(OnDutyDate="1/1/2026", OffDutyDate="2/1/2026", OffDutyTime="12:00")) == []
    assert triples(row9(OnDutyDate="1/1/2026", OffDutyDate="2/1/2026", OffDutyTime="12:01")) == [
        (
            "1",
            "P1",
            "Off-duty 2/1/2026 12:01 is more than 30 hours after on-duty 1/1/2026 06:00 "
            "(30 h 1 min)",
        )
    ]


@pytest.mark.parametrize("off_time", ["06:00", "05:59"])
def test_off_duty_must_be_after_on_duty(off_time: str) -> None:
    assert triples(row9(OffDutyTime=off_time)) == [
        ("1", "P1", f"Off-duty 01/03/2026 {off_time} is not after on-duty 01/03/2026 06:00")
    ]


def rest(prefix: str, start: str, end: str, day: str = "01/03/2026") -> dict[str, str]:
    names = {
        "FirstRest": (
            "FirstRestStartDate",
            "FirstRestStartTime",
            "FirstRestEndDate",
            "FirstRestEndTime",
        ),
        "SecondRest": (
            "SecondRestStartDate",
            "SecondRestStartTime",
            "SecondRestEndDate",
            "SecondRestEndTime",
        ),
        "Augment": (
            "OnPartialAugmentDate",
            "OnPartialAugmentTime",
            "OffPartialAugmentDate",
            "OffPartialAugmentTime",
        ),
    }[prefix]
    return dict(zip(names, (day, start, day, end), strict=True))


def test_rest_period_must_end_after_it_starts() -> None:
    assert triples(row34(**rest("FirstRest", "10:00", "09:00"))) == [
        ("1", "P1", "First rest end 01/03/2026 09:00 is not after its start 01/03/2026 10:00")
    ]


def test_augmentation_period_must_lie_inside_the_duty() -> None:
    assert triples(row34(**rest("Augment", "05:00", "09:00"))) == [
        (
            "1",
            "P1",
            "Partial augmentation 01/03/2026 05:00 to 01/03/2026 09:00 is not inside the duty "
            "(on-duty 01/03/2026 06:00 to off-duty 01/03/2026 14:30)",
        )
    ]


def test_second_rest_must_follow_the_first() -> None:
    text = row34(CrewComposition="3", SleepCount="2", **rest("FirstRest", "08:00", "10:00"),
                 **rest("SecondRest", "09:30", "11:00"))  # fmt: skip
    assert triples(text) == [
        (
            "1",
            "P1",
            "Second rest starts at 01/03/2026 09:30, before the first rest ends at "
            "01/03/2026 10:00",
        )
    ]
    ok = row34(CrewComposition="3", SleepCount="2", **rest("FirstRest", "08:00", "10:00"),
               **rest("SecondRest", "10:00", "11:00"))  # fmt: skip
    assert triples(ok) == []


def test_incomplete_rest_period() -> None:
    fields = rest("FirstRest", "08:00", "10:00")
    fields["FirstRestEndTime"] = ""
    assert triples(row34(**fields)) == [
        (
            "1",
            "P1",
            "First rest is incomplete: give all of FirstRestStartDate, FirstRestStartTime, "
            "FirstRestEndDate, FirstRestEndTime or leave them all blank",
        )
    ]


def test_sleep_count_without_rest_is_an_error_for_two_pilots_only() -> None:
    assert triples(row34(SleepCount="1")) == [
        (
            "1",
            "P1",
            "SleepCount 1 needs the FirstRest dates and times when CrewComposition is 2 "
            "(only 3, 4 or 9 crew let the model place the rest)",
        )
    ]
    for crew in ("3", "4", "9"):
        assert triples(row34(SleepCount="2", CrewComposition=crew)) == []
    assert triples(row34(SleepCount="1", **rest("FirstRest", "08:00", "10:00"))) == []


def test_sleep_count_2_for_two_pilots_needs_the_second_rest() -> None:
    assert [
        t[2] for t in triples(row34(SleepCount="2", **rest("FirstRest", "08:00", "10:00")))
    ] == [
        "SleepCount 2 needs the SecondRest dates and times when CrewComposition is 2 "
        "(only 3, 4 or 9 crew let the model place the rest)"
    ]


# ---------------------------------------------------------------------------- schedules


def test_overlapping_duties_of_one_schedule() -> None:
    text = "\r\n".join([
        row9(),
        row9(OnDutyTime="14:00", OffDutyTime="18:00"),
        row9(Reference="P2", OnDutyTime="07:00"),  # another schedule may overlap P1
        row9(OnDutyTime="14:30", OffDutyTime="20:00"),  # touching the first is fine
    ])  # fmt: skip
    assert triples(text) == [
        (
            "2",
            "P1",
            "Duty 01/03/2026 14:00 to 01/03/2026 18:00 overlaps the duty in row 1 "
            "(01/03/2026 06:00 to 01/03/2026 14:30)",
        ),
        (
            "4",
            "P1",
            "Duty 01/03/2026 14:30 to 01/03/2026 20:00 overlaps the duty in row 2 "
            "(01/03/2026 14:00 to 01/03/2026 18:00)",
        ),
    ]
    assert [s.reference for s in parse_roster(text).schedules] == ["P2"]


def test_reverse_ordered_rows_give_chronological_duties() -> None:
    rows = [row9(OnDutyDate=f"{d}/03/2026", OffDutyDate=f"{d}/03/2026") for d in (5, 3, 1)]
    parsed = parse_roster("\r\n".join(rows))
    assert parsed.errors == ()
    duties = parsed.schedules[0].duties
    assert [d.on_duty.day for d in duties] == [1, 3, 5]
    assert [d.row for d in duties] == [3, 2, 1]


def test_a_schedule_with_errors_is_left_out_and_others_go_on() -> None:
    text = "\r\n".join(
        [
            row9(Reference="A"),
            row9(Reference="B", OnDutyDate="x"),
            row9(Reference="B", OnDutyDate="02/03/2026", OffDutyDate="02/03/2026"),
        ]
    )
    parsed = parse_roster(text)
    assert [s.reference for s in parsed.schedules] == ["A"]
    assert [e.reference for e in parsed.errors] == ["B"]
    assert parsed.references == ("A", "B")


def test_errors_are_ordered_by_row_with_schedule_errors_in_place() -> None:
    text = "\r\n".join(
        [
            row9(Reference="A", OnDutyTime="12:00", OffDutyTime="13:00"),
            row9(Reference="B", OnDutyTime="99:99"),
            row9(Reference="A"),  # overlaps row 1 and starts earlier: row 1 gets the error
        ]
    )
    assert [t[:2] for t in triples(text)] == [("1", "A"), ("2", "B")]


def test_counters() -> None:
    parsed = parse_roster("\r\n".join([row9(), row9(Reference="P2", OffDutyTime="06:01")]))
    assert (parsed.rows, parsed.duty_count) == (2, 2)
    # 8.5 h = 34 intervals; 1 min = 1 interval (contract §4)
    assert parsed.interval_count == 35


def test_read_roster_from_a_file_with_bom(tmp_path) -> None:
    path = tmp_path / "roster.csv"
    path.write_text(f"{HEADER_9}\r\n{row9()}\r\n", encoding="utf-8-sig")
    assert read_roster(path).duty_count == 1


def test_date_format_outside_dmy_mdy_is_a_request_error() -> None:
    with pytest.raises(ValueError, match="DateFormat must be 'dmy' or 'mdy'"):
        parse_request(row9(), "ymd")


def test_header_with_a_mistyped_reference_is_still_a_header() -> None:
    # ours: two or more column names make the first row a header (docs/roster.md)
    header = HEADER_9.replace("Reference", "Refrence", 1)
    assert triples(f"{header}\r\n{row9()}") == [
        ("1", "", "Unknown column 'Refrence'"),
        ("1", "", "The header lacks the required column 'Reference'"),
    ]
