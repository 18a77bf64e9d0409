"""One schedule of a stored scores blob, read without decoding the others.

:func:`vigil.results.compact.unpack` builds an index entry for every duty of the roster
(136,000 at 10,000 crew); a chart needs one schedule. :func:`one_schedule` finds it and
decodes only what holds it, so a chart page stays well under the issue's 0.5 s at airline
size: in a ``VGS1`` blob, it parses the JSON index with orjson, keeps one entry and slices
its rows of the score matrix; in a ``VGS2`` blob (:mod:`vigil.results.frames`, what workers
store now), it reads each frame's index (decompressing no further) and decodes the one
frame that holds the schedule.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np
import orjson

from vigil.results import frames
from vigil.results.compact import IndexedSchedule, StoredScores

__all__ = ["OneSchedule", "one_schedule", "schedules_with_duty"]

_HEADER = struct.Struct("<4sI")
_DTYPE = np.dtype("<f4")


@dataclass(frozen=True, slots=True)
class OneSchedule:
    """A one-schedule :class:`StoredScores` and where its duties sit in the roster."""

    stored: StoredScores
    position: int  #: the schedule's position in the roster (-1: not located)
    first_duty: int  #: its first duty's position among all the roster's duties (-1: idem)
    #: a key in roster order (frame, position in it), known even when not located
    order: tuple[int, int] = (0, 0)


#: ``read(offset, length) -> bytes`` of a stored blob (bytes slicing, or SQL ``substr``)
Reader = Callable[[int, int], bytes]


def one_schedule(
    blob: bytes | Reader,
    reference: str,
    where: tuple[int, int, int] | None = None,
    *,
    locate: bool = True,
) -> OneSchedule | None:
    """The stored scores of ``reference`` alone; ``None`` when the roster has none.

    ``blob`` is the whole blob, or a reader of byte ranges of it (so a database need not
    send the whole roster's scores: :func:`vigil.store.results.scores_reader`). With
    ``where`` = (position, first matrix row, first duty) from the stored summary's facts,
    only that schedule's entry of the JSON index is decoded. With ``locate=False`` the
    schedule's position and first duty are not counted (``-1``; :attr:`OneSchedule.order`
    still sorts schedules in roster order), so in a ``VGS2`` blob the other frames'
    indexes are only searched for the Reference, never parsed.
    """
    read: Reader = blob if callable(blob) else (lambda at, n: bytes(blob[at : at + n]))
    magic, length = _HEADER.unpack(read(0, _HEADER.size))
    if magic == frames.MAGIC:
        return _from_frames(read, reference, locate)
    if magic != b"VGS1":
        raise ValueError("not a Vigil scores blob")
    raw = read(_HEADER.size, length)
    if where is not None:
        found = _entry(raw, reference)
        if found is not None:
            scales, schedule = found
            position, row, duty = where
            return _one(read, length, scales, schedule, row, position, duty)
    return _from_index(read, raw, length, reference)


def _one(
    read: Reader,
    length: int,
    scales: tuple[str, ...],
    schedule: IndexedSchedule,
    row: int,
    position: int,
    duty: int,
) -> OneSchedule:
    """``schedule``'s scores from a ``VGS1`` blob whose JSON index is ``length`` bytes:
    its rows of the matrix from ``row`` on, read alone."""
    width = len(scales) * _DTYPE.itemsize
    data = read(_HEADER.size + length + row * width, schedule.interval_count * width)
    matrix = np.frombuffer(data, dtype=_DTYPE).reshape(-1, len(scales))
    return OneSchedule(StoredScores(scales, [schedule], matrix), position, duty, (0, position))


def _from_index(read: Reader, raw: bytes, length: int, reference: str) -> OneSchedule | None:
    """:func:`one_schedule` in a ``VGS1`` blob by parsing its whole JSON index ``raw``
    (``length`` bytes): the schedule's matrix row and first duty are the counts of the
    entries before it."""
    index = orjson.loads(raw)
    scales = tuple(index["scales"])
    row = duty = 0
    for position, entry in enumerate(index["schedules"]):
        if entry[0] == reference:
            return _one(read, length, scales, IndexedSchedule.from_json(entry), row, position, duty)
        row += int(entry[1])
        duty += len(entry[2])
    return None


def _from_frames(read: Reader, reference: str, locate: bool) -> OneSchedule | None:
    """:func:`one_schedule` in a ``VGS2`` blob: one frame read and decoded; of the others,
    only the first bytes that hold their index are read (and parsed only to locate)."""
    # how the frame's index (``json.dumps``, ASCII) writes the start of the schedule's entry
    marker = b"[" + json.dumps(reference).encode() + b","
    position = duty = 0
    for number, (at, length) in enumerate(frames.frame_spans(read)):
        raw = frames.frame_index_raw(read, at, length)
        if not locate and marker not in raw:
            continue
        index = dict(frames.read_index(raw))
        rows = index["schedules"]
        names = [row[0] for row in rows]
        if reference not in names:
            position += len(rows)
            duty += sum(len(row[2]) for row in rows)
            continue
        part = frames.decode_frame_full(read(at, length), index)
        scales, rows, matrix = part.scales, part.rows, part.matrix
        k = names.index(reference)
        first = sum(int(row[1]) for row in rows[:k])
        schedule = IndexedSchedule.from_json(rows[k])
        block = matrix[first : first + schedule.interval_count]
        before = sum(len(row[2]) for row in rows[:k])
        duty += before
        why = part.drivers
        if why is not None:  # the schedule's duties' stored risk drivers
            why = why[before : before + len(schedule.duties)]
        one = StoredScores(scales, [schedule], block, why)
        if not locate:
            return OneSchedule(one, -1, -1, (number, k))
        return OneSchedule(one, position + k, duty, (number, k))
    return None


def _entry(raw: bytes, reference: str) -> tuple[tuple[str, ...], IndexedSchedule] | None:
    """The scales and ``reference``'s entry of a JSON index, decoding only those."""
    text = raw.decode()
    decoder = json.JSONDecoder()
    at = text.find('"scales":')
    if at < 0:
        return None
    scales, _ = decoder.raw_decode(text, at + len('"scales":'))
    at = text.find("[" + json.dumps(reference) + ",")
    if at < 0:
        return None
    entry, _ = decoder.raw_decode(text, at)
    if not isinstance(entry, list) or entry[0] != reference:
        return None
    return tuple(scales), IndexedSchedule.from_json(entry)


