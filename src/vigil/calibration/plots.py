"""The calibration plot (SVG for the console) and the PDF report (matplotlib PdfPages)."""

from __future__ import annotations

import io
import textwrap
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from vigil.calibration.observations import INSTRUMENTS  # noqa: E402
from vigil.calibration.report import CalibrationReport  # noqa: E402
from vigil.plot_text import plain_text  # noqa: E402

# names (observation sets, References) are drawn as plain text, never mathtext; set at
# import so that every rc_context entered here saves it and restores it (vigil.plot_text)
plain_text()

__all__ = ["calibration_figure", "draw_calibration", "plot_svg", "report_pdf"]


def draw_calibration(ax: Axes, report: CalibrationReport, instrument: str) -> None:
    """Observed against predicted on ``ax``: every rating (light), binned means ± SD, the
    identity line and, when fitted, the operator's line. Text is drawn without mathtext."""
    low, high = INSTRUMENTS[instrument]
    matched = report.by_instrument(instrument)
    ax.scatter(
        [m.predicted for m in matched],
        [m.observation.value for m in matched],
        s=8,
        alpha=0.25,
        color="#7a8ba8",
        label=f"ratings (n = {len(matched)})",
    )
    bins = report.bins(instrument)
    ax.errorbar(
        [b["meanPredicted"] for b in bins],
        [b["meanObserved"] for b in bins],
        yerr=[b["sdObserved"] or 0.0 for b in bins],
        fmt="o-",
        color="#c0392b",
        label="binned mean ± SD",
    )
    ax.plot([low, high], [low, high], "k--", linewidth=1, label="perfect agreement")
    fit = report.fits.get(instrument)
    if fit is not None and fit.slope == fit.slope:
        ax.plot(
            [low, high],
            [fit.intercept + fit.slope * low, fit.intercept + fit.slope * high],
            color="#27ae60",
            label=f"fit: {fit.intercept:.2f} + {fit.slope:.2f}·predicted",
        )
    ax.set_xlim(low - 0.5, high + 0.5)
    ax.set_ylim(low - 0.5, high + 0.5)
    ax.set_xlabel(f"predicted {instrument} (model {report.model_version})", parse_math=False)
    ax.set_ylabel(f"observed {instrument}", parse_math=False)
    ax.set_title(
        f"Calibration, {instrument} ("
        + (
            "built-in settings"
            if report.settings_version is None
            else f"settings version {report.settings_version}"
        )
        + ")",
        parse_math=False,
    )
    legend = ax.legend(loc="upper left", fontsize=8)
    for text in legend.get_texts():
        text.set_parse_math(False)
    ax.grid(alpha=0.3)


def calibration_figure(report: CalibrationReport, instrument: str) -> Figure:
    """The calibration plot of one instrument as its own figure (:func:`draw_calibration`)."""
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    draw_calibration(ax, report, instrument)
    fig.tight_layout()
    return fig


def plot_svg(report: CalibrationReport, instrument: str) -> bytes:
    """The calibration plot as SVG (no dates in the file: the same report, the same bytes)."""
    with matplotlib.rc_context({"svg.hashsalt": "vigil-calibration"}):  # stable element ids
        fig = calibration_figure(report, instrument)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(fig)
    return buffer.getvalue()


#: A4 portrait [inch]
_A4 = (8.27, 11.69)
_LEFT = 0.07


def _text(fig: Figure, y: float, text: str, *, size: float, width: int, **kw: Any) -> float:
    """Wrapped text from the top at ``y`` (figure fraction), no mathtext (tenant text may
    hold ``$``); returns the ``y`` below it."""
    lines = [w for part in text.split("\n") for w in (textwrap.wrap(part, width) or [""])]
    fig.text(_LEFT, y, "\n".join(lines), fontsize=size, va="top", parse_math=False, **kw)
    return y - len(lines) * size * 1.45 / 72 / _A4[1] - 0.012


