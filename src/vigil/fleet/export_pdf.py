"""PDF report of a roster for a fatigue review meeting.

Pages (A4 landscape): the roster summary with the risk and peak distributions beside the
risk bands; the hot spots (report hour × weekday, duty kind, Fleet, Rank, city pairs);
the top duties; then a chart of each of the top 10 schedules (interval scores over the
month, warning level, each duty's risk). Model version and preset are printed on every
page. Drawn with matplotlib's object API (no pyplot state, safe in a server thread) into
:class:`matplotlib.backends.backend_pdf.PdfPages`.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

import numpy as np
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from vigil.contract import INTERVAL_SECONDS
from vigil.fleet.records import utc_text
from vigil.fleet.table import DutyTable
from vigil.model import SCALE_INFO
from vigil.plot_text import plain_text
from vigil.results.compact import StoredScores

# tenant names are drawn as plain text, never mathtext (vigil.plot_text)
plain_text()

__all__ = ["TOP_CHARTS", "roster_pdf"]

#: schedules charted, riskiest first
TOP_CHARTS = 10
_A4_LANDSCAPE = (11.69, 8.27)
_BAND_COLOURS = {"standard": "#e8f3e8", "elevated": "#fff4d6", "high": "#fde0c5"}
_BAND_COLOURS["very-high"] = "#f9cccc"


def _page(pdf: PdfPages, title: str, footer: str, number: int) -> Figure:
    fig = Figure(figsize=_A4_LANDSCAPE)
    fig.text(0.04, 0.95, title, fontsize=15, weight="bold")
    fig.text(0.04, 0.025, footer, fontsize=8, color="#444444")
    fig.text(0.96, 0.025, f"page {number}", fontsize=8, color="#444444", ha="right")
    return fig


def _table(
    fig: Figure,
    rect: tuple[float, float, float, float],
    header: list[str],
    rows: list[list[str]],
    title: str = "",
    widths: list[float] | None = None,
) -> None:
    ax = fig.add_axes(rect)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10, loc="left")
    if not rows:
        ax.text(0, 0.9, "none", fontsize=9)
        return
    table = ax.table(
        cellText=rows, colLabels=header, loc="upper left", cellLoc="left", colWidths=widths
    )
    table.auto_set_font_size(False)
    table.set_fontsize(7.5)
    table.scale(1, 1.15)
    for (r, _c), cell in table.get_celld().items():
        cell.set_linewidth(0.3)
        if r == 0:
            cell.set_text_props(weight="bold")
            cell.set_facecolor("#eeeeee")


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _summary_page(fig: Figure, summary: dict[str, Any]) -> None:
    counts, above, risk = summary["counts"], summary["aboveWarning"], summary["risk"]
    unit = summary["unit"]
    lines = [
        f"Schedules {counts['schedules']:,} · duties {counts['duties']:,} · "
        f"duty hours {counts['dutyHours']:,.0f}",
        f"Scale {summary['scale']} ({summary['scaleName']}); warning level "
        f"{summary['warningLevel']:g}{unit} (= KSS {summary['warningKss']:g})",
        f"Duty time at or above warning: {above['share'] * 100:.1f} % "
        f"({above['duties']:,} duties, {above['schedules']:,} schedules)",
        f"Duty risk R: median {_fmt(risk['p50'])}, 90th percentile {_fmt(risk['p90'])}, "
        f"99th {_fmt(risk['p99'])}, highest {_fmt(risk['max'])}",
    ]
    for band in summary["bands"]:
        span = (
            f"R ≥ {band['lower']}" if band["upper"] is None else f"{band['lower']}–{band['upper']}"
        )
        lines.append(
            f"  {band['words']:<11} {span:<12} {band['count']:>7,} duties "
            f"({band['share'] * 100:.1f} %)  {band.get('action', '')}"
        )
    fig.text(0.04, 0.90, "\n".join(lines), fontsize=9.5, va="top", family="monospace")
    hist = summary["riskHistogram"]
    ax = fig.add_axes((0.06, 0.1, 0.42, 0.42))
    edges = [e for e in hist["edges"] if e is not None]
    widths = np.diff(edges)
    counts_r = hist["counts"]
    ax.bar(edges[:-1], counts_r[:-1], width=widths, align="edge", color="#4a6fa5")
    ax.bar([edges[-1]], [counts_r[-1]], width=widths[-1], align="edge", color="#243b63")
    for band in summary["bands"]:  # the bands the roster is shown with (.thresholds)
        right = edges[-1] + widths[-1]
        upper = right if band["upper"] is None else min(band["upper"], right)
        ax.axvspan(band["lower"], upper, color=_BAND_COLOURS[band["band"]], zorder=0)
    ax.set_xlabel(f"duty risk R (last bar: ≥ {edges[-1]:g})")
    ax.set_ylabel("duties")
    ax.set_title("Duty risk, with the risk bands", fontsize=10)
    peak = summary["peakHistogram"]
    ax2 = fig.add_axes((0.56, 0.1, 0.4, 0.42))
    pe = peak["edges"]
    ax2.bar(pe[:-1], peak["counts"], width=np.diff(pe), align="edge", color="#7a5195")
    ax2.axvline(summary["warningLevel"], color="#c0392b", ls="--", lw=1)
    ax2.set_xlabel(f"peak {summary['scale']} of the duty{(' [' + unit + ']') if unit else ''}")
    ax2.set_title(f"Peak {summary['scale']} per duty (dashed: warning level)", fontsize=10)


def _hot_page(fig: Figure, summary: dict[str, Any]) -> None:
    hot = summary["hotSpots"]
    grid = hot["reportHour"]
    p90 = np.asarray([[np.nan if v is None else v for v in row] for row in grid["p90"]])
    ax = fig.add_axes((0.05, 0.1, 0.28, 0.8))
    image = ax.imshow(p90, aspect="auto", cmap="OrRd", origin="upper")
    ax.set_xticks(range(7), grid["weekdays"], fontsize=7)
    ax.set_yticks(range(0, 24, 2), [f"{h:02d}:00" for h in range(0, 24, 2)], fontsize=7)
    ax.set_title(
        "90th-percentile risk by report hour\n(local at start airport) × weekday", fontsize=9
    )
    fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02)
    header = ["", "duties", "mean R", "p90 R"]

    def rows(group: str, limit: int) -> list[list[str]]:
        return [[r["key"], f"{r['n']:,}", _fmt(r["mean"]), _fmt(r["p90"])] for r in hot[group]][
            :limit
        ]

    _table(fig, (0.42, 0.62, 0.24, 0.28), ["Duty kind", *header[1:]], rows("dutyKind", 4))
    _table(fig, (0.42, 0.33, 0.24, 0.24), ["Fleet", *header[1:]], rows("fleet", 8))
    _table(fig, (0.42, 0.05, 0.24, 0.24), ["Rank", *header[1:]], rows("rank", 8))
    _table(fig, (0.71, 0.05, 0.26, 0.85), ["City pair", *header[1:]], rows("cityPair", 28))


def _top_duties_page(fig: Figure, summary: dict[str, Any]) -> None:
    header = [
        "Schedule",
        "Duty",
        "Report (UTC)",
        "Off (UTC)",
        "Route",
        "Sectors",
        "Kind",
        f"Peak {summary['scale']}",
        "Risk R",
        "What drives it",
    ]
    rows = [
        [
            d["reference"],
            str(d["duty"]),
            utc_text(d["onUtc"]),
            utc_text(d["offUtc"]),
            d["route"],
            str(d["sectors"]),
            d["kind"],
            _fmt(d["peak"]),
            _fmt(d["risk"]),
            # the API's words; the sleep's window is the column's note, not each cell's
            ", ".join(d.get("reasons") or ()).replace(" in the 24 h before report", ""),
        ]
        for d in summary["topDuties"]
    ]
    widths = [0.07, 0.035, 0.09, 0.09, 0.07, 0.045, 0.045, 0.05, 0.04, 0.465]
    _table(fig, (0.04, 0.12, 0.92, 0.78), header, rows, widths=widths)
    fig.text(
        0.04,
        0.07,
        "What drives it: the risk model's reasons (ProcessFatigueRisk's riskReasons); "
        "short sleep counts the 24 h before report.",
        fontsize=8,
    )


def _schedule_chart(
    fig: Figure,
    rect: tuple[float, float, float, float],
    t: DutyTable,
    stored: StoredScores,
    index: int,
    offsets: np.ndarray,
) -> None:
    """Interval scores of schedule ``index`` over time, each duty's risk above it."""
    info = SCALE_INFO[t.scale]
    column = stored.scales.index(t.scale)
    ax = fig.add_axes(rect)
    duties = np.flatnonzero(t.sched == index)
    entry = stored.schedules[index]
    base = int(offsets[index])
    for row, duty in zip(duties.tolist(), entry.duties, strict=True):
        on, _off, first, count, risk, _rest = duty
        values = stored.matrix[base + first : base + first + count, column]
        hours = (on + INTERVAL_SECONDS * np.arange(count) + INTERVAL_SECONDS / 2) / 86400.0
        ax.plot(hours, values, color="#4a6fa5", lw=1)
        ax.axvspan(on / 86400.0, int(t.off_s[row]) / 86400.0, color="#eeeeee", zorder=0)
        if risk is not None:
            ax.text(on / 86400.0, info.high, f"{risk:.1f}", fontsize=6, va="top", color="#555555")
    ax.axhline(t.level, color="#c0392b", ls="--", lw=0.8)
    ax.set_ylim(info.low, info.high * 1.02)
    ticks = ax.get_xticks()
    ax.set_xticks(
        ticks, [datetime.fromtimestamp(x * 86400, UTC).strftime("%d %b") for x in ticks], fontsize=7
    )
    ax.tick_params(axis="y", labelsize=7)
    ax.set_ylabel(t.scale, fontsize=8)
    ax.set_title(
        f"{t.references[index]} · {t.fleet[index]} {t.rank[index]} (each duty's risk R at the top)",
        fontsize=9,
        loc="left",
    )


