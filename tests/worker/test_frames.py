"""Stored scores as one KSS series plus residuals (footprint): exact on read."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from reference.vgs1_writer import compact_chunk, pack
from vigil.domain import DateFormat
from vigil.results.compact import unpack
from vigil.results.frames import decode_frames, encode_frame, join_frames, read_index
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest, resolve_preset, score

PRESETS = ("ingre2014_5c", "tpm_default")


def _results(preset: str):  # type: ignore[no-untyped-def]
    roster = generate_airline_roster(20, 28, seed=11)
    with np.errstate(invalid="ignore"):
        report = score(
            ScoreRequest(
                roster,
                DateFormat.DMY,
                risk=True,
                preset=preset,
                extra_scales=tuple(s for s in SCALE_CODES if s != "KSS"),
            )
        )
    return report.schedules


@pytest.mark.parametrize("preset", PRESETS)
def test_stored_then_derived_equals_computed_on_every_scale(preset: str) -> None:
    results = _results(preset)
    params = resolve_preset(preset)
    blob = join_frames(
        [
            encode_frame(results[:7], params, SCALE_CODES),
            encode_frame(results[7:], params, SCALE_CODES),
        ]
    )
    stored = unpack(blob)
    assert stored.references == [r.reference for r in results]
    for scale in SCALE_CODES:
        got = list(stored.schedule_results(scale))
        for want, have in zip(results, got, strict=True):
            # exactly the service's 3-decimal rounding, bit for bit
            assert have.scores[scale].tobytes() == want.scores[scale].tobytes(), scale
            # what is stored: times, slice and risk (the risk's drivers are not stored)
            assert [d[:5] for d in have.duties] == [d[:5] for d in want.duties]
    # the same matrix as the six-float32 format
    old = unpack(pack([compact_chunk(results, SCALE_CODES)], SCALE_CODES))
    assert np.array_equal(old.matrix, stored.matrix)
    assert len(blob) * 3 < len(pack([compact_chunk(results, SCALE_CODES)], SCALE_CODES))


def test_residuals_are_mostly_zero_and_bad_blobs_refused() -> None:
    results = _results(PRESETS[0])
    frame = encode_frame(results, resolve_preset(PRESETS[0]), SCALE_CODES)
    scales, rows, matrix = decode_frames(join_frames([frame]))
    assert scales == SCALE_CODES and len(rows) == len(results) and matrix.dtype == np.float32
    assert decode_frames(join_frames([]))[2].shape == (0, 0)
    with pytest.raises(ValueError, match="truncated"):
        decode_frames(join_frames([frame])[:-1])
    with pytest.raises(ValueError, match="VGS2"):
        decode_frames(b"VGS1")
    with pytest.raises(ValueError, match="exactly the scales"):
        encode_frame(results, resolve_preset(PRESETS[0]), ("KSS",))


def test_read_index_reads_what_json_dumps_wrote() -> None:
    """orjson reads the indexes, and the standard library the NaN and Infinity that
    ``json.dumps`` writes but orjson refuses (an index with either stays readable)."""
    index = {"scales": ["KSS"], "schedules": [["C1", 2, [[1.0e9, 1.0e9 + 900, 0, 2, 1.25]]]]}
    raw = json.dumps(index, separators=(",", ":")).encode()
    assert read_index(raw) == index == read_index(memoryview(raw))
    odd = read_index(json.dumps([float("nan"), float("inf"), 0.1]).encode())
    assert math.isnan(odd[0]) and odd[1] == math.inf and odd[2] == 0.1


def test_schedules_with_a_duty_at_given_times_found_in_either_format() -> None:
    """The crew search of the what-if page (vigil.results.one.schedules_with_duty): the
    schedules with a duty reported and off at exactly those instants, in roster order,
    from a VGS2 blob of several frames and from a VGS1 blob alike."""
    from vigil.results.one import schedules_with_duty

    results = _results(PRESETS[0])
    params = resolve_preset(PRESETS[0])
    frames = join_frames(
        [
            encode_frame(results[:7], params, SCALE_CODES),
            encode_frame(results[7:], params, SCALE_CODES),
        ]
    )
    old = pack([compact_chunk(results, SCALE_CODES)], SCALE_CODES)
    first, later = results[2].duties[0], results[12].duties[-1]
    spans = {
        (int(first.on_duty.timestamp()), int(first.off_duty.timestamp())),
        (int(later.on_duty.timestamp()), int(later.off_duty.timestamp())),
    }
    want = [
        r.reference
        for r in results
        if any((int(d.on_duty.timestamp()), int(d.off_duty.timestamp())) in spans for d in r.duties)
    ]
    assert results[2].reference in want and results[12].reference in want
    assert schedules_with_duty(frames, spans) == want
    assert schedules_with_duty(old, spans) == want
    # one second off is another duty; no span, no search
    on, off = next(iter(spans))
    assert schedules_with_duty(frames, {(on, off + 1)}) == []
    assert schedules_with_duty(frames, set()) == []
