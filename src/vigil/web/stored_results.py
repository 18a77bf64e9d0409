"""GetResults' scores and sleep of an uploaded roster: which schedules, and the streamed
answers. Used by :mod:`vigil.web.routes.upload`.

``schedule`` (repeatable) names schedules, answered in roster order; ``offset`` and
``limit`` then page over them; ``X-Total-Count`` is the count before paging.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import orjson
from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from sqlalchemy.orm import Session

from vigil.results.compact import StoredScores, unpack
from vigil.results.one import one_schedule
from vigil.results.stored_sleep import StoredSleep, decode_sleep, schedule_sleep
from vigil.store import results as results_store
from vigil.store import uploads
from vigil.store.results import LightResult
from vigil.web.problems import problem
from vigil.web.query import whole_number

__all__ = ["Selection", "read_selection", "scores_response", "sleep_response"]


@dataclass(frozen=True, slots=True)
class Selection:
    """Which schedules GetResults answers: named ones (``schedule=``), then a page."""

    names: tuple[str, ...]
    offset: int
    limit: int | None

    def pick(self, references: Sequence[str]) -> list[int] | JSONResponse:
        """Positions of the selected schedules in roster order, or a 404 naming the
        schedules that have no results."""
        if self.names:
            wanted = set(self.names)
            positions = [i for i, ref in enumerate(references) if ref in wanted]
            if len(positions) < len(wanted):
                return _unknown(sorted(wanted - set(references)))
        else:
            positions = list(range(len(references)))
        end = None if self.limit is None else self.offset + self.limit
        return positions[self.offset : end]

    def page(self, count: int) -> list[int]:
        """The positions of the page (``offset``, ``limit``) of ``count`` schedules."""
        end = None if self.limit is None else self.offset + self.limit
        return list(range(count))[self.offset : end]


def _unknown(missing: Sequence[str]) -> JSONResponse:
    """The 404 naming schedules without results."""
    return problem(
        404,
        f"No scored schedule {', '.join(map(repr, missing[:10]))} in this roster"
        " (a schedule with data errors is not scored: see dataKey=feedback).",
        title="Unknown schedule",
        errors=[{"property": "schedule", "message": m} for m in missing[:10]],
    )


def read_selection(request: Request) -> Selection | JSONResponse:
    """``schedule`` (repeatable), ``offset`` and ``limit`` from the query, checked."""
    names: list[str] = []
    numbers: dict[str, int] = {}
    for key, value in request.query_params.multi_items():
        name = key.lower()
        if name == "schedule":
            names.append(value)
        elif name in ("offset", "limit") and name not in numbers:
            least = 1 if name == "limit" else 0
            number = whole_number(value, least=least)
            if number is None:
                return problem(
                    400,
                    f"{key} must be a whole number of at least {least}.",
                    errors=[{"property": key, "message": "not a valid number"}],
                )
            numbers[name] = number
    return Selection(tuple(dict.fromkeys(names)), numbers.get("offset", 0), numbers.get("limit"))


#: at most this many named schedules are read one by one (only their bytes of the stored
#: blob); more are read by decoding the whole blob once
ONE_BY_ONE = 16


def scores_response(
    session: Session,
    result: LightResult,
    scale: str,
    with_sleep: bool,
    selection: Selection,
    settings_version: int | None = 0,
) -> Response:
    """The stored scores as the ProcessFatigueRisk envelope, streamed, naming the
    operator settings version the roster was scored with.

    A few named schedules (``schedule=``, at most :data:`ONE_BY_ONE`) are read alone
    (:func:`vigil.results.one.one_schedule` over byte ranges of the stored blob, and
    their segments of the sleep), so one crew member's results cost the same in a
    10,000-crew roster as in a small one; otherwise the blob is decoded whole.
    """
    names = selection.names
    if names and len(names) <= ONE_BY_ONE:
        found = _named(session, result, names, with_sleep)
        if isinstance(found, JSONResponse):
            return found
        stored, sleep = found
        picked: list[int] | JSONResponse = selection.page(len(stored.schedules))
        references: Sequence[str] = stored.references
    else:
        whole = uploads.get_result(session=session, upload_id=result.upload_id)
        assert whole is not None
        stored = unpack(whole.scores)
        references = stored.references
        picked = selection.pick(references)
        sleep = decode_sleep(result.sleep) if with_sleep and result.sleep is not None else None
    if isinstance(picked, JSONResponse):
        return picked
    parts = stored.envelope(
        scale,
        model_version=result.model_version,
        errors=json.loads(result.errors_json),
        settings_version=settings_version,
        sleep=sleep,
        only=picked,
    )
    return StreamingResponse(
        parts, media_type="application/json", headers=_total(selection, references)
    )


def _named(
    session: Session, result: LightResult, names: Sequence[str], with_sleep: bool
) -> tuple[StoredScores, dict[str, list[StoredSleep]] | None] | JSONResponse:
    """The named schedules alone, in roster order (and their sleep), or a 404 naming the
    ones without results."""
    read = results_store.scores_reader(session, result.upload_id)
    found = [one_schedule(read, name, locate=False) for name in names]
    missing = sorted(name for name, one in zip(names, found, strict=True) if one is None)
    if missing:
        return _unknown(missing)
    ones = sorted((one for one in found if one is not None), key=lambda one: one.order)
    if not ones:
        return _unknown(list(names))
    scales = ones[0].stored.scales
    stored = StoredScores(
        scales,
        [one.stored.schedules[0] for one in ones],
        np.concatenate([one.stored.matrix for one in ones]),
    )
    sleep = None
    if with_sleep and result.sleep is not None:
        blob = result.sleep
        sleep = {ref: schedule_sleep(blob, ref) for ref in stored.references}
    return stored, sleep


def _total(selection: Selection, references: Sequence[str]) -> dict[str, str]:
    """``X-Total-Count``: schedules selected before paging."""
    count = len(set(selection.names)) if selection.names else len(references)
    return {"X-Total-Count": str(count)}


def sleep_response(token: str, result: LightResult, selection: Selection) -> Response:
    """``dataKey=sleep`` (:class:`~vigil.web.schemas.SleepResultsOut`), streamed."""
    sleep = decode_sleep(result.sleep or b"")
    references = list(sleep)
    picked = selection.pick(references)
    if isinstance(picked, JSONResponse):
        return picked
    chosen = [(references[i], sleep[references[i]]) for i in picked]
    return StreamingResponse(
        _sleep_stream(token, result.model_version, chosen),
        media_type="application/json",
        headers=_total(selection, references),
    )


def _sleep_stream(
    token: str, model_version: str, chosen: Sequence[tuple[str, Sequence[StoredSleep]]]
) -> Iterator[bytes]:
    """The ``dataKey=sleep`` document in ~64 KiB pieces."""
    from vigil.scoring.report import STREAM_CHUNK, sleep_json

    head = orjson.dumps({"rosterToken": token, "modelVersion": model_version})
    buffer = [head[:-1] + b',"scheduleSleep":[']
    size = 0
    for i, (reference, episodes) in enumerate(chosen):
        entry = {"schedule": reference, "sleep": [sleep_json(e.episode()) for e in episodes]}
        piece = orjson.dumps(entry)
        buffer.append(b"," + piece if i else piece)
        size += len(piece) + 1
        if size >= STREAM_CHUNK:
            yield b"".join(buffer)
            buffer, size = [], 0
    buffer.append(b"]}")
    yield b"".join(buffer)