def _table(
    fig: Figure, top: float, rows: list[list[str]], widths: list[float], *, header: bool
) -> float:
    """A plain table from ``top`` down; returns the ``y`` below it."""
    row_h = 0.021
    height = row_h * len(rows)
    ax = fig.add_axes((_LEFT, top - height, 1 - 2 * _LEFT, height))
    ax.axis("off")
    table = ax.table(cellText=rows, colWidths=widths, loc="upper left", cellLoc="left")
    table.auto_set_font_size(False)
    table.set_fontsize(8.5)
    for (row, _), cell in table.get_celld().items():
        cell.get_text().set_parse_math(False)
        cell.set_height(1.0 / len(rows))
        cell.set_edgecolor("#c8ccd4")
        if header and row == 0:
            cell.set_facecolor("#eef1f6")
            cell.get_text().set_fontweight("bold")
    return top - height - 0.02


def _ci(lo: float, hi: float) -> str:
    return f"{_sign(lo)} to {_sign(hi)}"


def _sign(x: float | None, digits: int = 2) -> str:
    if x is None or x != x:
        return "–"
    return f"{'−' if x < 0 else '+'}{abs(x):.{digits}f}"


def _share(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f} %"


def _headline(report: CalibrationReport, data: dict[str, Any]) -> list[list[str]]:
    """The headline figures of page one."""
    rows = [["Figure", "Value"]]
    for instrument, scale in data["scales"].items():
        g = scale["overall"]
        crew = len({m.observation.reference for m in report.by_instrument(instrument)})
        rows.append([f"{instrument} ratings compared", f"{g['n']} from {crew} crew members"])
        rows.append(
            [
                f"{instrument} mean difference (observed − predicted)",
                f"{_sign(g['bias'])} ({instrument} points)",
            ]
        )
        rows.append(
            [
                f"{instrument} RMSE; within ±1 / ±2 points",
                f"{g['rmse']:.2f}; {_share(g['within1'])} / {_share(g['within2'])}",
            ]
        )
    fit = report.fits.get("KSS")
    if fit is not None:
        rows.append(["KSS bias, 95 % interval", _ci(*fit.bias_ci)])
        if fit.slope == fit.slope:
            rows.append(
                [
                    "KSS fitted line (slope 95 % interval)",
                    f"observed = {_sign(fit.intercept)} + {fit.slope:.2f} × predicted "
                    f"({fit.slope_ci[0]:.2f} to {fit.slope_ci[1]:.2f})",
                ]
            )
        test = "no evidence of miscalibration" if fit.calibrated else "miscalibrated"
        rows.append(["Statistical test (bias CI holds 0, slope CI holds 1)", test])
        offered = fit.name if fit.enough else f"none: {fit.why_not}"
        rows.append(["Preset offered", textwrap.shorten(offered, 70, placeholder="…")])
    rows.append(
        [
            "Not compared; input errors",
            f"{len(data['observationsNotCompared'])}; {len(data['inputErrors'])}",
        ]
    )
    rows.append(["Actual sleep used for", f"{len(data['actualSleepFor'])} crew members"])
    version = data["settingsVersion"]
    rows.append(
        [
            "Model; operator settings version",
            f"{data['modelVersion']}; {'built-in' if version is None else version}",
        ]
    )
    return rows


def _group_rows(groups: list[dict[str, Any]], first: str) -> list[list[str]]:
    rows = [[first, "n", "Bias", "RMSE", "Within ±1", "Within ±2"]]
    for g in groups:
        rows.append(
            [
                str(g["label"]),
                str(g["n"]),
                _sign(g["bias"]),
                "–" if g["rmse"] is None else f"{g['rmse']:.2f}",
                _share(g["within1"]),
                _share(g["within2"]),
            ]
        )
    return rows


