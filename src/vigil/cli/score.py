"""``vigil score``: score a roster offline through the service's own scoring path (contract §7)."""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vigil.domain import DateFormat
from vigil.gc_pause import cyclic_gc_paused
from vigil.scoring import warm

if TYPE_CHECKING:
    from vigil.model import Parameters
    from vigil.roster import ParsedRoster
    from vigil.scoring.service import ScoreReport


def register(app: typer.Typer) -> None:
    """Add the ``score`` command to the CLI."""
    app.command("score")(score_command)


def _load_sleep(path: Path | None) -> list[dict[str, Any]]:
    if path is None:
        return []
    try:
        data = _decode_json(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc}", param_hint="--sleep") from exc
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"{path} is not JSON: {exc}", param_hint="--sleep") from exc
    if isinstance(data, dict):  # accept a whole request body too
        lowered = {str(k).lower(): v for k, v in data.items()}
        data = lowered.get("sleepdata", [])
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise typer.BadParameter(
            f"{path} must hold the SleepData JSON array of objects (contract §3.2)",
            param_hint="--sleep",
        )
    return data


def _decode_json(path: Path) -> Any:
    """``json.loads`` of the file's UTF-8 text, by orjson (five times faster on a month's
    SleepData) when it can; anything orjson refuses (NaN, huge integers, a BOM, bad
    UTF-8 or JSON) is read again by ``json`` so values and error texts stay the same."""
    import orjson

    raw = path.read_bytes()
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw.decode("utf-8"))


def _read_text(path: Path, hint: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc}", param_hint=hint) from exc


#: the arguments and options of ``score_command``
RosterArgument = Annotated[
    Path, typer.Argument(help="Roster CSV (seed §2.2 columns, header optional).")
]
SleepOption = Annotated[
    Path | None, typer.Option("--sleep", help="SleepData JSON array (contract §3.2).")
]
ActivityOption = Annotated[
    Path | None, typer.Option("--activity", help="ActivityData CSV (contract §5.1).")
]
DateFormatOption = Annotated[
    DateFormat, typer.Option("--date-format", help="Dates in the roster: dmy or mdy.")
]
ScaleOption = Annotated[
    str,
    typer.Option(
        "--scale",
        help="SP, KSS, KP, VD, CRD or PMR (seed §2.4), or LAPSES (PVT lapses, the "
        "unified preset's own output; docs/model.md).",
    ),
]
PresetOption = Annotated[
    str, typer.Option("--preset", help="Model parameter preset (docs/model.md).")
]
RiskOption = Annotated[bool, typer.Option("--risk", help="Add one risk score per duty.")]
ExplainOption = Annotated[
    bool,
    typer.Option(
        "--explain",
        help="With --risk: each duty's risk components and reasons (JSON envelope; "
        "reasons column in the per-duty CSV).",
    ),
]
PercentilesOption = Annotated[
    bool,
    typer.Option(
        "--percentiles",
        help="Add Ingre 2014's population percentiles (KSS limits of 50/75/90 % of crew, "
        "P(KSS >= 7), P(KSS >= 8)) to the JSON envelope.",
    ),
]
ShowSleepOption = Annotated[
    bool, typer.Option("--show-sleep", help="Include the sleep the scores rest on.")
]
OutOption = Annotated[
    Path | None,
    typer.Option("--out", help="Write FILE.json (contract §4 envelope) or FILE.csv."),
]
PerOption = Annotated[
    str | None,
    typer.Option(
        "--per",
        help="Rows of --out: interval, duty or schedule. Default: duty for CSV (route, "
        "local times, peak, mean, time above warning, risk); the §4 envelope for JSON.",
    ),
]
PlotOption = Annotated[
    Path | None, typer.Option("--plot", help="Draw scores over time to FILE.png.")
]
AsJsonOption = Annotated[
    bool, typer.Option("--json", help="Print the contract §4 envelope on stdout.")
]


