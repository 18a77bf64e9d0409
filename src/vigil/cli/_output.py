"""Writers and terminal output for the CLI: JSON/CSV reports, summaries, progress bars."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from vigil.domain import INTERVAL
from vigil.scoring.service import ScoreReport, iso

#: A cell starting with one of these is read as a formula by spreadsheets (CSV injection).
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: str) -> str:
    """Neutralise spreadsheet formulas in text written to CSV (OWASP CSV injection)."""
    return "'" + value if value.startswith(_FORMULA_PREFIXES) else value


@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a bar on stderr for long runs.

    Nothing is drawn when stderr is not a terminal, so pipes and CI logs stay clean.
    """
    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda done, total: None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task(label, total=None)
    with bar:

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def write_report(report: ScoreReport, path: Path) -> None:
    """Write the contract §4 envelope (``.json``) or one row per interval (``.csv``)."""
    if path.suffix.lower() == ".json":
        path.write_bytes(report.to_json())
        return
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        header = ["schedule", "duty", "interval", "start", "end", report.scale]
        if report.risk:
            header.append("dutyRisk")
        writer.writerow(header)
        for result in report.schedules:
            scores = result.scores[report.scale]
            name = spreadsheet_safe(result.reference)
            for j, duty in enumerate(result.duties):
                for k in range(duty.interval_count):
                    start = duty.on_duty + k * INTERVAL
                    end = min(start + INTERVAL, duty.off_duty)
                    row: list[object] = [
                        name,
                        j + 1,
                        k + 1,
                        iso(start),
                        iso(end),
                        f"{scores[duty.first_interval + k]:.3f}",
                    ]
                    if report.risk:
                        row.append(duty.risk)
                    writer.writerow(row)


def print_summary(report: ScoreReport) -> None:
    """A table per schedule: duties, intervals, mean and peak score, peak risk."""
    console = Console(file=sys.stdout, width=120)
    table = Table(title=f"Fatigue scores ({report.scale}, model {report.model_version})")
    for column in ("schedule", "duties", "intervals", "mean", "peak", "peak at"):
        table.add_column(column)
    if report.risk:
        table.add_column("max risk")
    shown = report.schedules[:50]
    for result in shown:
        scores = result.scores[report.scale]
        peak = int(scores.argmax()) if scores.size else 0
        duty = next(d for d in result.duties if peak < d.first_interval + d.interval_count)
        when = duty.on_duty + timedelta(minutes=15 * (peak - duty.first_interval))
        cells = [
            result.reference,
            str(len(result.duties)),
            str(scores.size),
            f"{scores.mean():.2f}",
            f"{scores[peak]:.2f}",
            iso(when),
        ]
        if report.risk:
            cells.append(f"{max(d.risk or 0.0 for d in result.duties):.2f}")
        table.add_row(*cells)
    console.print(table)
    if len(report.schedules) > len(shown):
        console.print(f"... and {len(report.schedules) - len(shown)} more schedules")
    console.print(f"{len(report.schedules)} schedules scored, {len(report.errors)} errors")
