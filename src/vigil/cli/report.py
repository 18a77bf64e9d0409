"""``vigil report``: the validation report and a roster's fleet report.

``vigil report validation`` writes the figures into ``--out`` (default
``docs/validation/``) and the Markdown beside it (``docs/validation.md``), from scenario
rosters scored through the service's own path. Exit status: 0 every row passes or fails
as ``KNOWN_FAILURES`` expects, 1 otherwise.

``vigil report roster ROSTER.csv --out march.xlsx`` scores a roster the way an upload is
scored (all six scales, risk on, under the operator's scoring context), builds the
fleet's per-duty table straight from the scores and summarises it (:mod:`vigil.fleet`),
and writes the CSV (per duty), XLSX workbook, PDF report or summary JSON chosen by the
``--out`` suffix, exactly as the console's roster page exports them.
``--operator NAME`` scores and reports under that operator's current settings
(parameters, airports, blank-cell defaults, default scale, warning levels and risk bands),
as an upload of that operator would be; without it, the built-in defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from vigil.cli._identity import DatabaseUrlOption

if TYPE_CHECKING:
    from vigil.fleet.table import DutyTable
    from vigil.scoring.service import ScoreReport
    from vigil.store.operator_settings import SettingsVersion


def register(app: typer.Typer) -> None:
    """Add the ``report`` command group to the CLI."""
    group = typer.Typer(
        help="Regenerate reports, such as the validation report.", no_args_is_help=True
    )
    group.command("validation")(validation_command)
    group.command("fit")(fit_command)
    group.command("roster")(roster_command)
    app.add_typer(group, name="report")


def validation_command(
    out: Annotated[
        Path, typer.Option("--out", help="Figure folder; the Markdown goes beside it (.md).")
    ] = Path("docs/validation"),
) -> None:
    """Recompute every published comparison and write docs/validation.md with its figures."""
    from vigil.cli import _plot
    from vigil.validation import evaluate_all, run_all, write_report
    from vigil.validation.catalog import known_failures

    path = write_report(out, score_plotter=_plot.plot_report)
    rows = evaluate_all(run_all())
    expected = known_failures()
    unexpected = [r.case.key for r in rows if r.passed == (r.case.key in expected)]
    passed = sum(r.passed for r in rows)
    independent = [r for r in rows if r.case.kind == "independent"]
    typer.echo(
        f"wrote {path} and figures in {out}: {passed} of {len(rows)} rows pass; "
        f"independent {sum(r.passed for r in independent)} of {len(independent)}"
    )
    if unexpected:
        typer.echo(f"rows not as KNOWN_FAILURES expects: {', '.join(unexpected)}", err=True)
        raise typer.Exit(1)


def fit_command(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for fit.md and fit.json (created).")
    ] = Path("docs/validation"),
    only: Annotated[
        list[str] | None,
        typer.Option("--group", help="Fit only this group (repeatable); default: all."),
    ] = None,
) -> None:
    """Fit every group of project-choice parameters to its fitted rows; write the fit report.

    Prints each group's loss before and after, and the changes to apply to the parameter
    files by hand when a fitted value differs from the hand-set one.
    """
    from vigil import model
    from vigil.validation import fit as fitting
    from vigil.validation.fit_groups import hand_set_parameters, not_fitted
    from vigil.validation.fit_groups import registered as fit_groups

    groups = fit_groups()
    if only:
        unknown = sorted(set(only) - {g.name for g in groups})
        if unknown:
            names = ", ".join(g.name for g in groups)
            raise typer.BadParameter(f"unknown {unknown}; groups: {names}", param_hint="--group")
        groups = [g for g in groups if g.name in only]
    results = [fitting.fit(g) for g in groups]
    out.mkdir(parents=True, exist_ok=True)
    version = model.DEFAULT.model_version
    markdown = fitting.render_markdown(results, hand_set_parameters(), not_fitted(), version)
    (out / "fit.md").write_text(markdown, encoding="utf-8")
    (out / "fit.json").write_text(fitting.to_json(results, version), encoding="utf-8")
    for res in results:
        typer.echo(
            f"{res.group.name}: loss {res.cost_before:.4g} hand-set -> {res.cost_after:.4g} "
            f"fitted ({res.evaluations} evaluations)"
        )
        for name, old, new, same in zip(
            res.group.parameters, res.group.initial, res.fitted, res.same, strict=True
        ):
            if not same:
                typer.echo(f"  apply by hand: {name} = {old:.4g} -> {new:.4g}")
    typer.echo(f"wrote {out / 'fit.md'} and {out / 'fit.json'}")


#: --out suffix -> what is written
ROSTER_FORMATS = (".csv", ".xlsx", ".pdf", ".json")


def roster_command(
    roster: Annotated[Path, typer.Argument(help="RosterData CSV (seed §2.2 columns).")],
    out: Annotated[
        Path, typer.Option("--out", help="Report file: .csv (per duty), .xlsx, .pdf or .json.")
    ],
    date_format: Annotated[
        str, typer.Option("--date-format", help="Dates in the roster: dmy or mdy.")
    ] = "dmy",
    scale: Annotated[
        str | None,
        typer.Option(
            "--scale", help="The report's scale (e.g. KSS, SP); default: the operator's, or KSS."
        ),
    ] = None,
    airports: Annotated[
        str, typer.Option("--airports", help="Airport codes: iata or icao.")
    ] = "iata",
    name: Annotated[str, typer.Option("--name", help="Roster name in the PDF.")] = "",
    operator: Annotated[
        str | None,
        typer.Option(
            "--operator",
            help="Score under this operator's current settings (levels, bands, parameters).",
        ),
    ] = None,
    database_url: Annotated[str | None, DatabaseUrlOption] = None,
) -> None:
    """Score ROSTER and write its fleet report (CSV, XLSX, PDF or the summary JSON)."""
    _check_choices(out, date_format, airports)
    found = _operator_settings(operator, database_url) if operator else None
    code = _report_scale(scale, found)
    scored, report = _score(_read_roster(roster), date_format, code, found)
    _write(out, report, scored, airports, name or roster.stem)
    counts = report.summary["counts"]
    typer.echo(
        f"wrote {out}: {counts['schedules']} schedules, {counts['duties']} duties"
        + (f", {len(scored.errors)} rows with errors" if scored.errors else "")
    )


def _check_choices(out: Path, date_format: str, airports: str) -> None:
    """Reject an unknown report format, date format or airport code kind, naming the option."""
    if out.suffix.lower() not in ROSTER_FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(ROSTER_FORMATS)}", param_hint="--out")
    if date_format not in ("dmy", "mdy"):
        raise typer.BadParameter("dmy or mdy", param_hint="--date-format")
    if airports not in ("iata", "icao"):
        raise typer.BadParameter("iata or icao", param_hint="--airports")


def _report_scale(scale: str | None, found: SettingsVersion | None) -> str:
    """The report's scale code: ``--scale``, else the operator's, else KSS."""
    from vigil.scoring.service import ScoringError, resolve_scale

    try:
        return resolve_scale(scale or (found.settings.scale if found else "KSS"))
    except ScoringError as exc:
        raise typer.BadParameter(str(exc), param_hint="--scale") from exc


def _read_roster(roster: Path) -> str:
    """The roster file's text (a UTF-8 byte-order mark dropped)."""
    try:
        return roster.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"cannot read {roster}: {exc}", param_hint="ROSTER") from exc


