"""The duty explorer's filters, sort, paging and CSV on a hand-built roster with known
answers, and the stored risk drivers read back as the API's reasons."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from datetime import UTC, date, datetime

import numpy as np
import pytest

from vigil import model
from vigil.fleet import drivers
from vigil.fleet.explorer import (
    EXPLORER_HEADER,
    DutyQuery,
    QueryError,
    explorer_columns,
    explorer_csv,
    explorer_row,
    ordered,
    parse_query,
    select,
)
from vigil.fleet.table import Airports, RosterFacts, duty_table
from vigil.results.compact import IndexedDuty, IndexedSchedule, StoredScores
from vigil.scoring.duty_risk import DRIVER_FIELDS, REASONS, duty_reasons, reason_flags

NAN = float("nan")
BANDS = ("standard", "elevated", "high", "very-high")


def epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


#: (reference, fleet, rank, home, duties); a duty is (report, off, start, end, sectors,
#: crew composition, risk, (kind, position, prior sleep h, sleepiness S))
ROSTER = [
    ("A100", "A320", "CPT", 0, [
        ("2026-03-02T06:00", "2026-03-02T08:00", 0, 3, 1, 2, 1.0, (model.EARLY, 1, 7.5, 1.0)),
        ("2026-03-03T22:00", "2026-03-04T07:00", 0, 1, 1, 2, 3.2, (model.NIGHT, 1, 5.0, 1.1)),
    ]),
    ("B200", "B777", "FO", 2, [
        ("2026-03-05T10:00", "2026-03-05T21:30", 2, 1, 1, 4, 1.5, (model.OTHER, 0, 8.0, 1.0)),
    ]),
    ("C300", "A320", "CC", 0, [
        ("2026-03-06T13:00", "2026-03-06T20:00", 0, 0, 4, 9, 2.5, (model.OTHER, 0, 8.0, 1.35)),
        ("2026-03-07T09:00", "2026-03-07T10:00", 0, 3, 1, 9, NAN, (model.OTHER, 0, 9.0, 1.0)),
    ]),
]  # fmt: skip
AIRPORTS = Airports(
    ["LHR", "JFK", "MAN", "CDG"],
    ["LHR", "JFK", "MAN", "CDG"],
    ["EGLL", "KJFK", "EGCC", "LFPG"],
    ["Europe/London", "America/New_York", "Europe/London", "Europe/Paris"],
)


def build(with_drivers: bool = True) -> StoredScores:
    schedules, rows, why = [], 0, []
    for reference, _, _, _, duties in ROSTER:
        entries, first = [], 0
        for on, off, *_, risk, (kind, pos, prior, sleepy) in duties:
            n = -(-(epoch(off) - epoch(on)) // 900)
            entries.append(IndexedDuty(epoch(on), epoch(off), first, n, risk))
            first += n
            comps = [sleepy, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, prior]
            why.append([*comps, kind, pos])
        schedules.append(IndexedSchedule(reference, first, tuple(entries)))
        rows += first
    matrix = np.full((rows, 1), 5.0, dtype=np.float32)
    matrix[-1, 0] = 7.5  # the last duty's last interval: its top of descent
    array = np.asarray(why, dtype=np.float32) if with_drivers else None
    return StoredScores(("KSS",), schedules, matrix, array)


def facts() -> RosterFacts:
    duties = [d for *_, ds in ROSTER for d in ds]
    n = len(duties)
    return RosterFacts(
        fleet=[s[1] for s in ROSTER],
        rank=[s[2] for s in ROSTER],
        home=[s[3] for s in ROSTER],
        airports=AIRPORTS,
        start=[d[2] for d in duties],
        end=[d[3] for d in duties],
        sectors=[d[4] for d in duties],
        start_offset=[0] * n,
        end_offset=[0] * n,
        home_offset=[0] * n,
        crew=[d[5] for d in duties],
    )


@pytest.fixture(scope="module")
def columns():  # type: ignore[no-untyped-def]
    return explorer_columns(duty_table(build(), facts(), "KSS"))


def keys(c, q: DutyQuery) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    t = c.table
    return [(t.references[t.sched[i]], int(t.number[i])) for i in ordered(c, q).tolist()]


def query(**params: str | list[str]) -> DutyQuery:
    return parse_query({k: v if isinstance(v, list) else [v] for k, v in params.items()}, BANDS)


def test_default_view_is_riskiest_first_absent_risk_last(columns) -> None:  # type: ignore[no-untyped-def]
    assert keys(columns, DutyQuery()) == [
        ("A100", 2), ("C300", 1), ("B200", 1), ("A100", 1), ("C300", 2),
    ]  # fmt: skip
    # ascending keeps the duty without a risk last
    assert keys(columns, query(order="asc"))[-1] == ("C300", 2)
    assert keys(columns, query(order="asc"))[0] == ("A100", 1)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"band": ["high", "very-high"]}, [("A100", 2), ("C300", 1)]),
        ({"band": "elevated"}, [("B200", 1)]),
        ({"base": "MAN"}, [("B200", 1)]),
        ({"base": "egll"}, [("A100", 2), ("C300", 1), ("A100", 1), ("C300", 2)]),
        ({"fleet": "A320", "rank": "CC"}, [("C300", 1), ("C300", 2)]),
        ({"fleet": "A330"}, []),
        ({"crew": "cabin"}, [("C300", 1), ("C300", 2)]),
        ({"crew": "flight"}, [("A100", 2), ("B200", 1), ("A100", 1)]),
        ({"from": "2026-03-03", "to": "2026-03-05"}, [("A100", 2), ("B200", 1)]),
        ({"kind": "night"}, [("A100", 2)]),
        ({"kind": ["early", "night"]}, [("A100", 2), ("A100", 1)]),
        ({"driver": "shortSleep"}, [("A100", 2)]),
        ({"driver": "long"}, [("B200", 1)]),
        ({"driver": "landings"}, [("C300", 1)]),
        ({"driver": "sleepy"}, [("C300", 1)]),
        ({"q": "jfk"}, [("A100", 2), ("B200", 1)]),
        ({"q": "LHR-CDG"}, [("A100", 1), ("C300", 2)]),
        ({"q": "KJFK"}, [("A100", 2), ("B200", 1)]),
        ({"q": "c30"}, [("C300", 1), ("C300", 2)]),
        ({"band": "very-high", "base": "LHR", "kind": "night"}, [("A100", 2)]),
    ],
)
def test_filters(columns, params, expected) -> None:  # type: ignore[no-untyped-def]
    assert keys(columns, query(**params)) == expected


def test_sorts(columns) -> None:  # type: ignore[no-untyped-def]
    assert [k for k in keys(columns, query(sort="report", order="asc"))] == [
        ("A100", 1), ("A100", 2), ("B200", 1), ("C300", 1), ("C300", 2),
    ]  # fmt: skip
    # lengths 11.5, 9, 7, 2, 1 h
    assert keys(columns, query(sort="length"))[:2] == [("B200", 1), ("A100", 2)]
    assert keys(columns, query(sort="sectors"))[0] == ("C300", 1)
    assert keys(columns, query(sort="tod"))[0] == ("C300", 2)  # KSS 7.5 in its last hour
    # by Reference, then report time
    assert keys(columns, query(sort="reference", order="asc")) == [
        ("A100", 1), ("A100", 2), ("B200", 1), ("C300", 1), ("C300", 2),
    ]  # fmt: skip


def test_paging_clamps_and_counts(columns) -> None:  # type: ignore[no-untyped-def]
    first = select(columns, query(size="2"))
    assert (first.matched, first.page, first.pages) == (5, 1, 3)
    last = select(columns, query(size="2", page="3"))
    assert len(last.rows) == 1 and last.page == 3
    beyond = select(columns, query(size="2", page="99"))
    assert beyond.page == 3 and beyond.rows.tolist() == last.rows.tolist()
    pages = [select(columns, query(size="2", page=str(p))).rows.tolist() for p in (1, 2, 3)]
    assert sum(pages, []) == ordered(columns, DutyQuery()).tolist()


def test_home_time_moves_the_day_filter_and_the_clock() -> None:
    c = explorer_columns(duty_table(build(), replace(facts(), home_offset=[120] * 5), "KSS"))
    # A100/2 reports 22:00 UTC on the 3rd = 00:00 on the 4th at UTC+2
    assert ("A100", 2) in keys(c, query(**{"from": "2026-03-03", "to": "2026-03-03"}))
    assert ("A100", 2) not in keys(
        c, query(**{"from": "2026-03-03", "to": "2026-03-03", "time": "home"})
    )
    row = explorer_row(c, 1, home_time=True)
    assert (row["report"], row["off"]) == ("2026-03-04 00:00", "2026-03-04 09:00")
    assert explorer_row(c, 1, home_time=False)["report"] == "2026-03-03 22:00"


def test_rows_explain_each_duty_in_the_apis_words(columns) -> None:  # type: ignore[no-untyped-def]
    rows = [explorer_row(columns, i, home_time=False) for i in range(5)]
    assert rows[0]["reasons"] == ["early start"]
    assert rows[1]["reasons"] == ["night", "short sleep (5.0 h in the 24 h before report)"]
    assert rows[2]["reasons"] == ["long duty (11.5 h)"]
    assert rows[3]["reasons"] == ["four landings", "sleepier than usual for the hour"]
    assert rows[4]["reasons"] == [] and rows[4]["risk"] is None and rows[4]["band"] == ""
    assert [r["crew"] for r in rows] == [
        "2 pilots",
        "2 pilots",
        "4 pilots",
        "cabin crew",
        "cabin crew",
    ]
    assert rows[1]["route"] == "LHR–JFK" and rows[1]["length"] == "9:00"
    assert rows[1]["band"] == "very-high" and rows[2]["base"] == "MAN"
    assert explorer_row(columns, 1, home_time=False, style="icao")["route"] == "EGLL–KJFK"


def test_without_stored_drivers_nothing_is_claimed() -> None:
    c = explorer_columns(duty_table(build(with_drivers=False), facts(), "KSS"))
    assert c.table.drivers is None
    assert keys(c, query(driver="night")) == []
    row = explorer_row(c, 1, home_time=False)
    assert row["reasons"] == [] and row["explained"] is False


def test_flags_and_words_apply_the_same_rules() -> None:
    """reason_flags (the filter) and duty_reasons (the API's riskReasons) agree on a grid
    that crosses every threshold."""
    grid = np.array(
        np.meshgrid(
            [model.OTHER, model.NIGHT, model.EARLY],
            [0, 1, 2, 4],
            [9.99, 10.0, 13.0],
            [1, 2, 3, 6],
            [5.99, 6.0],
            [1.29, 1.3],
        )  # fmt: skip
    ).reshape(6, -1)
    flags = reason_flags(*grid)
    for j in range(grid.shape[1]):
        kind, pos, hours, sectors, prior, sleepy = grid[:, j].tolist()
        words = duty_reasons(int(kind), int(pos), hours, int(sectors), prior, sleepy)
        expected = {
            "night": any(w == "night" or w.endswith("consecutive night") for w in words),
            "early": any(w == "early start" or w.endswith("consecutive early") for w in words),
            "consecutive": any("consecutive" in w for w in words),
            "long": any(w.startswith("long duty") for w in words),
            "landings": any(w.endswith("landings") for w in words),
            "shortSleep": any(w.startswith("short sleep") for w in words),
            "sleepy": "sleepier than usual for the hour" in words,
        }
        assert {k: bool(v[j]) for k, v in flags.items()} == expected
    assert set(flags) == set(REASONS)


def test_csv_is_exactly_the_filtered_view_and_formula_safe() -> None:
    f = facts()
    hostile = RosterFacts(
        **{**{k: getattr(f, k) for k in f.__slots__}, "fleet": ["=1+1", "B777", "A320"]}
    )
    c = explorer_columns(duty_table(build(), hostile, "KSS"))
    q = query(band=["high", "very-high"], sort="report", order="asc")
    rows = list(csv.reader(io.StringIO(b"".join(explorer_csv(c, q)).decode())))
    assert tuple(rows[0]) == EXPLORER_HEADER
    body = rows[1:]
    assert [(r[0], int(r[1])) for r in body] == keys(c, q) == [("A100", 2), ("C300", 1)]
    assert body[0][4] == "'=1+1"  # a formula cell is neutralised
    assert body[0][EXPLORER_HEADER.index("What drives the risk")] == (
        "night; short sleep (5.0 h in the 24 h before report)"
    )
    assert body[1][EXPLORER_HEADER.index("Crew")] == "cabin crew"
    # the components of each R, as the API's riskComponents name them
    assert body[0][EXPLORER_HEADER.index("Sleepiness S")] == "1.1"
    assert body[0][EXPLORER_HEADER.index("Prior sleep (h)")] == "5.0"
    assert body[1][EXPLORER_HEADER.index("Sleepiness S")] == "1.35"


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"band": "purple"}, "band"),
        ({"from": "2026-13-01"}, "from"),
        ({"from": "yesterday"}, "from"),
        ({"from": "2026-03-05", "to": "2026-03-01"}, "to"),
        ({"kind": "evening"}, "kind"),
        ({"driver": "moon"}, "driver"),
        ({"crew": "ground"}, "crew"),
        ({"sort": "colour"}, "sort"),
        ({"order": "up"}, "order"),
        ({"page": "0"}, "page"),
        ({"page": "-1"}, "page"),
        ({"size": "100000"}, "size"),
        ({"time": "mars"}, "time"),
        ({"q": "x" * 101}, "q"),
        ({"fleet": ["A320", "B777"]}, "fleet"),
    ],
)
def test_bad_parameters_name_themselves(params, parameter) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QueryError) as caught:
        query(**params)
    assert caught.value.parameter == parameter
    assert caught.value.message


def test_query_parameters_round_trip() -> None:
    q = query(band=["high"], base="LHR", kind=["night"], driver="night", q="JFK",
              sort="tod", order="asc", page="2", size="10", time="home",
              **{"from": "2026-03-01", "to": "2026-03-09"})  # fmt: skip
    assert q.day_from == date(2026, 3, 1) and q.home_time
    back = parse_query({k: v if isinstance(v, list) else [v] for k, v in q.params().items()}, BANDS)
    assert back == q


def test_stored_drivers_columns_are_in_driver_field_order(columns) -> None:  # type: ignore[no-untyped-def]
    assert drivers.driver(columns.table, "priorSleep").tolist()[1] == 5.0
    assert DRIVER_FIELDS[-2:] == ("kind", "position")


def test_sheet_reasons_are_each_duty_s_reasons_joined() -> None:
    """reasons_text (the sheets' column) on 3,000 random duties crossing every threshold:
    each duty's own reasons, joined, for all rows or some."""
    rng = np.random.default_rng(7)
    n = 3000
    why = np.column_stack(
        [rng.choice([1.0, 1.299, 1.3, 1.6], n)] + [np.ones(n)] * 6
        + [rng.choice([3.25, 5.999, 6.0, 8.0], n), rng.integers(0, 3, n), rng.integers(0, 9, n)]
    ).astype(np.float32)  # fmt: skip
    base = duty_table(build(), facts(), "KSS")
    t = replace(
        base,
        drivers=why,
        minutes=rng.choice([540.0, 599.0, 600.0, 787.0], n),
        sectors=rng.integers(0, 11, n),
    )
    words = drivers.reasons_text(t, np.arange(n))  # the table's own length is 5
    assert words == ["; ".join(drivers.reasons(t, i)) for i in range(n)]
    assert len(set(words)) > 50
    some = [5, 0, 2999]
    assert drivers.reasons_text(t, some) == [words[i] for i in some]
