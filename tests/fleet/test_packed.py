"""Packed duty tables: what the explorer, trips and months compared read back is the
table built from the stored scores, field for field, on every packed scale."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import zstandard
from sqlalchemy.orm import Session, sessionmaker

from vigil.domain import DateFormat
from vigil.fleet import packed
from vigil.fleet import stored as fleet_stored
from vigil.fleet.table import DutyTable, duty_table, with_offsets
from vigil.fleet.thresholds import Thresholds
from vigil.results.compact import StoredScores, unpack
from vigil.results.frames import encode_frame, join_frames
from vigil.results.routes import RouteFacts, route_facts_of_columns
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreReport, ScoreRequest, score
from vigil.store import results as results_store
from vigil.store import uploads

from .test_stored import finished_roster, sessions  # noqa: F401 - sessions is a fixture

#: an airline month's mix: short-haul, augmented long-haul with in-flight rest, cabin crew
ROSTER = generate_airline_roster(12, 28, seed=7)
#: an operator's own levels and bands (not the built-in ones): packed with the tables
OWN = Thresholds(3, {"KSS": (6.5, 8.0)}, (1.1, 1.8, 2.6))


@pytest.fixture(scope="module")
def scored() -> ScoreReport:
    return score(ScoreRequest(ROSTER, risk=True, extra_scales=SCALE_CODES))


@pytest.fixture(scope="module")
def blob(scored: ScoreReport) -> bytes:
    """The scores as the worker stores them (frames)."""
    from vigil import model

    return join_frames([encode_frame(scored.schedules, model.DEFAULT, SCALE_CODES)])


def _routes(stored: StoredScores) -> RouteFacts:
    parsed = parse_request(ROSTER, DateFormat.DMY)
    entries = [(s.reference, len(s.duties)) for s in stored.schedules]
    return route_facts_of_columns(entries, parsed.columns)


def assert_same_table(read: DutyTable, built: DutyTable) -> None:
    for field in dataclasses.fields(DutyTable):
        a, b = getattr(read, field.name), getattr(built, field.name)
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype, field.name
            np.testing.assert_array_equal(a, b, err_msg=field.name)
        else:
            assert a == b, field.name


@pytest.mark.parametrize("scale", ["SP", "KP", "KSS"])
def test_a_packed_table_reads_back_as_built(blob: bytes, scale: str) -> None:
    stored = unpack(blob, (scale, "KSS") if scale != "KSS" else ("KSS",))
    facts = with_offsets(stored, _routes(stored))
    data = fleet_stored.build_tables(
        stored, facts, scale=scale, model_version="1.5.0+x", thresholds=OWN
    )
    found = packed.read(data)
    assert found.scales == tuple(dict.fromkeys((scale, "KSS")))
    assert found.model_version == "1.5.0+x" and found.thresholds == OWN
    assert found.bases == facts.base_lists()
    for each in found.scales:
        built = duty_table(stored, facts, each, level=OWN.level(each), bands=OWN.bands)
        assert built.drivers is not None and int(built.rest_intervals.sum()) > 0
        assert_same_table(found.table(each), built)
    with pytest.raises(KeyError, match="VD"):
        found.table("VD")


def test_what_is_not_a_packed_table_is_refused() -> None:
    frame = zstandard.ZstdCompressor().compress(b"VGS2" + bytes(8))
    index = packed.MAGIC + b"\x0e\0\0\0"
    short = (index + b'[["tables",3]]' + frame[:3], index + b'[["tables",2]]ab')
    for data in (b"", b"VGT2", frame, packed.MAGIC + bytes(4), *short):
        with pytest.raises(ValueError, match="not a packed duty table"):
            packed.read(data)


@pytest.mark.parametrize("with_routes", [True, False])
def test_the_summary_hook_stores_the_tables_deleted_with_the_roster(
    sessions: sessionmaker[Session],  # noqa: F811 - the fixture
    blob: bytes,
    with_routes: bool,
) -> None:
    """The worker's hook packs the roster's scale and KSS, whether the chunk tasks gave
    their route facts or the roster is parsed for them; deleting the roster deletes them."""
    with sessions.begin() as session:
        upload, job = finished_roster(session, ROSTER, blob, "1.5.0+x")
        stored = unpack(blob, ("SP", "KSS"))
        routes = _routes(stored) if with_routes else None
        fleet_stored.record_summary(session, job, blob, "completedsuccessfully", routes)
        upload_id, token = upload.id, upload.token
    with sessions() as session:
        data = results_store.packed_tables(session, upload_id)
        assert data is not None
        found = packed.read(data)
        summary = fleet_stored.load(results_store.light_result(session, upload_id).summary_json)  # type: ignore[union-attr]
        assert summary is not None
        assert found.scales == ("SP", "KSS") and found.model_version == "1.5.0+x"
        for scale in found.scales:
            assert_same_table(found.table(scale), summary.table(stored, scale))
    with sessions.begin() as session:
        assert uploads.delete_upload(session=session, operator="acme", token=token)
    with sessions() as session:
        assert results_store.packed_tables(session, upload_id) is None


def test_packed_trips_hot_spots_and_digest_read_back_as_grouped(blob: bytes) -> None:
    """The trips page and months compared read the packed trips of the KSS table in the
    default airport style: the same as grouping the table again."""
    import orjson

    from vigil.fleet.compare import compare

    stored = unpack(blob, ("SP", "KSS"))
    facts = with_offsets(stored, _routes(stored))
    found = packed.read(fleet_stored.build_tables(stored, facts, scale="SP", model_version=""))
    table = found.table("KSS")
    read = found.trip_parts("KSS", "iata")
    assert read is not None
    assert found.trip_parts("SP", "iata") is None and found.trip_parts("KSS", "icao") is None
    grouped = packed.trip_parts(table, facts.base_lists(), "iata")
    assert len(read.trips) > 0 and read.trips.sequences == grouped.trips.sequences
    for field in dataclasses.fields(grouped.trips):
        a, b = getattr(read.trips, field.name), getattr(grouped.trips, field.name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype, field.name
            np.testing.assert_array_equal(a, b, err_msg=field.name)
        else:
            assert a == b, field.name
    assert orjson.dumps(read.hot) == orjson.dumps(grouped.hot)
    assert orjson.dumps(compare(read.digest, grouped.digest)) == orjson.dumps(
        compare(grouped.digest, grouped.digest)
    )


@pytest.mark.parametrize(
    ("values", "stored"),
    [
        (np.array([1.25, np.nan, 0.0, 3.001, -2.5]), "int16"),  # thousandths; NaN: lowest
        (np.array([1.25, -0.0]), "float64"),  # -0.0 would read back as 0.0: kept
        (np.array([1 / 3, 2.0]), "float64"),  # not thousandths
        (np.array([1.5, np.inf]), "float64"),
        (np.array([1.5, 2.0], dtype=np.float32), "int16"),
        (np.array([5, -70_000, 3]), "int32"),
        (np.array([True, False]), "bool"),
    ],
)
def test_arrays_are_narrowed_without_loss(values: np.ndarray, stored: str) -> None:  # type: ignore[type-arg]
    encoded, wide = packed._encode(values)
    assert encoded.dtype == np.dtype(stored)
    entry = ["x", encoded.dtype.str, encoded.size, [], wide]
    back, _ = packed._decode(encoded.tobytes(), 0, entry)
    assert back.dtype == values.dtype
    np.testing.assert_array_equal(back, values)
    assert np.array_equal(np.signbit(back), np.signbit(values))