def _detail_blocks(data: dict[str, Any]) -> list[tuple[str, list[list[str]], list[float]]]:
    widths = [0.34, 0.12, 0.14, 0.14, 0.13, 0.13]
    blocks = []
    for instrument, scale in data["scales"].items():
        for key, heading, first in (
            ("byTimeOfDay", "by time of day (home-base local)", "Time of day"),
            ("byHoursOnDuty", "by hours on duty", "Hours on duty"),
            ("byDutyType", "by duty type", "Duty type"),
        ):
            blocks.append((f"{instrument} {heading}", _group_rows(scale[key], first), widths))
    sleep = [["Break type", "Breaks", "Actual h", "Predicted h", "Actual − predicted"]]
    for s in data["sleep"]:
        sleep.append(
            [
                s["breakType"],
                str(s["breaks"]),
                f"{s['actualHours']:.2f}",
                f"{s['predictedHours']:.2f}",
                _sign(s["biasHours"]),
            ]
        )
    if len(sleep) > 1:
        blocks.append(("Sleep: actual against predicted, hours per break", sleep, widths[:5]))
    return blocks


def report_pdf(report: CalibrationReport, title: str) -> bytes:
    """The report as a PDF.

    Page one: the title, the plain verdict, what adopting changes, the headline figures
    and the KSS calibration plot. Then the tables by group and sleep, the plots of other
    scales, and the ratings not compared. Every text is drawn without mathtext, so
    tenant text (names, References) prints as written.
    """
    data = report.to_dict()
    buffer = io.BytesIO()
    with PdfPages(buffer, metadata={"Title": title, "CreationDate": None}) as pdf:
        others = _first_page(pdf, report, data, title)
        _group_pages(pdf, data)
        for instrument in others:
            fig = plt.figure(figsize=_A4)
            draw_calibration(fig.add_axes((_LEFT + 0.08, 0.45, 0.72, 0.5)), report, instrument)
            _save(pdf, fig)
        skipped = data["observationsNotCompared"] + data["inputErrors"]
        if skipped:
            _skipped_page(pdf, skipped)
    return buffer.getvalue()


def _save(pdf: PdfPages, fig: Figure) -> None:
    pdf.savefig(fig)  # type: ignore[no-untyped-call]  # matplotlib leaves it untyped
    plt.close(fig)


def _first_page(
    pdf: PdfPages, report: CalibrationReport, data: dict[str, Any], title: str
) -> list[str]:
    """Title, verdict, adoption, headline figures and the first scale's plot; returns the
    scales left to plot on pages of their own."""
    fig = plt.figure(figsize=_A4)
    y = _text(fig, 0.965, title, size=16, width=60, weight="bold")
    y = _text(fig, y, data["verdict"], size=12.5, width=72, weight="bold", color="#1a2b4c")
    adoption = data["adoption"]
    if adoption:
        y = _text(fig, y, adoption, size=9, width=112)
    y = _table(fig, y, _headline(report, data), [0.48, 0.52], header=True)
    instruments = list(report.instruments())
    if instruments and y > 0.3:
        ax = fig.add_axes((_LEFT + 0.08, 0.05, 0.72, y - 0.09))
        draw_calibration(ax, report, instruments[0])
        instruments = instruments[1:]
    _save(pdf, fig)
    return instruments


def _group_pages(pdf: PdfPages, data: dict[str, Any]) -> None:
    """The agreement tables by group and sleep, continued on a new page when full."""
    fig = plt.figure(figsize=_A4)
    y = _text(fig, 0.965, "Agreement by group", size=14, width=60, weight="bold")
    y = _text(fig, y, "Bias = mean(observed − predicted) on the rating's scale.", size=9, width=110)
    for heading, rows, widths in _detail_blocks(data):
        if y - 0.021 * len(rows) - 0.04 < 0.04:
            _save(pdf, fig)
            fig = plt.figure(figsize=_A4)
            y = 0.965
        y = _text(fig, y, heading, size=10, width=100, weight="bold")
        y = _table(fig, y, rows, widths, header=True)
    _save(pdf, fig)


def _skipped_page(pdf: PdfPages, skipped: list[str]) -> None:
    """The ratings not compared and the input errors (the first 60, and how many more)."""
    fig = plt.figure(figsize=_A4)
    heading = "Ratings not compared and input errors"
    y = _text(fig, 0.965, heading, size=14, width=60, weight="bold")
    shown = skipped[:60]
    more = f"\n… and {len(skipped) - len(shown)} more" if len(skipped) > len(shown) else ""
    _text(fig, y, "\n".join(shown) + more, size=8, width=120)
    _save(pdf, fig)
