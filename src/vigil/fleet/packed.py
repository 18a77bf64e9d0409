"""A roster's duty tables, packed once when its summary is built and read back in tens of
milliseconds (``roster_table.data``; docs/console.md, "Stored duty tables").

The duty explorer, the trips page and the months compared each need the roster's
:class:`~vigil.fleet.table.DutyTable`, and the last two its trips, hot spots and digest
(:class:`TripParts`). Built from the stored scores they cost seconds at airline size:
decoding the scores blob (zlib, the JSON index, one tuple per duty), joining the roster
facts per interval, grouping the trips. :func:`pack` keeps them built instead, so a first
view after a restart reads them without touching the scores.

Layout (ours, little-endian)::

    b"VGT2" | uint32 n | index (UTF-8 JSON, n bytes: [[section, length], ...]) | sections

Each section is one zstd frame, decoded only when read: ``tables`` (every packed scale's
table, the schedules' HomeBase airports, the thresholds, the model version), and
``trips.<style>`` per airport style packed. A decoded section is::

    uint32 n | header (UTF-8 JSON, n bytes) | array bytes, back to back

The header names each array (``[name, dtype, length, trailing shape, decoding]``, in the
order of the bytes) and holds the section's text and small parts. Columns that do not
depend on the scale are stored once; those that do (peak, mean, time above the level,
top of descent, the peak's instant) once per scale, as ``<scale>.<field>``. To keep the
bytes few without losing any:

- whole numbers are stored in the narrowest integer type that holds them;
- floats that are whole thousandths (the 3-decimal scores, risks and drivers) are stored
  as integer thousandths (NaN as the type's lowest value), when decoding gives back every
  value exactly, sign of zero included; other floats as they are.

Read back, every array has its table's dtype again, so a table read equals the one
packed, field for field (``tests/fleet/test_packed.py``).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
import zstandard

from vigil.fleet.compare import Digest, Groups, digest
from vigil.fleet.hot_spots import hot_spots
from vigil.fleet.table import Airports, DutyTable
from vigil.fleet.thresholds import Thresholds
from vigil.fleet.trips import Trips, group_trips

__all__ = ["MAGIC", "SCALE_FIELDS", "PackedTables", "TripParts", "pack", "read", "trip_parts"]

MAGIC = b"VGT2"
_HEAD = struct.Struct("<4sI")
_LENGTH = struct.Struct("<I")
#: zstd level: higher levels barely shrink these sections, and decompression speed
#: does not depend on the level
_LEVEL = 3
#: floats stored as whole thousandths when exact (module doc)
_MILLI = 1000.0
#: fields that change with the scale (the rest are the same on every scale)
SCALE_FIELDS = ("peak", "mean", "above_minutes", "tod", "peak_at_s")
_LISTS = ("references", "fleet", "rank", "home")
_ARRAYS = tuple(
    f.name
    for f in fields(DutyTable)
    if f.name not in {"scale", "level", "airports", "bands", *_LISTS, *SCALE_FIELDS}
)
_TRIP_ARRAYS = tuple(f.name for f in fields(Trips) if f.name not in ("sequences", "patterns"))
_GROUP_ARRAYS = ("n", "total", "upper")

Named = list[tuple[str, npt.NDArray[Any]]]


@dataclass(frozen=True, slots=True)
class TripParts:
    """What the trips page and months compared show of a duty table, for one airport
    style: its trips, hot spots (JSON-ready) and the digest months are compared by."""

    trips: Trips
    hot: dict[str, Any]
    digest: Digest


def trip_parts(t: DutyTable, bases: Sequence[Sequence[int]], style: str = "iata") -> TripParts:
    """The :class:`TripParts` of ``t`` (``bases``: each schedule's HomeBase airports)."""
    trips = group_trips(t, bases, style=style)
    return TripParts(trips, hot_spots(t, trips, style=style), digest(t, trips))


# --- arrays: narrowed without loss ---------------------------------------------------


def _int_type(lo: int, hi: int, *, reserve: bool = False) -> type[np.signedinteger[Any]]:
    """The narrowest signed type holding ``lo``..``hi`` (with ``reserve``: above its
    lowest value, which then marks NaN)."""
    for kind in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(kind)
        if (info.min < lo if reserve else info.min <= lo) and hi <= info.max:
            return kind
    return np.int64


def _thousandths(codes: npt.NDArray[Any], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """Integer thousandths back to floats of ``dtype``; the type's lowest value is NaN."""
    values = codes.astype(np.float64) / _MILLI
    if values.dtype != dtype:
        values = values.astype(dtype)
    values[codes == np.iinfo(codes.dtype).min] = np.nan
    return values


def _encode(values: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], str]:
    """``values`` narrowed without loss (module doc), and the dtype to decode them to
    (``""``: stored as they are)."""
    if values.size == 0 or values.dtype.kind not in "if":
        return values, ""
    if values.dtype.kind == "i":
        return values.astype(_int_type(int(values.min()), int(values.max()))), values.dtype.str
    finite = np.isfinite(values)
    if np.isinf(values).any():
        return values, ""
    scaled = np.rint(np.where(finite, values, 0.0).astype(np.float64) * _MILLI)
    lo, hi = (float(scaled.min()), float(scaled.max()))
    if max(-lo, hi) >= 2**31:
        return values, ""
    kind = _int_type(int(lo), int(hi), reserve=True)
    codes = np.where(finite, scaled, np.iinfo(kind).min).astype(kind)
    back = _thousandths(codes, values.dtype)
    exact = np.array_equal(back, values, equal_nan=True) and np.array_equal(
        np.signbit(back), np.signbit(values)
    )
    return (codes, values.dtype.str) if exact else (values, "")


def _decode(raw: bytes, offset: int, entry: list[Any]) -> tuple[npt.NDArray[Any], int]:
    name, dtype, size, tail, wide = entry
    kind = np.dtype(dtype)
    values = np.frombuffer(raw, dtype=kind, count=size, offset=offset)
    if not wide:
        out = values.copy()
    elif np.dtype(wide).kind == "f":
        out = _thousandths(values, np.dtype(wide))
    else:
        out = values.astype(wide)
    return (out.reshape(-1, *tail) if tail else out), offset + size * kind.itemsize


def _section(arrays: Named, header: Mapping[str, Any]) -> bytes:
    """One section: its header (with the arrays' entries) and arrays, compressed."""
    encoded = [(name, *_encode(np.ascontiguousarray(v))) for name, v in arrays]
    entries = [[name, v.dtype.str, v.size, list(v.shape[1:]), wide] for name, v, wide in encoded]
    head = orjson.dumps({**header, "arrays": entries})
    body = b"".join(v.tobytes() for _, v, _ in encoded)
    return zstandard.ZstdCompressor(level=_LEVEL).compress(_LENGTH.pack(len(head)) + head + body)


def _open(frame: bytes | memoryview) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """A section's header and arrays (:func:`_section` read back)."""
    try:
        raw = zstandard.ZstdDecompressor().decompress(frame)
    except zstandard.ZstdError as exc:
        raise ValueError("not a packed duty table") from exc
    if len(raw) < _LENGTH.size:
        raise ValueError("not a packed duty table")
    (length,) = _LENGTH.unpack_from(raw, 0)
    header = orjson.loads(raw[_LENGTH.size : _LENGTH.size + length])
    offset = _LENGTH.size + length
    arrays: dict[str, npt.NDArray[Any]] = {}
    for entry in header.pop("arrays"):
        arrays[entry[0]], offset = _decode(raw, offset, entry)
    return header, arrays


# --- sections -------------------------------------------------------------------------


def _tables_section(
    tables: Sequence[DutyTable],
    bases: Sequence[Sequence[int]],
    thresholds: Thresholds,
    model_version: str,
) -> bytes:
    first = tables[0]
    named: Named = [(n, getattr(first, n)) for n in _ARRAYS if getattr(first, n) is not None]
    for t in tables:
        if len(t) != len(first):
            raise ValueError("packed tables must hold the same duties")
        named += [(f"{t.scale}.{name}", getattr(t, name)) for name in SCALE_FIELDS]
    a = first.airports
    return _section(
        named,
        {
            "scales": {t.scale: t.level for t in tables},
            **{name: getattr(first, name) for name in _LISTS},
            "airports": [a.code, a.iata, a.icao, a.zone],
            "bases": [list(b) for b in bases],
            "thresholds": thresholds.to_json(),
            "modelVersion": model_version,
        },
    )


def _trips_section(scale: str, parts: TripParts) -> bytes:
    named: Named = [(name, getattr(parts.trips, name)) for name in _TRIP_ARRAYS]
    for group, g in parts.digest.groups.items():
        named += [(f"{group}.{name}", getattr(g, name)) for name in _GROUP_ARRAYS]
    d = parts.digest
    return _section(
        named,
        {
            "scale": scale,
            "sequences": parts.trips.sequences,
            "patterns": parts.trips.patterns,
            "hot": parts.hot,
            "digest": [d.duties, d.trips, d.band_words, d.band_css, d.band_counts],
            "labels": {group: g.labels for group, g in d.groups.items()},
        },
    )


def pack(
    tables: Sequence[DutyTable],
    *,
    bases: Sequence[Sequence[int]],
    thresholds: Thresholds,
    model_version: str,
    trips: tuple[str, Mapping[str, TripParts]] | None = None,
) -> bytes:
    """``tables`` (the same duties on different scales) as one blob, with the schedules'
    HomeBase airports (``bases``), the ``thresholds``, ``model_version`` and ``trips``:
    the scale of the table they were found on and its :class:`TripParts` per airport
    style."""
    if not tables:
        raise ValueError("no table to pack")
    sections = {"tables": _tables_section(tables, bases, thresholds, model_version)}
    scale, by_style = trips if trips is not None else ("", {})
    for style, parts in by_style.items():
        sections[f"trips.{style}"] = _trips_section(scale, parts)
    index = orjson.dumps([[name, len(frame)] for name, frame in sections.items()])
    return b"".join([_HEAD.pack(MAGIC, len(index)), index, *sections.values()])


@dataclass(frozen=True, slots=True)
class PackedTables:
    """A read blob: every packed scale's :class:`DutyTable` (:meth:`table`), the
    schedules' HomeBase airports, the thresholds and the model version; the trips
    sections are decoded when asked (:meth:`trip_parts`)."""

    header: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]]
    thresholds: Thresholds
    model_version: str
    frames: dict[str, memoryview]

    @property
    def scales(self) -> tuple[str, ...]:
        """The scales packed."""
        return tuple(self.header["scales"])

    @property
    def bases(self) -> list[list[int]]:
        """Every schedule's HomeBase airports, the home base first."""
        return list(self.header["bases"])

    def table(self, scale: str) -> DutyTable:
        """The duty table on ``scale`` (one of :attr:`scales`), as it was packed."""
        if scale not in self.header["scales"]:
            raise KeyError(f"scale {scale!r} is not packed ({', '.join(self.scales)})")
        h = self.header
        values: dict[str, Any] = {name: self.arrays.get(name) for name in _ARRAYS}
        values.update({name: self.arrays[f"{scale}.{name}"] for name in SCALE_FIELDS})
        return DutyTable(
            scale=scale,
            level=float(h["scales"][scale]),
            airports=Airports(*h["airports"]),
            bands=self.thresholds.bands,
            **{name: h[name] for name in _LISTS},
            **values,
        )

    def trip_parts(self, scale: str, style: str) -> TripParts | None:
        """The packed :class:`TripParts` of the table on ``scale`` in airport ``style``;
        ``None`` when they were not packed."""
        frame = self.frames.get(f"trips.{style}")
        if frame is None:
            return None
        h, a = _open(frame)
        if h["scale"] != scale:
            return None
        trips = Trips(
            **{name: a[name] for name in _TRIP_ARRAYS},
            sequences=h["sequences"],
            patterns=h["patterns"],
        )
        groups = {
            group: Groups(labels, *(a[f"{group}.{name}"] for name in _GROUP_ARRAYS))
            for group, labels in h["labels"].items()
        }
        duties, count, words, css, counts = h["digest"]
        found = Digest(duties, count, tuple(words), tuple(css), tuple(counts), groups)
        return TripParts(trips, h["hot"], found)


def read(blob: bytes) -> PackedTables:
    """Decode :func:`pack`'s blob (its tables section; the others when asked);
    :class:`ValueError` when it is not one."""
    if len(blob) < _HEAD.size or blob[:4] != MAGIC:
        raise ValueError("not a packed duty table")
    _, length = _HEAD.unpack_from(blob, 0)
    view = memoryview(blob)
    offset = _HEAD.size + length
    frames: dict[str, memoryview] = {}
    try:
        for name, size in orjson.loads(view[_HEAD.size : offset]):
            frames[str(name)] = view[offset : offset + int(size)]
            offset += int(size)
    except (ValueError, TypeError) as exc:
        raise ValueError("not a packed duty table") from exc
    if "tables" not in frames or offset != len(blob):
        raise ValueError("not a packed duty table")
    header, arrays = _open(frames["tables"])
    return PackedTables(
        header,
        arrays,
        Thresholds.from_json(header["thresholds"]),
        str(header["modelVersion"]),
        frames,
    )