def roster_pdf(
    t: DutyTable,
    stored: StoredScores,
    summary: dict[str, Any],
    schedules: dict[str, list[Any]],
    *,
    roster_name: str,
    model_version: str,
    preset: str,
) -> bytes:
    """The report as PDF bytes (tenant names drawn as plain text: :mod:`vigil.plot_text`)."""
    plain_text()
    footer = (
        f"Vigil fatigue report · roster {roster_name} · model {model_version} · preset {preset}"
        f" · scale {summary['scale']} · generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    out = io.BytesIO()
    number = 0
    with PdfPages(
        out, metadata={"Title": f"Vigil report: {roster_name}", "Creator": "Vigil"}
    ) as pdf:

        def page(title: str) -> Figure:
            nonlocal number
            number += 1
            return _page(pdf, title, footer, number)

        fig = page(f"Roster {roster_name}: summary")
        _summary_page(fig, summary)
        pdf.savefig(fig)
        fig = page("Hot spots: mean and 90th-percentile duty risk")
        _hot_page(fig, summary)
        pdf.savefig(fig)
        fig = page(f"Top {len(summary['topDuties'])} duties by risk")
        _top_duties_page(fig, summary)
        pdf.savefig(fig)
        risk = np.asarray([r if r is not None else -1.0 for r in schedules["maxRisk"]])
        top = np.argsort(-risk, kind="stable")[:TOP_CHARTS].tolist()
        offsets = np.concatenate(([0], np.cumsum([s.interval_count for s in stored.schedules])))
        for k in range(0, len(top), 2):
            fig = page(f"Top schedules by highest duty risk ({k + 1}–{min(k + 2, len(top))})")
            for j, index in enumerate(top[k : k + 2]):
                _schedule_chart(fig, (0.07, 0.55 - 0.44 * j, 0.88, 0.33), t, stored, index, offsets)
            pdf.savefig(fig)
    return out.getvalue()
