"""The calibration plot (SVG for the console) and the PDF report (matplotlib PdfPages)."""

from __future__ import annotations

import io
import textwrap

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from vigil.calibration.observations import INSTRUMENTS  # noqa: E402
from vigil.calibration.report import CalibrationReport  # noqa: E402
from vigil.plot_text import plain_text  # noqa: E402

# names (observation sets, References) are drawn as plain text, never mathtext; set at
# import so that every rc_context entered here saves it and restores it (vigil.plot_text)
plain_text()

__all__ = ["calibration_figure", "plot_svg", "report_pdf"]


def calibration_figure(report: CalibrationReport, instrument: str) -> Figure:
    """Observed against predicted: every rating (light), binned means ± SD, the identity
    line and, when fitted, the operator's line."""
    low, high = INSTRUMENTS[instrument]
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
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
    ax.set_xlabel(f"predicted {instrument} (model {report.model_version})")
    ax.set_ylabel(f"observed {instrument}")
    ax.set_title(f"Calibration, {instrument} (settings version {report.settings_version})")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
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


def _text_page(pdf: PdfPages, title: str, lines: list[str]) -> None:
    fig = plt.figure(figsize=(8.27, 11.69))
    fig.text(0.06, 0.96, title, fontsize=14, weight="bold", va="top")
    wrapped = [w for line in lines for w in (textwrap.wrap(line, 95) or [""])]
    fig.text(0.06, 0.92, "\n".join(wrapped[:70]), fontsize=8, family="monospace", va="top")
    pdf.savefig(fig)  # type: ignore[no-untyped-call]
    plt.close(fig)


def report_pdf(report: CalibrationReport, title: str) -> bytes:
    """The report as a PDF: a summary page, then the plot of each instrument."""
    data = report.to_dict()
    lines = [
        f"model {data['modelVersion']}, operator settings version {data['settingsVersion']}",
        f"ratings compared: {data['observationsUsed']}; "
        f"not compared: {len(data['observationsNotCompared'])}; "
        f"input errors: {len(data['inputErrors'])}",
        f"scored with actual sleep for: {', '.join(data['actualSleepFor']) or 'nobody'}",
        "residual = observed - predicted, on the instrument's own scale",
        "",
    ]
    for instrument, scale in data["scales"].items():
        lines.append(f"== {instrument}")
        for key in ("overall",):
            g = scale[key]
            lines.append(
                f"overall n={g['n']} bias={g['bias']} RMSE={g['rmse']} "
                f"within1={g['within1']} within2={g['within2']}"
            )
        for key in ("byTimeOfDay", "byDutyType", "byHoursOnDuty"):
            lines.append(f"-- {key}")
            for g in scale[key]:
                lines.append(f"   {g['label']:<12} n={g['n']:<5} bias={g['bias']} RMSE={g['rmse']}")
        fit = scale["fit"]
        if fit:
            lines.append(
                f"-- fit: intercept {fit['intercept']} slope {fit['slope']} "
                f"bias {fit['bias']} CI {fit['biasCI95']} calibrated={fit['calibrated']}"
            )
            lines.append(f"   offered preset: {fit['offeredPreset'] or fit['whyNotOffered']}")
        lines.append("")
    lines.append("== sleep: actual vs predicted per break (hours)")
    for s in data["sleep"]:
        lines.append(
            f"   {s['breakType']:<22} breaks={s['breaks']:<4} actual={s['actualHours']} "
            f"predicted={s['predictedHours']} bias={s['biasHours']}"
        )
    buffer = io.BytesIO()
    with PdfPages(buffer, metadata={"Title": title, "CreationDate": None}) as pdf:
        _text_page(pdf, title, lines)
        for instrument in report.instruments():
            fig = calibration_figure(report, instrument)
            pdf.savefig(fig)
            plt.close(fig)
    return buffer.getvalue()
