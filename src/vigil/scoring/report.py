"""Scores as results and the one builder of the contract §4 response envelope.

Every response that carries scores is built here, from the score arrays: the
synchronous API and ``vigil score`` (:meth:`ScoreReport.to_json`), the upload path's
GetResults stream (:func:`stream_envelope` over stored results) and the console's charts
(:func:`schedule_entry`). Encoding is orjson throughout (NumPy arrays serialised
directly), so the same results give the same bytes on every path.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import orjson

from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, SleepEpisode
from vigil.scoring.request import ScoringError

if TYPE_CHECKING:
    from vigil.scoring.duty_risk import RiskDrivers

__all__ = [
    "DutyResult",
    "ScheduleResult",
    "ScoreReport",
    "envelope",
    "iso",
    "schedule_entry",
    "sleep_json",
    "stream_envelope",
]

_NUMPY = orjson.OPT_SERIALIZE_NUMPY
#: Bytes gathered before a streamed write.
STREAM_CHUNK = 65536


class DutyResult(NamedTuple):
    """One duty's slice of its schedule's scores (contract §4 ``duties``).

    A named tuple: a 10,000-crew month makes 280,000 of them, at a fifth of a frozen
    dataclass's construction cost.
    """

    on_duty: datetime
    off_duty: datetime
    first_interval: int
    interval_count: int
    risk: float | None = None
    #: the crew member's own rest in the duty as ``(first, count)`` runs of its intervals
    #: (relative to the duty), left out of every summary (:mod:`vigil.scoring.controls`)
    rest: tuple[tuple[int, int], ...] = ()
    #: what drives ``risk``: components and plain-word reasons (:mod:`.duty_risk`)
    drivers: RiskDrivers | None = None


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    """Scores of one schedule: one array per computed scale, intervals concatenated."""

    reference: str
    scores: Mapping[str, FloatArray]
    duties: tuple[DutyResult, ...]
    #: a tuple, or the scorer's lazy rows (:class:`vigil.scoring.sleep_arrays.EpisodeRows`)
    sleep: Sequence[SleepEpisode] = ()


@functools.lru_cache(maxsize=65536)
def iso(instant: datetime) -> str:
    """UTC ``YYYY-MM-DDTHH:MM:SSZ`` (contract §8 Formats).

    Cached: a roster's duties share few distinct instants (a month has 40,320 minutes),
    and formatting is most of the envelope's cost for a large roster.
    """
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sleep_json(episode: SleepEpisode) -> dict[str, object]:
    """One ``includeSleep`` entry (contract §4)."""
    return {
        "start": iso(grid.from_epoch_hours(episode.start)),
        "end": iso(grid.from_epoch_hours(episode.end)),
        "source": episode.source,
        "kind": episode.kind,
        "quality": round(episode.quality, 3),
    }


def _duty_item(duty: DutyResult, *, risk: bool, explain: bool) -> dict[str, object]:
    """One entry of a ``scheduleScores`` entry's ``duties`` (contract §4)."""
    item: dict[str, object] = {
        "onDuty": iso(duty.on_duty),
        "offDuty": iso(duty.off_duty),
        "firstInterval": duty.first_interval,
        "intervalCount": duty.interval_count,
    }
    if risk:
        item["risk"] = duty.risk
        if explain and duty.drivers is not None:
            item["riskComponents"] = duty.drivers.components
            item["riskReasons"] = list(duty.drivers.reasons)
    if duty.rest:
        item["restIntervals"] = [list(run) for run in duty.rest]
    return item


def schedule_entry(
    result: ScheduleResult,
    scale: str,
    *,
    risk: bool,
    include_sleep: bool = False,
    arrays: bool = True,
    explain: bool = False,
    percentiles: bool = False,
) -> dict[str, object]:
    """One ``scheduleScores`` entry (contract §4) on ``scale``.

    ``explain`` (with ``risk``) adds each duty's ``riskComponents`` and ``riskReasons``
    where the results carry them (scored now; stored results do not). ``percentiles``
    adds the population percentiles of :func:`percentile_block` (needs the KSS scores).

    With ``arrays=True`` the scores stay a NumPy array (for orjson); otherwise a list of
    floats (for templates and Python callers).
    """
    if scale not in result.scores:
        raise ScoringError(f"scale {scale!r} was not computed for this report")
    scores = result.scores[scale]
    entry: dict[str, object] = {
        "schedule": result.reference,
        "fatigueScores": scores if arrays else scores.tolist(),
    }
    if risk:
        entry["riskScores"] = [d.risk for d in result.duties]
    duties = [_duty_item(duty, risk=risk, explain=explain) for duty in result.duties]
    entry["duties"] = duties
    if percentiles and "KSS" in result.scores:
        block, per_duty = percentile_block(result)
        entry["percentiles"] = block
        for item, summary in zip(duties, per_duty, strict=True):
            item["percentileSummary"] = summary
    if include_sleep:
        entry["sleep"] = [sleep_json(s) for s in result.sleep]
    return entry


