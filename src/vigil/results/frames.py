"""Stored scores, small: one KSS series per interval, the other scales derived on read.

the first stored format (:mod:`vigil.results.compact`, ``VGS1``)
kept six float32 scales per interval, about 150 MB for a 10,000-crew month. Every scale
is a fixed function of the final KSS (:mod:`vigil.model.scales`), but of each *sample's*
KSS, averaged per interval afterwards, so the interval mean of a scale is not exactly the
scale of the interval-mean KSS where an interval straddles a knee or a clip. This format
therefore stores, per interval, in thousandths (scores have 3 decimals, contract §4):

- the KSS series, as first differences;
- the KP series, as first differences (KP is a logistic: deriving it needs ``exp``,
  whose last bit may differ between machines, so it is not derived);
- for SP, VD, CRD and PMR, the *residual* between the stored score and the scale derived
  with IEEE basic arithmetic only (same bits on every machine): SP and VD from the
  stored KSS, CRD and PMR from the stored VD (:func:`derive`, :func:`derive_from_vd`).
  Residuals are 3-decimal rounding noise (a few units) except in intervals that
  straddle a knee, so they compress to a fraction of a byte per interval.

Derived + residual gives back the service's rounded score exactly, for every scale
(tests/worker/test_frames.py). The derivation's constants are stored in each frame's
index, so a later model change cannot change how an old blob reads.

Each chunk task encodes its own frame (:func:`encode_frame`); the worker only joins them
(:func:`join_frames`). Layout (ours, little-endian)::

    b"VGS2" | (uint32 length | frame)*
    frame = zlib(uint32 n | index JSON (n bytes) | byte planes of int32[6, T])

with index ``{"scales": [...], "derive": {...}, "schedules": [[reference, interval_count,
duties], ...]}`` (duties as in ``VGS1``, a sixth field with the duty's rest runs when it
has any) and the six int32 rows KSS-delta, KP-delta, then
the SP, VD, CRD, PMR residuals, stored as 4 byte planes (bytes 0 of every value, then
bytes 1, …) so that zlib sees long runs of zeros.

A frame whose duties were scored with risk also keeps what drives each duty's R
(:data:`vigil.scoring.duty_risk.DRIVER_FIELDS`: the risk components, prior sleep, the
duty's kind and place in its run), so the console and the exports explain every stored
duty without re-scoring: the index names them (``"drivers": [...]``) and an int32
``[len(drivers), duties]`` block in thousandths follows the planes, as byte planes too.
Frames without the key (stored before, or scored without risk) have no block and read
as unexplained.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import orjson

from vigil.model.parameters import Parameters
from vigil.scoring.duty_risk import COMPONENT_FIELDS, DRIVER_FIELDS
from vigil.scoring.report import ScheduleResult

__all__ = [
    "MAGIC",
    "Decoded",
    "decode_all",
    "decode_frame_full",
    "decode_frame",
    "decode_frames",
    "derive",
    "derive_from_vd",
    "encode_frame",
    "frame_index",
    "frame_spans",
    "join_frames",
    "read_index",
]

MAGIC = b"VGS2"
_LENGTH = struct.Struct("<I")
#: rows of a frame's int32 block, in order
_ROWS = ("KSS", "KP", "SP", "VD", "CRD", "PMR")
_DERIVED = ("SP", "VD", "CRD", "PMR")
#: the Parameters fields the derivation reads
_CONSTANTS = (
    "sp_slope",
    "vd_slope",
    "vd_knee",
    "crd_fraction",
    "pmr_floor",
    "pmr_slope",
    "pmr_knee",
)
#: zlib level of a frame. Measured on one 500-crew task of the airline month (AMD EPYC,
#: session 6; 6.04 MB of planes, best CPU of 5): level 6 1.140 MB in 0.252 s, 4 1.235 MB
#: in 0.069 s, 1 1.453 MB in 0.042 s. Level 4 takes about a quarter off a chunk task's
#: CPU (~0.75 s) for 8.4 % more stored bytes; every level decodes the same.
_LEVEL = 4

IntArray = npt.NDArray[np.int64]


def _thousandths(values: npt.NDArray[np.float64]) -> IntArray:
    return np.rint(np.asarray(values, dtype=np.float64) * 1000.0).astype(np.int64)


def derive(kss: IntArray, constants: Mapping[str, float]) -> dict[str, IntArray]:
    """SP and VD in thousandths from KSS in thousandths (reference §2.6 forms).

    Basic IEEE arithmetic only (no ``exp``), so every machine gets the same bits.
    """
    k = kss.astype(np.float64) / 1000.0
    vd = np.clip(constants["vd_slope"] * np.maximum(0.0, k - constants["vd_knee"]), 0.0, 100.0)
    return {
        "SP": _thousandths(np.clip(1.0 + constants["sp_slope"] * (k - 1.0), 1.0, 7.0)),
        "VD": _thousandths(vd),
    }


def derive_from_vd(
    kss: IntArray, vd: IntArray, constants: Mapping[str, float]
) -> dict[str, IntArray]:
    """CRD and PMR in thousandths from the stored VD (and KSS where VD is 0).

    CRD is a fixed fraction of VD per sample, so of the interval means too; above both
    knees PMR is linear in VD. Predicting from the stored VD rather than the 3-decimal
    KSS keeps the residuals within a unit or two.
    """
    v = vd.astype(np.float64) / 1000.0
    k = kss.astype(np.float64) / 1000.0
    above = constants["pmr_floor"] + constants["pmr_slope"] * (
        v / constants["vd_slope"] + constants["vd_knee"] - constants["pmr_knee"]
    )
    below = constants["pmr_floor"] + constants["pmr_slope"] * np.maximum(
        0.0, k - constants["pmr_knee"]
    )
    return {
        "CRD": _thousandths(constants["crd_fraction"] * v),
        "PMR": _thousandths(np.clip(np.where(vd > 0, above, below), 0.0, 100.0)),
    }


def _epoch_s(instant: datetime) -> int:
    return int(instant.timestamp())


def encode_frame(
    results: Sequence[ScheduleResult], params: Parameters, scales: Sequence[str]
) -> bytes:
    """One compressed frame for consecutive scored schedules (all six ``scales``)."""
    if set(scales) != set(_ROWS):
        raise ValueError(f"a frame holds exactly the scales {_ROWS}")
    constants = {name: float(getattr(params, name)) for name in _CONSTANTS}
    index = {
        "scales": list(scales),
        "derive": constants,
        "schedules": [
            [
                r.reference,
                int(r.scores["KSS"].shape[0]),
                [
                    [_epoch_s(d.on_duty), _epoch_s(d.off_duty), d.first_interval]
                    + [d.interval_count, d.risk]
                    + ([[list(run) for run in d.rest]] if d.rest else [])
                    for d in r.duties
                ],
            ]
            for r in results
        ],
    }
    total = sum(int(r.scores["KSS"].shape[0]) for r in results)
    for r in results:
        if not all(np.isfinite(r.scores[code]).all() for code in _ROWS):
            raise ValueError(f"schedule {r.reference!r} has a score that is not a number")
    q = {
        code: _thousandths(np.concatenate([r.scores[code] for r in results]))
        if results
        else np.empty(0, np.int64)
        for code in _ROWS
    }
    drivers = _driver_block(results)
    if drivers is not None:
        index["drivers"] = list(DRIVER_FIELDS)
    derived = derive(q["KSS"], constants) | derive_from_vd(q["KSS"], q["VD"], constants)
    rows = np.empty((len(_ROWS), total), dtype="<i4")
    rows[0] = np.diff(q["KSS"], prepend=np.int64(0))
    rows[1] = np.diff(q["KP"], prepend=np.int64(0))
    for i, code in enumerate(_DERIVED, start=2):
        rows[i] = q[code] - derived[code]
    planes = rows.view(np.uint8).reshape(-1, 4).T.tobytes()
    if drivers is not None:
        planes += drivers.view(np.uint8).reshape(-1, 4).T.tobytes()
    head = json.dumps(index, separators=(",", ":")).encode()
    return zlib.compress(_LENGTH.pack(len(head)) + head + planes, _LEVEL)


def _driver_block(results: Sequence[ScheduleResult]) -> npt.NDArray[np.int32] | None:
    """``int32[len(DRIVER_FIELDS), duties]`` in thousandths of every duty's drivers, or
    ``None`` when a duty has none (scored without risk)."""
    duties = [d for r in results for d in r.duties]
    if not duties or any(d.drivers is None for d in duties):
        return None
    values = np.array(
        [
            [*(d.drivers.components.get(k, 0.0) for k in COMPONENT_FIELDS)]  # type: ignore[union-attr]
            + [d.drivers.kind, d.drivers.position]  # type: ignore[union-attr]
            for d in duties
        ],
        dtype=np.float64,
    )
    return np.ascontiguousarray(_thousandths(np.nan_to_num(values)).T.astype("<i4"))


def join_frames(frames: Iterable[bytes]) -> bytes:
    """The stored blob: frames in schedule order, each with its length."""
    parts = [MAGIC]
    for frame in frames:
        parts += [_LENGTH.pack(len(frame)), frame]
    return b"".join(parts)


def _spans(blob: bytes | memoryview) -> Iterator[tuple[int, int]]:
    """``(offset, length)`` of every frame of a blob held in memory."""
    at = len(MAGIC)
    while at < len(blob):
        (length,) = _LENGTH.unpack_from(blob, at)
        at += _LENGTH.size
        if at + length > len(blob):
            raise ValueError("scores blob is truncated")
        yield at, length
        at += length


def read_index(raw: bytes | memoryview) -> Any:
    """A stored JSON index, read by orjson (a month's 20 frame indexes: 0.27 -> 0.08 s),
    or by the standard library for the ``NaN`` and ``Infinity`` that ``json.dumps`` writes
    and orjson refuses."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(bytes(raw))


def frame_index(frame: bytes | memoryview) -> dict[str, Any]:
    """The JSON index of one compressed frame, decompressing only as far as the index."""
    inflate = zlib.decompressobj()
    head = inflate.decompress(frame, _LENGTH.size)
    (length,) = _LENGTH.unpack_from(head, 0)
    raw = inflate.decompress(inflate.unconsumed_tail, length)
    return dict(read_index(raw))


#: bytes of a frame read at a time while looking for the end of its index
INDEX_READ = 64 * 1024


def frame_index_raw(read: Callable[[int, int], bytes], at: int, length: int) -> bytes:
    """The JSON index (unparsed) of the frame at ``at`` read through ``read(offset,
    length)``: only as many of its bytes as hold the index (in :data:`INDEX_READ` pieces)."""
    inflate = zlib.decompressobj()
    out = bytearray()
    need: int | None = None  # the length prefix and the index [bytes], once known
    done = 0
    pending = b""
    while True:
        want = (_LENGTH.size if need is None else need) - len(out)
        if want <= 0:
            if need is None:
                (size,) = _LENGTH.unpack_from(out, 0)
                need = _LENGTH.size + size
                continue
            return bytes(out[_LENGTH.size : need])
        if not pending:
            pending = read(at + done, min(INDEX_READ, length - done)) if done < length else b""
            if not pending:
                raise ValueError("scores frame is truncated")
            done += len(pending)
        out += inflate.decompress(pending, want)
        pending = inflate.unconsumed_tail


class Decoded(NamedTuple):
    """A decoded frame or blob: scales, index rows, the float32 matrix ``(intervals,
    scales)`` and the drivers ``(duties, len(DRIVER_FIELDS))`` (``None``: not stored)."""

    scales: tuple[str, ...]
    rows: list[list[Any]]
    matrix: npt.NDArray[np.float32]
    drivers: npt.NDArray[np.float32] | None


def decode_frame(
    frame: bytes | memoryview,
    index: Mapping[str, Any] | None = None,
    scales: Sequence[str] | None = None,
) -> tuple[tuple[str, ...], list[list[Any]], npt.NDArray[np.float32]]:
    """``(scales, index rows, float32 matrix (intervals, scales))`` of one frame.

    ``index`` is the frame's already parsed index (:func:`frame_index`), which is then not
    parsed again; ``scales`` a subset of the stored scales to decode (default all), in
    that order: only the series they derive from are rebuilt.
    """
    return decode_frame_full(frame, index, scales)[:3]


def decode_frame_full(
    frame: bytes | memoryview,
    index: Mapping[str, Any] | None = None,
    scales: Sequence[str] | None = None,
) -> Decoded:
    """:func:`decode_frame` with the frame's drivers (module doc)."""
    payload = zlib.decompress(frame)
    (length,) = _LENGTH.unpack_from(payload, 0)
    if index is None:
        index = read_index(payload[_LENGTH.size : _LENGTH.size + length])
    stored = tuple(index["scales"])
    wanted = stored if scales is None else tuple(scales)
    if not set(wanted) <= set(stored):
        raise ValueError(f"scales {wanted} are not all stored ({stored})")
    planes = np.frombuffer(payload, np.uint8, offset=_LENGTH.size + length)
    drivers: npt.NDArray[np.float32] | None = None
    names = index.get("drivers")
    if names:
        total = sum(int(row[1]) for row in index["schedules"])
        cut = 4 * len(_ROWS) * total
        duties = sum(len(row[2]) for row in index["schedules"])
        extra = planes[cut:].reshape(4, -1).T.copy().view("<i4").reshape(len(names), duties)
        drivers = _driver_columns(extra, names)
        planes = planes[:cut]
    rows = planes.reshape(4, -1).T.copy().view("<i4").reshape(len(_ROWS), -1)
    del payload, planes
    q = _series(rows, index["derive"], wanted)
    block = np.empty((rows.shape[1], len(wanted)), dtype=np.float32)
    for column, code in enumerate(wanted):
        block[:, column] = q[code] / 1000.0
    return Decoded(wanted, list(index["schedules"]), block, drivers)


def _driver_columns(block: npt.NDArray[np.int32], names: Sequence[str]) -> npt.NDArray[np.float32]:
    """Stored driver rows (thousandths) as ``(duties, len(DRIVER_FIELDS))`` float32, in
    :data:`DRIVER_FIELDS` order (a field the frame lacks reads 0)."""
    out = np.zeros((block.shape[1], len(DRIVER_FIELDS)), dtype=np.float32)
    where = {name: i for i, name in enumerate(names)}
    for column, name in enumerate(DRIVER_FIELDS):
        if name in where:
            out[:, column] = block[where[name]] / 1000.0
    return out


def _series(
    rows: npt.NDArray[np.int32], constants: Mapping[str, float], wanted: Sequence[str]
) -> dict[str, IntArray]:
    """The ``wanted`` scales in thousandths, rebuilt from a frame's rows (module doc):
    only the series they derive from are computed."""
    need = set(wanted)
    q: dict[str, IntArray] = {}
    if "KP" in need:
        q["KP"] = np.cumsum(rows[1], dtype=np.int64)
    if need - {"KP"}:
        q["KSS"] = np.cumsum(rows[0], dtype=np.int64)
    if need & {"SP", "VD", "CRD", "PMR"}:
        first = derive(q["KSS"], constants)
        q["SP"] = first["SP"] + rows[2]
        q["VD"] = first["VD"] + rows[3]
    if need & {"CRD", "PMR"}:
        second = derive_from_vd(q["KSS"], q["VD"], constants)
        q["CRD"] = second["CRD"] + rows[4]
        q["PMR"] = second["PMR"] + rows[5]
    return q


def frame_spans(read: Callable[[int, int], bytes]) -> Iterator[tuple[int, int]]:
    """``(offset, length)`` of every frame of a ``VGS2`` blob read through
    ``read(offset, length)`` (which answers ``b""`` at the end), so a blob in a database
    need not be fetched whole to be walked."""
    if read(0, len(MAGIC)) != MAGIC:
        raise ValueError("not a Vigil VGS2 scores blob")
    at = len(MAGIC)
    while head := read(at, _LENGTH.size):
        if len(head) < _LENGTH.size:
            raise ValueError("scores blob is truncated")
        (length,) = _LENGTH.unpack(head)
        at += _LENGTH.size
        yield at, length
        at += length


def decode_frames(
    blob: bytes, scales: Sequence[str] | None = None
) -> tuple[tuple[str, ...], list[list[Any]], npt.NDArray[np.float32]]:
    """``(scales, index rows, float32 matrix (intervals, scales))`` of a ``VGS2`` blob
    (:func:`decode_all` without the drivers)."""
    return decode_all(blob, scales)[:3]


def decode_all(blob: bytes, scales: Sequence[str] | None = None) -> Decoded:
    """Every frame of a ``VGS2`` blob, with the drivers of its duties when every frame
    stored them.

    The matrix holds every scale's 3-decimal score as float32, as ``VGS1`` stored it (with
    ``scales``, only those columns, in that order). It is allocated once, from the frames'
    indexes, and filled frame by frame (no second copy of the roster's scores while they
    are joined: the memory budget); each index is parsed once.
    """
    if blob[: len(MAGIC)] != MAGIC:
        raise ValueError("not a Vigil VGS2 scores blob")
    view = memoryview(blob)
    spans = list(_spans(view))
    indexes = [frame_index(view[at : at + length]) for at, length in spans]
    stored = tuple(indexes[-1]["scales"]) if indexes else ()
    wanted = stored if scales is None else tuple(scales)
    total = sum(int(row[1]) for index in indexes for row in index["schedules"])
    matrix = np.empty((total, len(wanted)), dtype=np.float32)
    explained = bool(indexes) and all(index.get("drivers") for index in indexes)
    duties = sum(len(row[2]) for index in indexes for row in index["schedules"])
    drivers = np.empty((duties, len(DRIVER_FIELDS)), np.float32) if explained else None
    schedules: list[list[Any]] = []
    at = 0
    duty = 0
    for (start, length), index in zip(spans, indexes, strict=True):
        part = decode_frame_full(view[start : start + length], index, wanted)
        schedules.extend(part.rows)
        matrix[at : at + part.matrix.shape[0]] = part.matrix
        at += part.matrix.shape[0]
        if drivers is not None and part.drivers is not None:
            drivers[duty : duty + part.drivers.shape[0]] = part.drivers
            duty += part.drivers.shape[0]
    return Decoded(wanted, schedules, matrix, drivers)
