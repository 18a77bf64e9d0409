"""One schedule's stored sleep, without decoding the whole roster's (issue 16: chart ≤ 0.5 s).

Reads the blob of :func:`vigil.worker.stored_sleep.encode_sleep` (layout in that module's
docstring) and builds :class:`~vigil.worker.stored_sleep.StoredSleep` values for one
Reference only; :func:`vigil.worker.stored_sleep.decode_sleep` builds them for all
(hundreds of thousands of objects at airline size).
"""

from __future__ import annotations

import json
import struct
import zlib

import numpy as np

from vigil.worker.stored_sleep import StoredSleep

__all__ = ["schedule_sleep"]

_HEADER = struct.Struct("<4sI")
_RECORD = 21  #: bytes per episode: int64 start delta, int64 end, float32 quality, uint8 kind
_QUALITY_DECIMALS = 3


def schedule_sleep(blob: bytes, reference: str) -> list[StoredSleep]:
    """The sleep episodes stored for ``reference`` (empty when it has none)."""
    magic, length = _HEADER.unpack_from(blob, 0)
    if magic != b"VGZ1":
        raise ValueError("not a Vigil sleep blob")
    start = _HEADER.size
    index = json.loads(bytes(blob[start : start + length]))
    at, count = 0, -1
    for name, n in index["schedules"]:
        if name == reference:
            count = n
            break
        at += n
    if count <= 0:
        return []
    data = zlib.decompress(bytes(blob[start + length :]))
    total = len(data) // _RECORD
    deltas = np.frombuffer(data, "<i8", at + count, 0)
    starts = np.cumsum(deltas)[at:].tolist()
    ends = np.frombuffer(data, "<i8", count, 8 * total + 8 * at).tolist()
    quality = np.frombuffer(data, "<f4", count, 16 * total + 4 * at).astype(np.float64)
    kinds = np.frombuffer(data, "u1", count, 20 * total + at).tolist()
    names: list[str] = index["kinds"]
    qualities = np.round(quality, _QUALITY_DECIMALS).tolist()
    return [
        StoredSleep(int(s), int(e), names[k], q)
        for s, e, k, q in zip(starts, ends, kinds, qualities, strict=True)
    ]
