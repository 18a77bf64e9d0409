"""What a chart page reads for one schedule equals the whole roster's."""

from __future__ import annotations

import numpy as np
import pytest

from vigil.domain import DateFormat
from vigil.fleet.table import duty_table, schedule_table
from vigil.results.compact import StoredScores
from vigil.results.stored_sleep import decode_sleep, encode_sleep, schedule_sleep, sleep_columns
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import ScoreRequest, score

from .test_summary import KSS, RISKS, TIMES, facts_for, stored_from


def test_one_schedule_sleep_equals_the_full_decode() -> None:
    with np.errstate(invalid="ignore"):
        report = score(
            ScoreRequest(
                generate_airline_roster(6, 14, seed=3),
                DateFormat.DMY,
                risk=True,
                include_sleep=True,
            )  # fmt: skip
        )
    blob = encode_sleep([sleep_columns(report.schedules)])
    everything = decode_sleep(blob)
    assert len(everything) == 6
    for reference, episodes in everything.items():
        assert schedule_sleep(blob, reference) == episodes
    assert schedule_sleep(blob, "nobody") == []
    with pytest.raises(ValueError):
        schedule_sleep(b"XXXX" + blob[4:], "C00000")


def test_one_schedule_table_equals_its_rows_of_the_whole() -> None:
    stored: StoredScores = stored_from(KSS, TIMES, RISKS)
    facts = facts_for([3, 1], fleet=["A320", "B777"], rank=["CPT", "FO"])
    whole = duty_table(stored, facts, "SP")
    for index in (0, 1):
        one = schedule_table(stored, facts, index, "SP")
        rows = whole.sched == index
        assert one.references == [whole.references[index]] and one.fleet == [facts.fleet[index]]
        for name in ("on_s", "peak", "mean", "above_minutes", "risk", "kind", "start_offset"):
            assert np.array_equal(getattr(one, name), getattr(whole, name)[rows], equal_nan=True)


def test_one_schedule_of_a_blob_equals_its_unpacked_rows() -> None:
    from reference.vgs1_writer import CompactChunk, pack
    from vigil.results.compact import unpack
    from vigil.results.one import one_schedule

    whole = stored_from(KSS, TIMES, RISKS)
    blob = pack([CompactChunk(whole.schedules, whole.matrix)], whole.scales)
    assert unpack(blob).schedules == whole.schedules
    one = one_schedule(blob, "B")
    assert one is not None and (one.position, one.first_duty) == (1, 3)
    assert one.stored.schedules == [whole.schedules[1]]
    assert np.array_equal(one.stored.matrix, whole.matrix[16:20])
    assert one_schedule(blob, "Z") is None
    # with the summary's facts (position, first row, first duty): one index entry decoded
    hinted = one_schedule(blob, "B", (1, 16, 3))
    assert hinted is not None and hinted.stored.schedules == one.stored.schedules
    assert np.array_equal(hinted.stored.matrix, one.stored.matrix)
    assert one_schedule(blob, "Z", (0, 0, 0)) is None


def test_facts_know_where_each_schedule_starts() -> None:
    from vigil.fleet.table import roster_facts

    facts = roster_facts(stored_from(KSS, TIMES, RISKS), [])
    assert (facts.row_offset, facts.first_duty) == ([0, 16], [0, 3])