def score_command(
    roster: RosterArgument,
    sleep: SleepOption = None,
    activity: ActivityOption = None,
    date_format: DateFormatOption = DateFormat.DMY,
    scale: ScaleOption = "KSS",
    preset: PresetOption = "ingre2014_5c",
    risk: RiskOption = False,
    explain: ExplainOption = False,
    percentiles: PercentilesOption = False,
    show_sleep: ShowSleepOption = False,
    out: OutOption = None,
    per: PerOption = None,
    plot: PlotOption = None,
    as_json: AsJsonOption = False,
) -> None:
    """Score ROSTER offline: per-15-minute fatigue scores (and risk) for every schedule.

    Exit status: 0 scored without data errors, 1 data errors were found (the other
    schedules are still scored and written), 2 unusable invocation.
    """
    if per is not None and per.lower() not in ("interval", "duty", "schedule"):
        raise typer.BadParameter("must be interval, duty or schedule", param_hint="--per")
    if out is not None and out.suffix.lower() not in (".json", ".csv"):
        raise typer.BadParameter("must end in .json or .csv", param_hint="--out")
    # the kernels load on another thread while the roster is read (vigil.scoring.warm);
    # this thread imports the scoring service (and Numba) only once the roster is read
    warming = warm.start()
    text = _read_text(roster, "ROSTER")
    with cyclic_gc_paused():
        sleep_data = _load_sleep(sleep)
        activity_text = _read_text(activity, "--activity") if activity else ""
        report, parsed = _score(
            text, date_format, scale, preset, sleep_data, activity_text, risk, show_sleep, warming,
            with_kss=percentiles,
        )  # fmt: skip
        if (explain and risk) or percentiles:
            report = dataclasses.replace(report, explain=explain and risk, percentiles=percentiles)
        _write(report, parsed, out=out, per=per, plot=plot, as_json=as_json)
    from vigil.cli import _output

    for error in report.errors:
        typer.echo(error, err=True)
    hint = _output.date_format_hint(report.errors, text, date_format)
    if hint:
        typer.echo(hint, err=True)
    raise typer.Exit(1 if report.errors else 0)


def _write(
    report: ScoreReport,
    parsed: ParsedRoster,
    *,
    out: Path | None,
    per: str | None,
    plot: Path | None,
    as_json: bool,
) -> None:
    """Write ``--out`` (``--per`` rows) and ``--plot``, then the envelope (``--json``) or
    the summary on stdout."""
    from vigil.cli import _output

    if out is not None:
        per_rows = per.lower() if per else None
        _output.write_report(report, out, per_rows, lambda: parsed.columns)
    if plot is not None:
        from vigil.cli import _plot

        _plot.plot_report(report, plot)
    if as_json:
        sys.stdout.buffer.write(report.to_json() + b"\n")
        sys.stdout.flush()
    else:
        _output.print_summary(report)


def _score(
    text: str,
    date_format: DateFormat,
    scale: str,
    preset: str,
    sleep_data: list[dict[str, Any]],
    activity_text: str,
    risk: bool,
    show_sleep: bool,
    warming: threading.Thread,
    *,
    with_kss: bool = False,
) -> tuple[ScoreReport, ParsedRoster]:
    """What :func:`vigil.scoring.service.score` does, keeping the parsed roster (the
    per-duty table needs its schedules' routes and time zones; they are built only then).

    The roster is read before the scale and preset are checked (their module imports the
    model, and Numba with it, which ``warming`` is doing meanwhile); a bad name still
    stops the command before anything is scored or written."""
    from vigil.roster import format_error, parse_request

    parsed = parse_request(text, date_format, sleep_data=sleep_data, activity_text=activity_text)
    warming.join()
    from vigil.cli import _output
    from vigil.scoring.service import ScoreReport, plan_parsed, score_plan

    chosen, params = _resolved(scale, preset)
    with _output.progress_bar("Scoring crew") as progress:
        scales = tuple(dict.fromkeys((chosen, "KSS"))) if with_kss else (chosen,)
        results = score_plan(
            plan_parsed(parsed, params), params, scales, progress=progress, risk=risk
        )
    report = ScoreReport(
        scale=chosen,
        model_version=params.model_version,
        schedules=tuple(results),
        errors=tuple(format_error(e) for e in parsed.errors),
        risk=risk,
        include_sleep=show_sleep,
    )
    return report, parsed


def _resolved(scale: str, preset: str) -> tuple[str, Parameters]:
    """The scale's code and the preset's parameters; a usage error for an unknown name."""
    from vigil.scoring.service import ScoringError, resolve_preset, resolve_scale

    try:
        return resolve_scale(scale, extra=True), resolve_preset(preset)
    except ScoringError as exc:
        raise typer.BadParameter(str(exc)) from exc
