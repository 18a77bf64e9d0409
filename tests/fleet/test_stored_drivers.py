"""What drives each duty's risk, stored with the scores and read back: the same
components and the same reasons as the API's ``riskComponents``/``riskReasons``."""

from __future__ import annotations

import numpy as np
import pytest

from reference.vgs1_writer import compact_chunk, pack
from vigil.domain import DateFormat
from vigil.fleet import drivers
from vigil.fleet.table import duty_table, roster_facts
from vigil.results.compact import StoredScores, unpack
from vigil.results.frames import encode_frame, join_frames
from vigil.results.one import one_schedule
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.duty_risk import COMPONENT_FIELDS
from vigil.scoring.service import SCALE_CODES, ScoreRequest, resolve_preset, score

PRESET = "ingre2014_5c"


@pytest.fixture(scope="module")
def scored():  # type: ignore[no-untyped-def]
    roster = generate_airline_roster(12, 28, seed=5)
    with np.errstate(invalid="ignore"):
        report = score(
            ScoreRequest(
                roster,
                DateFormat.DMY,
                risk=True,
                preset=PRESET,
                extra_scales=tuple(s for s in SCALE_CODES if s != "KSS"),
            )
        )
    return roster, report.schedules


def test_frames_keep_every_duty_s_components_and_reasons(scored) -> None:  # type: ignore[no-untyped-def]
    roster, results = scored
    params = resolve_preset(PRESET)
    blob = join_frames(
        [
            encode_frame(results[:5], params, SCALE_CODES),
            encode_frame(results[5:], params, SCALE_CODES),
        ]
    )
    stored = unpack(blob, ("KSS",))
    want = [d.drivers for r in results for d in r.duties]
    assert stored.drivers is not None and stored.drivers.shape[0] == len(want)
    for row, drv in zip(stored.drivers.tolist(), want, strict=True):
        assert drv is not None
        assert row[: len(COMPONENT_FIELDS)] == pytest.approx(
            [drv.components[k] for k in COMPONENT_FIELDS], abs=6e-4
        )
        assert (round(row[-2]), round(row[-1])) == (drv.kind, drv.position)
    facts = roster_facts(stored, parse_request(roster, DateFormat.DMY).schedules)
    t = duty_table(stored, facts, "KSS")
    words = [list(d.reasons) for d in want]
    assert [drivers.reasons(t, i) for i in range(len(t))] == words
    assert any(words), "the month explains some duty"
    # the in-memory path (vigil report roster) keeps the same drivers
    memory = StoredScores.of_results(results, SCALE_CODES)
    assert memory.drivers is not None
    assert np.allclose(memory.drivers, stored.drivers, atol=6e-4)
    # one schedule read alone carries its own duties' drivers
    k = 7
    one = one_schedule(blob, results[k].reference)
    assert one is not None and one.stored.drivers is not None
    first = sum(len(r.duties) for r in results[:k])
    assert np.array_equal(
        one.stored.drivers, stored.drivers[first : first + len(results[k].duties)]
    )


def test_older_blobs_read_as_unexplained(scored) -> None:  # type: ignore[no-untyped-def]
    _, results = scored
    old = unpack(pack([compact_chunk(results, SCALE_CODES)], SCALE_CODES))
    assert old.drivers is None
    unscored = [
        r.__class__(r.reference, r.scores, tuple(d._replace(drivers=None) for d in r.duties))
        for r in results
    ]
    blob = join_frames([encode_frame(unscored, resolve_preset(PRESET), SCALE_CODES)])
    assert unpack(blob).drivers is None
