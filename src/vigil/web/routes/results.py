"""GetResults' scores and sleep of an uploaded roster: which schedules, and the streamed
answers (issue 15). Used by :mod:`vigil.web.routes.upload`.

``schedule`` (repeatable) names schedules, answered in roster order; ``offset`` and
``limit`` then page over them; ``X-Total-Count`` is the count before paging.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from vigil.store.tables import RosterResult
from vigil.web.problems import problem
from vigil.web.query import whole_number

if TYPE_CHECKING:
    from vigil.worker.stored_sleep import StoredSleep

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
                missing = sorted(wanted - set(references))
                return problem(
                    404,
                    f"No scored schedule {', '.join(map(repr, missing[:10]))} in this roster"
                    " (a schedule with data errors is not scored: see dataKey=feedback).",
                    title="Unknown schedule",
                    errors=[{"property": "schedule", "message": m} for m in missing[:10]],
                )
        else:
            positions = list(range(len(references)))
        end = None if self.limit is None else self.offset + self.limit
        return positions[self.offset : end]


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


def scores_response(
    result: RosterResult,
    scale: str,
    with_sleep: bool,
    selection: Selection,
    settings_version: int | None = 0,
) -> Response:
    """The stored scores as the ProcessFatigueRisk envelope, streamed, naming the
    operator settings version the roster was scored with (issue 18)."""
    from vigil.worker.compact import unpack
    from vigil.worker.stored_sleep import decode_sleep

    stored = unpack(result.scores)
    picked = selection.pick(stored.references)
    if isinstance(picked, JSONResponse):
        return picked
    sleep = decode_sleep(result.sleep) if with_sleep and result.sleep is not None else None
    parts = stored.envelope(
        scale,
        model_version=result.model_version,
        errors=json.loads(result.errors_json),
        settings_version=settings_version,
        sleep=sleep,
        only=picked,
    )
    return StreamingResponse(
        parts, media_type="application/json", headers=_total(selection, stored.references)
    )


def _total(selection: Selection, references: Sequence[str]) -> dict[str, str]:
    """``X-Total-Count``: schedules selected before paging."""
    count = len(set(selection.names)) if selection.names else len(references)
    return {"X-Total-Count": str(count)}


def sleep_response(token: str, result: RosterResult, selection: Selection) -> Response:
    """``dataKey=sleep`` (:class:`~vigil.web.schemas.SleepResultsOut`), streamed."""
    from vigil.worker.stored_sleep import decode_sleep

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