def schedules_with_duty(blob: bytes | Reader, spans: Collection[tuple[int, int]]) -> list[str]:
    """References of the stored schedules with a duty reported and off at exactly one of
    ``spans`` (``(on_s, off_s)``, seconds since the epoch), in roster order.

    Finds the crew of a duty without parsing the roster: in a ``VGS2`` blob each frame's
    index (its first bytes only) is searched for the duty's ``[on_s,off_s,`` as the index
    writes it, and only a frame where it occurs is parsed to check whose duty it is.
    """
    wanted = {(int(on), int(off)) for on, off in spans}
    if not wanted:
        return []
    read: Reader = blob if callable(blob) else (lambda at, n: bytes(blob[at : at + n]))
    magic, length = _HEADER.unpack(read(0, _HEADER.size))
    if magic == frames.MAGIC:
        markers = [b"[%d,%d," % pair for pair in sorted(wanted)]
        raws = (frames.frame_index_raw(read, at, n) for at, n in frames.frame_spans(read))
        rows = [
            row
            for raw in raws
            if any(m in raw for m in markers)
            for row in frames.read_index(raw)["schedules"]
        ]
    elif magic == b"VGS1":
        rows = orjson.loads(read(_HEADER.size, length))["schedules"]
    else:
        raise ValueError("not a Vigil scores blob")
    return [str(row[0]) for row in rows if any((int(d[0]), int(d[1])) in wanted for d in row[2])]
