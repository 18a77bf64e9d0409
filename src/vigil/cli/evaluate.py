"""``vigil evaluate``: cost terms of candidate chains against a base roster (docs/optimise.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from vigil.domain import DateFormat


def register(app: typer.Typer) -> None:
    """Add the ``evaluate`` command to the CLI."""
    app.command("evaluate")(evaluate_command)


def _read(path: Path, hint: str) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc}", param_hint=hint) from exc


#: the arguments and options of ``evaluate_command``
BaseOption = Annotated[Path, typer.Option("--base", help="The base roster CSV (contract §3.1).")]
CandidatesOption = Annotated[
    Path,
    typer.Option(
        "--candidates",
        help="Candidate rows: the roster's columns plus Candidate (docs/optimise.md).",
    ),
]
DateFormatOption = Annotated[
    DateFormat, typer.Option("--date-format", help="Dates in both files: dmy or mdy.")
]
PresetOption = Annotated[
    str, typer.Option("--preset", help="Model parameter preset (docs/model.md).")
]
AsJsonOption = Annotated[
    bool, typer.Option("--json", help="Print columnar JSON (term -> array) instead of CSV.")
]


def evaluate_command(
    base: BaseOption,
    candidates: CandidatesOption,
    date_format: DateFormatOption = DateFormat.DMY,
    preset: PresetOption = "ingre2014_5c",
    as_json: AsJsonOption = False,
) -> None:
    """Evaluate candidate chains: one row of fatigue cost terms per candidate.

    Each candidate replaces its crew member's base duties overlapping the span of its rows.
    Row errors go to stderr as row|candidate|message; the other candidates are still
    evaluated. Exit status: 0 no errors, 1 row errors, 2 unusable invocation or base.
    """
    from vigil.optimise import EngineError
    from vigil.optimise._scoring import ScoringError, resolve_preset
    from vigil.optimise.candidates import parse_candidates
    from vigil.optimise.costs import TERM_NAMES
    from vigil.optimise.engine import Engine

    base_text = _read(base, "--base")
    cand_text = _read(candidates, "--candidates")
    try:
        params = resolve_preset(preset)
    except ScoringError as exc:
        raise typer.BadParameter(str(exc), param_hint="--preset") from exc
    try:
        engine = Engine.from_roster(base_text, date_format.value, params)
    except EngineError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    parsed = parse_candidates(engine, cand_text, date_format.value)
    for line in parsed.errors:
        typer.echo(line, err=True)
    rows: dict[str, list[object]] = {"candidate": list(parsed.ids)}
    if parsed.candidates is not None and parsed.pool is not None:
        try:
            terms = engine.evaluate(parsed.pool, parsed.candidates).terms.columns()
        except EngineError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from exc
        rows.update({name: [round(v, 6) for v in terms[name]] for name in TERM_NAMES})
    else:
        rows.update({name: [] for name in TERM_NAMES})
    _write_rows(rows, as_json=as_json)
    if parsed.errors:
        raise typer.Exit(1)


def _write_rows(rows: dict[str, list[object]], *, as_json: bool) -> None:
    """The terms on stdout: columnar JSON (term -> array), or CSV with a header row."""
    if as_json:
        sys.stdout.write(json.dumps(rows) + "\n")
        return
    names = list(rows)
    sys.stdout.write(",".join(names) + "\n")
    for k in range(len(rows["candidate"])):
        sys.stdout.write(",".join(_cell(rows[n][k]) for n in names) + "\n")


def _cell(value: object) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f'"{text}"' if "," in text or '"' in text else text