def _score(
    text: str, date_format: str, code: str, found: SettingsVersion | None
) -> tuple[ScoreReport, RosterReport]:
    """The roster scored under the operator's settings (or the defaults), and its fleet
    report built straight from the scores (:func:`vigil.fleet.table.results_table`): the
    figures the console's roster page shows for the same roster, with no stored form."""
    from vigil.domain import DateFormat
    from vigil.fleet.summary import schedule_rows, summarise
    from vigil.fleet.table import results_facts, results_table
    from vigil.fleet.thresholds import DEFAULT_THRESHOLDS, Thresholds
    from vigil.results.routes import route_facts_of_columns
    from vigil.scoring.context import DEFAULT_CONTEXT
    from vigil.scoring.service import SCALE_CODES, score_parsed

    context = found.context() if found else DEFAULT_CONTEXT
    request = context.request(
        text,
        date_format=DateFormat(date_format),
        scale=code,
        risk=True,
        extra_scales=tuple(s for s in SCALE_CODES if s != code),
    )
    parsed = context.parse(text, DateFormat(date_format))
    scored = score_parsed(request, parsed)
    entries = [(r.reference, len(r.duties)) for r in scored.schedules]
    facts = results_facts(scored.schedules, route_facts_of_columns(entries, parsed.columns))
    limits = (
        Thresholds.from_settings(found.settings, found.version) if found else DEFAULT_THRESHOLDS
    )
    table = results_table(
        scored.schedules, facts, code, level=limits.level(code), bands=limits.bands
    )
    rows = schedule_rows(table)
    return scored, RosterReport(table, summarise(table, rows), rows)


@dataclass(frozen=True, slots=True)
class RosterReport:
    """A roster's fleet report: its per-duty table, dashboard figures and schedule rows."""

    table: DutyTable
    summary: dict[str, Any]
    schedules: dict[str, list[Any]]


def _write(out: Path, report: RosterReport, scored: ScoreReport, airports: str, name: str) -> None:
    """The report file ``out`` in the format its suffix names."""
    import json

    from vigil.fleet.export_csv import duty_csv
    from vigil.fleet.export_pdf import roster_pdf
    from vigil.fleet.export_xlsx import roster_xlsx
    from vigil.results.compact import StoredScores
    from vigil.scoring.service import SCALE_CODES

    suffix = out.suffix.lower()
    model_version = scored.model_version
    preset = model_version.partition("+")[2]
    if suffix == ".csv":
        out.write_bytes(b"".join(duty_csv(report.table, airports)))
    elif suffix == ".xlsx":
        out.write_bytes(
            roster_xlsx(
                report.table,
                report.summary,
                report.schedules,
                model_version=model_version,
                preset=preset,
                airport_style=airports,
            )
        )
    elif suffix == ".pdf":
        # the charts read each schedule's interval scores from the score matrix
        matrix = StoredScores.of_results(scored.schedules, SCALE_CODES)
        out.write_bytes(
            roster_pdf(
                report.table,
                matrix,
                report.summary,
                report.schedules,
                roster_name=name,
                model_version=model_version,
                preset=preset,
            )
        )
    else:
        body = {
            "modelVersion": model_version,
            "preset": preset,
            "summary": report.summary,
            "schedules": report.schedules,
        }
        out.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")


def _operator_settings(operator: str, database_url: str | None) -> SettingsVersion:
    """The operator's current settings version, or exit 2 naming an unknown operator."""
    from vigil.cli._identity import identity_context
    from vigil.store import operator_settings, repo

    with identity_context(database_url) as ctx:
        try:
            repo.get_or_create_operator(session=ctx.session, name=operator, create=False)
        except repo.RepoError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from None
        return operator_settings.current_settings(session=ctx.session, operator=operator)
