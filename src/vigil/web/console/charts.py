"""Chart data for one schedule: the contract §4 envelope entry → what ``chart.js`` draws.

The browser draws the chart itself (``static/chart.js``, plain SVG, no library, works
offline). The server hands it, per schedule, the interval scores with their UTC start
and end, the duties (on, off, risk), the sleep the scores rest on (given or predicted)
and the scale's range and warning levels (:data:`vigil.model.SCALE_INFO`).

Times are milliseconds since the epoch (what JavaScript's ``Date`` takes). Interval
``k`` of a duty covers ``[on + 15k min, min(on + 15(k+1) min, off))`` (contract §4); the
chart plots its score at the interval's midpoint. A duty's peak, mean and intervals above
warning count only the intervals at work (its ``restIntervals`` left out,
:mod:`vigil.scoring.controls`); ``rest`` lists those runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

import numpy as np

from vigil.fleet.thresholds import Thresholds
from vigil.model import SCALE_INFO
from vigil.scoring.controls import mask_from_ranges
from vigil.settings import bands

INTERVAL_MS = 15 * 60 * 1000


def parse_instant(text: str) -> datetime:
    """A contract §8 instant (``YYYY-MM-DDTHH:MM:SSZ``) as an aware UTC datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def epoch_ms(text: str) -> int:
    return int(parse_instant(text).timestamp() * 1000)


def risk_band(
    risk: float | None, in_force: tuple[bands.RiskBand, ...] = bands.RISK_BANDS
) -> tuple[str, str]:
    """``(css class, words)`` for a duty's relative risk in the bands ``in_force`` (default
    :data:`vigil.settings.bands.RISK_BANDS`); ``("", "")`` when absent."""
    band = bands.risk_band(risk, in_force)
    return ("", "") if band is None else (band.css, band.words)


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


class _Series(NamedTuple):
    """The chart's intervals: start and end [ms since the epoch] and score (``None``: no
    value)."""

    t0: list[int]
    t1: list[int]
    v: list[float | None]

    def add(self, on: int, off: int, piece: Sequence[float | None]) -> None:
        """One duty's intervals, from ``on``, 15 minutes each, the last cut at ``off``."""
        for k, value in enumerate(piece):
            self.t0.append(on + k * INTERVAL_MS)
            self.t1.append(min(on + (k + 1) * INTERVAL_MS, off))
            self.v.append(value)


def _duty_item(
    duty: Mapping[str, Any],
    j: int,
    on: int,
    off: int,
    piece: Sequence[float | None],
    risk: float | None,
    levels: tuple[float, ...],
    in_force: tuple[bands.RiskBand, ...],
) -> dict[str, Any]:
    """The chart's summary of duty ``j`` (0-based) with its scores ``piece`` and R."""
    first, count = int(duty["firstInterval"]), int(duty["intervalCount"])
    runs = duty.get("restIntervals") or []
    # summaries count the intervals at work only (vigil.scoring.controls)
    working = mask_from_ranges(np.array([count], dtype=np.int64), [runs]).tolist()
    finite = [v for v, w in zip(piece, working, strict=True) if v is not None and w]
    band, words = risk_band(risk, in_force)
    return {
        "index": j + 1,
        "on": on,
        "off": off,
        "onText": duty["onDuty"],
        "offText": duty["offDuty"],
        "first": first,
        "count": count,
        "rest": [[int(a), int(n)] for a, n in runs],
        "risk": risk,
        "band": band,
        "bandText": words,
        "why": ", ".join(duty.get("riskReasons") or ()),  # explained responses only
        "components": duty.get("riskComponents") or {},
        "peak": max(finite) if finite else None,
        "mean": round(sum(finite) / len(finite), 3) if finite else None,
        "aboveWarning": sum(1 for v in finite if levels and v >= levels[0]),
    }


