"""``vigil score --plot``: scores over time with duties shaded, sleep bars and warning levels."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vigil.domain import INTERVAL
from vigil.plot_text import plain_text
from vigil.scoring.grid import from_epoch_hours
from vigil.scoring.service import ScoreReport

if TYPE_CHECKING:
    from vigil.model.scales import ScaleInfo
    from vigil.scoring.report import ScheduleResult

#: Schedules drawn in one figure; more would be unreadable.
MAX_PANELS = 8


def plot_report(report: ScoreReport, path: Path) -> int:
    """Draw up to :data:`MAX_PANELS` schedules to ``path`` (PNG); returns panels drawn."""
    import matplotlib

    matplotlib.use("Agg")
    plain_text()  # a Reference is drawn as written (vigil.plot_text)
    import matplotlib.pyplot as plt

    from vigil.model.scales import scale_info

    info = scale_info(report.scale)
    shown = report.schedules[:MAX_PANELS]
    panels = max(len(shown), 1)
    fig, axes = plt.subplots(panels, 1, figsize=(12, 2.6 * panels + 0.6), squeeze=False)
    for ax, result in zip(axes[:, 0], shown, strict=False):
        _panel(ax, report, result, info)
    if not shown:
        axes[0, 0].text(0.5, 0.5, "no schedule scored", ha="center", va="center")
    fig.suptitle(
        f"{info.name} per 15-min interval (UTC); duties shaded, sleep as bars, "
        f"warning levels dashed - model {report.model_version}",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return len(shown)


def _panel(ax: Any, report: ScoreReport, result: ScheduleResult, info: ScaleInfo) -> None:
    """One schedule: its scores per interval over its shaded duties, sleep as bars at the
    scale's floor, the warning levels dashed; titled with its Reference and worst risk."""
    import matplotlib.dates as mdates

    scores = result.scores[report.scale]
    for duty in result.duties:
        ax.axvspan(duty.on_duty, duty.off_duty, color="#dbe9f6", zorder=0)
        times = [duty.on_duty + INTERVAL * k + INTERVAL / 2 for k in range(duty.interval_count)]
        values = scores[duty.first_interval : duty.first_interval + duty.interval_count]
        ax.plot(times, values, color="#1f4e79", lw=1.4, marker=".", ms=2)
    for episode in result.sleep:
        start, end = from_epoch_hours(episode.start), from_epoch_hours(episode.end)
        color = "#6a3d9a" if episode.source == "given" else "#b39ddb"
        ax.hlines(info.low, start, end, colors=color, lw=6, zorder=1)
    for level in info.warnings:
        ax.axhline(level, color="#c0392b", ls="--", lw=0.8)
    if result.duties:
        ax.set_xlim(
            min(d.on_duty for d in result.duties) - timedelta(hours=12),
            max(d.off_duty for d in result.duties) + timedelta(hours=6),
        )
    ax.set_ylim(info.low, info.high)
    ax.set_ylabel(f"{report.scale}{' [%]' if info.unit == '%' else ''}")
    risk = ""
    if report.risk and result.duties:
        risk = f" - max duty risk {max(d.risk or 0.0 for d in result.duties):.2f}"
    ax.set_title(f"{result.reference}{risk}", loc="left", fontsize=10)
    # matplotlib leaves DateFormatter.__init__ unannotated
    formatter = mdates.DateFormatter("%d %b\n%H:%M", tz="UTC")  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_formatter(formatter)
    ax.grid(alpha=0.3)