def percentile_block(
    result: ScheduleResult,
) -> tuple[dict[str, list[float]], list[dict[str, float]]]:
    """Ingre et al. 2014's population percentiles of a schedule (``vigil.model.percentiles``).

    Per interval, from the average crew member's interval KSS: the KSS limits of 50, 75
    and 90 % of crew (``kss50``, ``kss75``, ``kss90``) and P(KSS ≥ 7), P(KSS ≥ 8) in %
    (``pKss7``, ``pKss8``). Per duty: the highest 90 % limit and the mean and highest
    P(KSS ≥ 7) and P(KSS ≥ 8).
    """
    from vigil.model.percentiles import kss_at_least, kss_limit

    kss = np.asarray(result.scores["KSS"], dtype=np.float64)
    block = {f"kss{p}": kss_limit(kss, p) for p in (50, 75, 90)}
    block |= {f"pKss{k}": 100.0 * kss_at_least(kss, k) for k in (7, 8)}
    per_duty: list[dict[str, float]] = []
    for duty in result.duties:
        part = slice(duty.first_interval, duty.first_interval + duty.interval_count)
        per_duty.append(
            {
                "maxKss90": round(float(block["kss90"][part].max()), 3),
                "meanPKss7": round(float(block["pKss7"][part].mean()), 3),
                "maxPKss7": round(float(block["pKss7"][part].max()), 3),
                "meanPKss8": round(float(block["pKss8"][part].mean()), 3),
                "maxPKss8": round(float(block["pKss8"][part].max()), 3),
            }
        )
    return {k: v.round(3).tolist() for k, v in block.items()}, per_duty


def envelope(
    scale: str,
    model_version: str,
    entries: list[dict[str, object]],
    errors: Sequence[str],
    settings_version: int | None = 0,
) -> dict[str, object]:
    """The contract §4 envelope around built ``scheduleScores`` entries.

    ``settings_version`` is the operator settings version the scores were
    computed with (0: the built-in defaults), written as ``settingsVersion`` beside
    ``modelVersion``; ``None`` leaves the field out.
    """
    out: dict[str, object] = {"scale": scale, "modelVersion": model_version}
    if settings_version is not None:
        out["settingsVersion"] = settings_version
    out["scheduleScores"] = entries
    out["errors"] = list(errors)
    return out


def stream_envelope(
    results: Iterable[ScheduleResult],
    scale: str,
    *,
    model_version: str,
    errors: Sequence[str],
    risk: bool,
    include_sleep: bool = False,
    settings_version: int | None = 0,
    explain: bool = False,
    percentiles: bool = False,
) -> Iterator[bytes]:
    """The contract §4 envelope as UTF-8 JSON in ~64 KiB pieces, one schedule at a time.

    Joined, the pieces equal :meth:`ScoreReport.to_json` for the same results, so a
    10,000-crew roster streams without building one huge document in memory.
    """
    head = orjson.dumps(envelope(scale, model_version, [], (), settings_version))
    cut = head.index(b'"scheduleScores":[') + len(b'"scheduleScores":[')
    buffer = [head[:cut]]
    size = cut
    for i, result in enumerate(results):
        entry = schedule_entry(
            result,
            scale,
            risk=risk,
            include_sleep=include_sleep,
            explain=explain,
            percentiles=percentiles,
        )
        piece = orjson.dumps(entry, option=_NUMPY)
        buffer.append(b"," + piece if i else piece)
        size += len(piece) + 1
        if size >= STREAM_CHUNK:
            yield b"".join(buffer)
            buffer, size = [], 0
    buffer.append(b'],"errors":' + orjson.dumps(list(errors)) + b"}")
    yield b"".join(buffer)


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """Everything a response needs (contract §4)."""

    scale: str
    model_version: str
    schedules: tuple[ScheduleResult, ...]
    errors: tuple[str, ...]
    risk: bool = False
    include_sleep: bool = False
    settings_version: int | None = 0  #: operator settings version
    explain: bool = False  #: add each duty's risk components and reasons (opt-in)
    percentiles: bool = False  #: add Ingre 2014's population percentiles (opt-in)

    def to_json(self, scale: str | None = None) -> bytes:
        """The contract §4 envelope as UTF-8 JSON, encoded straight from the score arrays."""
        return orjson.dumps(self.to_envelope(scale, arrays=True), option=_NUMPY)

    def stream_json(self, scale: str | None = None) -> Iterator[bytes]:
        """:meth:`to_json` in ~64 KiB pieces (:func:`stream_envelope`): a file writer
        never holds the whole document (46 MB for a 10,000-crew month)."""
        return stream_envelope(
            self.schedules,
            scale or self.scale,
            model_version=self.model_version,
            errors=self.errors,
            risk=self.risk,
            include_sleep=self.include_sleep,
            settings_version=self.settings_version,
            explain=self.explain,
            percentiles=self.percentiles,
        )

    def to_envelope(self, scale: str | None = None, *, arrays: bool = False) -> dict[str, object]:
        """The contract §4 JSON envelope, on ``scale`` (default: the requested one).

        With ``arrays=True`` the scores stay NumPy arrays (for :meth:`to_json`); otherwise
        they are lists of floats.
        """
        scale = scale or self.scale
        entries = [
            schedule_entry(
                r,
                scale,
                risk=self.risk,
                include_sleep=self.include_sleep,
                arrays=arrays,
                explain=self.explain,
                percentiles=self.percentiles,
            )
            for r in self.schedules
        ]
        return envelope(scale, self.model_version, entries, self.errors, self.settings_version)
