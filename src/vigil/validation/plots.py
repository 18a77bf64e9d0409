"""The validation report's figures (matplotlib, Agg backend, PNG).

Each function draws one figure from :class:`~vigil.validation.scenarios.Runs` to a path.
Figures carry no timestamp or version metadata, so regenerating them from the same
inputs gives the same picture.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from vigil.validation import cases as c
from vigil.validation import scenarios as sc
from vigil.validation.scenarios import Runs, epoch_hours

_SAVE: dict[str, Any] = {"dpi": 110, "metadata": {"Software": None}}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vigil.plot_text import plain_text

    plain_text()

    return plt


def report_time(runs: Runs, path: Path) -> None:
    """Sleep in the 12 h before duty against report time, with Roach et al. 2012."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    hours = np.asarray(sc.REPORT_HOURS)
    ax.plot(
        hours,
        [c.actigraphic_before_report(runs, h) for h in hours],
        "o-",
        color="#1f4e79",
        label=f"Vigil (predicted sleep × {sc.ACTIGRAPHY_EFFICIENCY:.2f}, actigraphic)",
    )
    # Roach 2012: 5.4 h (04-05) and 6.6 h (09-10), ~15 min/h between; issue band ±0.6 h
    line = 5.4 + (hours - 4.5) * 0.25
    ax.fill_between(
        hours, line - 0.6, line + 0.6, color="#f4a582", alpha=0.35, label="Roach 2012 trend ± 0.6 h"
    )
    ax.errorbar(
        [4.5, 9.5],
        [5.4, 6.6],
        yerr=0.6,
        fmt="s",
        color="#b2182b",
        capsize=4,
        label="Roach 2012 (actigraphy)",
    )
    ax.set_xticks(range(4, 11))
    ax.set_xticklabels([f"{h:02d}:00" for h in range(4, 11)])
    _finish(
        plt,
        fig,
        ax,
        path,
        "report time (local = UTC, ACC)",
        "actigraphic sleep, 12 h before report [h]",
    )


def inflight(runs: Runs, path: Path) -> None:
    """In-flight sleep against flight length, with Gander et al. 2013."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    x = np.asarray(sc.FLIGHT_HOURS)
    ax.plot(
        x,
        [c.inflight_sleep(runs, f) for f in x],
        "o-",
        color="#1f4e79",
        label=f"Vigil (4 pilots, 2 rests, bunk, dep. {sc.DEPARTURE_HOUR:02.0f}:00)",
    )
    published = np.asarray([3.25, 3 + 53 / 60])
    where = np.asarray([sc.LONG_RANGE, sc.ULTRA_LONG_RANGE])
    ax.errorbar(
        where,
        published,
        yerr=0.5,
        fmt="s",
        color="#b2182b",
        capsize=4,
        label="Gander 2013 (LR, ULR) ± 30 min",
    )
    mid = published.mean()
    ax.plot(
        x,
        mid + (x - where.mean()) * 12.3 / 60.0,
        "--",
        color="#b2182b",
        lw=1,
        label="Gander 2013 slope, 12.3 min/h",
    )
    _finish(plt, fig, ax, path, "flight time [h]", "in-flight sleep [h]")


def _finish(plt: Any, fig: Any, ax: Any, path: Path, xlabel: str, ylabel: str) -> None:
    """Label, grid, legend, save (no metadata) and close a one-axis figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, **_SAVE)
    plt.close(fig)


def layover(runs: Runs, path: Path) -> None:
    """Sleep by local hour, day by day, on the two layover trips (local night shaded)."""
    plt = _pyplot()
    trips = (
        ("ACCHKG", "HKG", "ACC-HKG, 8 h east, 3 nights"),
        ("DOHIAH", "IAH", "DOH-IAH, 9 h west, 49.5 h (Holmes 2012)"),
    )
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    for ax, (name, away, title) in zip(axes, trips, strict=True):
        result = runs[name]
        offset = sc.UTC_OFFSET[away]
        first = math.floor((epoch_hours(result.duties[0].on_duty) + offset) / 24.0) * 24.0
        last = math.ceil((epoch_hours(result.duties[-1].off_duty) + offset) / 24.0) * 24.0
        days = int((last - first) / 24.0)
        ax.axvspan(0, 7, color="#eeeeee", zorder=0)
        ax.axvspan(23, 24, color="#eeeeee", zorder=0)
        for duty in result.duties:
            _day_bars(
                ax,
                epoch_hours(duty.on_duty) + offset,
                epoch_hours(duty.off_duty) + offset,
                first,
                "#bdbdbd",
                0.8,
            )
        for e in result.sleep:
            color = {"inflight": "#ff7f00", "nap": "#33a02c"}.get(e.kind, "#1f78b4")
            _day_bars(ax, e.start + offset, e.end + offset, first, color, 0.5)
        ax.set_xlim(0, 24)
        ax.set_ylim(days - 0.5, -0.5)
        ax.set_xticks(range(0, 25, 3))
        ax.set_xlabel(f"local time at {away} [h]")
        ax.set_ylabel("day of trip")
        ax.set_title(title, fontsize=10)
    fig.suptitle(
        "Predicted sleep (blue main, green nap, orange in-flight), duties grey, "
        "local night 23-07 shaded",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, **_SAVE)
    plt.close(fig)


def _day_bars(ax: Any, start: float, end: float, origin: float, color: str, height: float) -> None:
    """Draw ``[start, end)`` (local-clock epoch hours) as bars, one row per local day."""
    t = start
    while t < end:
        day = math.floor((t - origin) / 24.0)
        stop = min(end, origin + 24.0 * (day + 1))
        hour = t - origin - 24.0 * day
        ax.broken_barh([(hour, stop - t)], (day - height / 2, height), color=color)
        t = stop