def _duties(
    entry: Mapping[str, Any], levels: tuple[float, ...], in_force: tuple[bands.RiskBand, ...]
) -> tuple[list[dict[str, Any]], _Series]:
    """Each duty's summary (:func:`_duty_item`) and every interval of the schedule."""
    scores: Sequence[Any] = entry.get("fatigueScores") or []
    risk_scores: Sequence[Any] = entry.get("riskScores") or []
    series = _Series([], [], [])
    duties: list[dict[str, Any]] = []
    for j, duty in enumerate(entry.get("duties") or []):
        on, off = epoch_ms(duty["onDuty"]), epoch_ms(duty["offDuty"])
        first, count = int(duty["firstInterval"]), int(duty["intervalCount"])
        piece = [_finite(v) for v in scores[first : first + count]]
        series.add(on, off, piece)
        risk = _finite(duty.get("risk", risk_scores[j] if j < len(risk_scores) else None))
        duties.append(_duty_item(duty, j, on, off, piece, risk, levels, in_force))
    return duties, series


def _sleep_items(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The schedule's sleep episodes (given or predicted) for the chart."""
    return [
        {
            "start": epoch_ms(s["start"]),
            "end": epoch_ms(s["end"]),
            "source": s.get("source", "predicted"),
            "kind": s.get("kind", "main"),
            "quality": _finite(s.get("quality")),
        }
        for s in entry.get("sleep") or []
    ]


def chart_payload(
    entry: Mapping[str, Any],
    scale: str,
    *,
    warnings: Sequence[float] | None = None,
    in_force: tuple[bands.RiskBand, ...] = bands.RISK_BANDS,
) -> dict[str, Any]:
    """What ``chart.js`` needs to draw one schedule.

    Parameters
    ----------
    entry : mapping
        One ``scheduleScores`` item of the contract §4 envelope on ``scale``, ideally
        from ProcessFatigueRisk with ``includeSleep`` (``riskScores``/``risk`` and
        ``sleep`` are optional).
    scale : str
        The envelope's scale code.
    warnings, in_force
        The warning levels and risk bands to show (the operator's, of the settings
        version the roster was scored with: :class:`vigil.fleet.thresholds.Thresholds`);
        by default the built-in ones.

    Returns
    -------
    dict
        ``schedule``, ``scale``, ``scaleName``, ``unit``, ``low``, ``high``,
        ``warnings``, ``t0``/``t1``/``v`` (one item per interval), ``duties`` and
        ``sleep``; JSON-serialisable, no NaN.
    """
    info = SCALE_INFO[scale]
    levels = tuple(info.warnings if warnings is None else warnings)
    duties, series = _duties(entry, levels, in_force)
    return {
        "schedule": entry.get("schedule", ""),
        "scale": scale,
        "scaleName": info.name,
        "unit": info.unit,
        "low": info.low,
        "high": info.high,
        "warnings": list(levels),
        "t0": series.t0,
        "t1": series.t1,
        "v": series.v,
        "duties": duties,
        "sleep": _sleep_items(entry),
    }


def envelope_payloads(envelope: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One chart payload per schedule of a contract §4 envelope."""
    scale = str(envelope["scale"])
    return [chart_payload(entry, scale) for entry in envelope.get("scheduleScores") or []]


def in_force(limits: Thresholds, scale: str) -> dict[str, Any]:
    """What a page says about the warning levels and risk bands it shows: the settings
    version the roster was scored with, the scale's levels and each band's span."""
    return {
        "version": limits.version,
        "default": limits.is_default,
        "scale": scale,
        "levels": ", ".join(f"{v:g}" for v in limits.warnings(scale)),
        "bands": [
            {
                "css": b.css,
                "words": b.words,
                "span": f"R < {b.upper:g}"
                if b.lower == 0
                else (f"R ≥ {b.lower:g}" if math.isinf(b.upper) else f"{b.lower:g} – {b.upper:g}"),
            }
            for b in limits.bands
        ],
    }
