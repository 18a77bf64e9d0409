"""The roster dashboard's drawings: histograms and the hot-spot grid as SVG
geometry for ``roster.html``, from the stored summary (:mod:`vigil.fleet.stored`).

Plain SVG drawn by the template (no script, works offline); colours are SVG presentation
attributes, so the console's CSP (no inline styles) holds.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from vigil.settings.bands import RISK_BANDS, RiskBand

__all__ = ["BAND_FILL", "heat_colour", "histogram_bars", "hour_grid"]

#: band backgrounds behind the risk histogram (standard, elevated, high, very high)
BAND_FILL = {
    "standard": "#e3f2e5",
    "elevated": "#fff6d6",
    "high": "#fde6cc",
    "very-high": "#f9d4d1",
}
WIDTH, HEIGHT, LEFT, BOTTOM = 520.0, 190.0, 40.0, 28.0


def _nice_max(value: int) -> int:
    if value <= 5:
        return max(value, 1)
    power = 10 ** int(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        top = int(step * power)
        if top >= value:
            return top
    return value


class _Axis(NamedTuple):
    """The horizontal axis of a histogram box: values from ``lo`` over ``span`` drawn
    across ``inner_w`` pixels from the left margin."""

    lo: float
    span: float
    inner_w: float

    def x(self, value: float) -> float:
        return round(LEFT + (value - self.lo) / self.span * self.inner_w, 2)


def _bars(
    hist: dict[str, Any], edges: list[Any], top: float, axis: _Axis, inner_h: float
) -> list[dict[str, Any]]:
    """One bar per bin, its height scaled to ``top``; ``hi`` is the stored edge (``None``
    for the open bin)."""
    bars = []
    x = axis.x
    for i, count in enumerate(hist["counts"]):
        h = round(count / top * inner_h, 2)
        bars.append(
            {
                "x": x(edges[i]),
                "w": max(round(x(edges[i + 1]) - x(edges[i]) - 1, 2), 1),
                "y": round(8 + inner_h - h, 2),
                "h": h,
                "count": count,
                "lo": edges[i],
                "hi": hist["edges"][i + 1],
            }
        )
    return bars


def _band_backs(bands: tuple[RiskBand, ...], hi: float, axis: _Axis) -> list[dict[str, Any]]:
    """The background of each risk band over the part of the axis it covers."""
    backs = []
    for band in bands:
        left, right = max(band.lower, axis.lo), min(band.upper, hi)
        if right > left:
            backs.append(
                {
                    "x": axis.x(left),
                    "w": round(axis.x(right) - axis.x(left), 2),
                    "band": band.css,
                    "fill": BAND_FILL[band.css],
                }
            )
    return backs


def histogram_bars(hist: dict[str, Any], *, bands: bool | tuple[RiskBand, ...]) -> dict[str, Any]:
    """Bars of a stored histogram (``edges``, ``counts``; a ``None`` last edge is open),
    scaled into a ``WIDTH`` × ``HEIGHT`` box, with band backgrounds when ``bands`` (the
    bands in force, or ``True`` for the built-in :data:`~vigil.settings.bands.RISK_BANDS`)."""
    counts: list[int] = hist["counts"]
    edges = list(hist["edges"])
    if edges[-1] is None:  # the open bin is drawn as wide as the one before
        edges[-1] = edges[-2] + (edges[-2] - edges[-3])
    lo, hi = float(edges[0]), float(edges[-1])
    top = _nice_max(max(counts) if counts else 1)
    inner_w, inner_h = WIDTH - LEFT - 8, HEIGHT - BOTTOM - 8
    axis = _Axis(lo, (hi - lo) or 1.0, inner_w)
    in_force = RISK_BANDS if bands is True else () if bands is False else bands
    ticks = [
        {"x": axis.x(float(e)), "label": f"{float(e):g}"} for e in edges[:: max(1, len(edges) // 8)]
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "base": round(8 + inner_h, 2),
        "top": top,
        "bars": _bars(hist, edges, top, axis, inner_h),
        "backs": _band_backs(in_force, hi, axis),
        "ticks": ticks,
        "total": sum(counts),
    }


def heat_colour(value: float | None, high: float) -> str:
    """White → orange → dark red for ``0 … high``; light grey for no duties."""
    if value is None:
        return "#f2f4f7"
    f = max(0.0, min(1.0, value / high)) if high > 0 else 0.0
    stops = ((255, 255, 255), (253, 174, 97), (215, 48, 39), (120, 0, 20))
    pos = f * (len(stops) - 1)
    i = min(int(pos), len(stops) - 2)
    t = pos - i
    rgb = [round(a + (b - a) * t) for a, b in zip(stops[i], stops[i + 1], strict=True)]
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def hour_grid(
    grid: dict[str, Any], *, cell_w: float = 44.0, cell_h: float = 15.0
) -> dict[str, Any]:
    """The report hour × weekday grid of 90th-percentile risk as coloured cells."""
    values = [v for row in grid["p90"] for v in row if v is not None]
    high = max(values) if values else 1.0
    cells = []
    for h, row in enumerate(grid["p90"]):
        for w, value in enumerate(row):
            cells.append(
                {
                    "x": 46 + w * cell_w,
                    "y": 18 + h * cell_h,
                    "fill": heat_colour(value, high),
                    "n": grid["n"][h][w],
                    "mean": grid["mean"][h][w],
                    "p90": value,
                    "label": f"{grid['weekdays'][w]} {h:02d}:00",
                }
            )
    return {
        "cells": cells,
        "cell_w": cell_w,
        "cell_h": cell_h,
        "width": 46 + 7 * cell_w + 4,
        "height": 18 + 24 * cell_h + 4,
        "weekdays": grid["weekdays"],
        "high": round(high, 2),
    }
