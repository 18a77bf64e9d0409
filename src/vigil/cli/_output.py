"""Writers and terminal output for the CLI: JSON/CSV reports, summaries, progress, hints.

Rich is imported by the functions that draw with it: ``vigil score --json`` never loads it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from vigil.domain import DateFormat
from vigil.roster.arrays import DutyColumns
from vigil.scoring.service import ScoreReport, iso

#: A cell starting with one of these is read as a formula by spreadsheets (CSV injection).
#: least time between two plain progress lines [s]
PLAIN_PROGRESS_INTERVAL = 5.0


def plain_progress(
    label: str, *, interval: float = PLAIN_PROGRESS_INTERVAL
) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback printing plain lines on stderr (logs, cron):
    ``Scoring crew: 2048/10000 (20 %), 5 s``, every ``interval`` s and once at the end.

    A run shorter than ``interval`` prints nothing (quiet when it is quick)."""
    import time

    t0 = time.monotonic()
    last = [t0]
    printed = [False]

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < interval and not (done >= total and printed[0]):
            return
        last[0] = now
        printed[0] = True
        share = f" ({100 * done // total} %)" if total else ""
        print(f"{label}: {done}/{total}{share}, {now - t0:.0f} s", file=sys.stderr, flush=True)

    return update


@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a bar on stderr for long runs.

    When stderr is not a terminal (a scheduled job, a pipe), plain lines instead
    (:func:`plain_progress`), so a log shows the run is alive.
    """
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield plain_progress(label)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

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


def write_report(
    report: ScoreReport,
    path: Path,
    per: str | None = None,
    columns: Callable[[], DutyColumns | None] = lambda: None,
) -> None:
    """Write ``path`` (``.json`` or ``.csv``) with one row ``per`` interval, duty or
    schedule (:mod:`vigil.cli._tables`). Defaults: per duty for CSV; for JSON the contract
    §4 envelope (per interval, as the API answers). ``columns`` gives the parsed roster's
    duty columns, called only for the per-duty table (routes and time zones)."""
    from vigil.cli import _tables

    csv = path.suffix.lower() == ".csv"
    if per is None and not csv:
        with path.open("wb") as out:
            out.writelines(report.stream_json())
        return
    chosen = _tables.Per(per or _tables.Per.DUTY)
    listed = columns() if chosen is _tables.Per.DUTY else None
    _tables.write(_tables.table(report, chosen, listed), str(path), csv=csv)


#: schedules listed in the end-of-run summary
SUMMARY_ROWS = 50


def print_summary(report: ScoreReport) -> None:
    """The riskiest schedules first (highest duty risk, or peak score without ``--risk``):
    duties, intervals, mean and peak score at work, when, and the highest risk (the
    figures of the ``--per schedule`` table, :func:`vigil.cli._tables.schedule_table`)."""
    from rich.console import Console
    from rich.table import Table

    from vigil.cli import _tables

    console = Console(file=sys.stdout, width=120)
    frame = _tables.schedule_table(report)
    peaks = frame[f"peak{report.scale}"].to_numpy()
    means = frame[f"mean{report.scale}"].to_numpy()
    when = frame["peakAtUtc"].to_list()
    risks = [max((d.risk or 0.0 for d in r.duties), default=0.0) for r in report.schedules]

    def rank(i: int) -> tuple[float, float]:
        peak = float(peaks[i]) if peaks[i] == peaks[i] else float("-inf")
        return (risks[i] if report.risk else 0.0, peak)

    ordered = sorted(range(len(report.schedules)), key=rank, reverse=True)
    shown = ordered[:SUMMARY_ROWS]
    what = "highest duty risk" if report.risk else f"peak {report.scale}"
    table = Table(title=f"Fatigue scores ({report.scale}, model {report.model_version}), by {what}")
    for column in ("schedule", "duties", "intervals", "mean", "peak", "peak at"):
        table.add_column(column)
    if report.risk:
        table.add_column("max risk")
    for i in shown:
        result = report.schedules[i]
        peak_text = f"{peaks[i]:.2f}" if peaks[i] == peaks[i] else "-"
        cells = [
            result.reference,
            str(len(result.duties)),
            str(result.scores[report.scale].size),
            f"{means[i]:.2f}" if means[i] == means[i] else "-",
            peak_text,
            iso(when[i]) if peaks[i] == peaks[i] else "-",
        ]
        if report.risk:
            cells.append(f"{risks[i]:.2f}")
        table.add_row(*cells)
    console.print(table)
    if len(report.schedules) > len(shown):
        console.print(f"... and {len(report.schedules) - len(shown)} more schedules")
    console.print(f"{len(report.schedules)} schedules scored, {len(report.errors)} errors")


#: the message of a date that does not read in the chosen order (vigil.roster TEMPLATES)
_BAD_DATE = "is not a valid date; expected"


def date_format_hint(
    errors: Sequence[str], roster_text: str, date_format: DateFormat
) -> str | None:
    """One line suggesting the other ``--date-format`` when most errors are dates that do
    not read and the other order reads the file with fewer errors; else ``None``."""
    dates = sum(_BAD_DATE in e for e in errors)
    if not errors or dates * 2 <= len(errors):
        return None
    from vigil.roster import parse_request

    other = DateFormat.MDY if date_format is DateFormat.DMY else DateFormat.DMY
    again = parse_request(roster_text, other)
    if sum(_BAD_DATE in e for e in again.error_strings()) >= dates:
        return None
    return (
        f"hint: {dates} of {len(errors)} errors are dates that do not read as "
        f"{date_format.value}; read as {other.value} the file has {len(again.errors)} errors:"
        f" try --date-format {other.value}"
    )
