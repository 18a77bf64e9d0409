"""``vigil plan-rest``: plan an augmented duty's in-flight rest offline (docs/planner.md)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from vigil.cli.score import _load_sleep, _read_text
from vigil.domain import DateFormat

if TYPE_CHECKING:
    from vigil.planner import PlanRequest, RestPlan


def register(app: typer.Typer) -> None:
    """Add the ``plan-rest`` command to the CLI."""
    app.command("plan-rest")(plan_rest_command)


def _instant(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise typer.BadParameter(
            f"{text!r} is not an ISO date-time such as 2026-03-03T20:00Z", param_hint="--duty"
        ) from exc
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _refs(text: str) -> tuple[str, ...]:
    return tuple(r.strip() for r in text.split(",") if r.strip())


#: the command's arguments and options
RosterArgument = Annotated[Path, typer.Argument(help="Roster CSV with every crew member's duties.")]
DutyOption = Annotated[
    str, typer.Option("--duty", help="An instant inside the duty to plan (UTC ISO).")
]
CrewOption = Annotated[
    str, typer.Option("--crew", help="The 3 or 4 References of the relief crew, a,b,c,d.")
]
LandingOption = Annotated[
    str, typer.Option("--landing", help="The 2 References at the controls for landing.")
]
SleepOption = Annotated[
    Path | None, typer.Option("--sleep", help="SleepData JSON array (contract §3.2).")
]
DateFormatOption = Annotated[
    DateFormat, typer.Option("--date-format", help="Dates in the roster: dmy or mdy.")
]
PresetOption = Annotated[
    str, typer.Option("--preset", help="Model parameter preset (docs/model.md).")
]
PlaceholdersOption = Annotated[
    str,
    typer.Option(
        "--placeholders",
        help="References of --crew not in the roster yet, planned rested, a,b.",
    ),
]
OutOption = Annotated[
    Path | None,
    typer.Option("--out", help="Write the roster with the planned rest columns to FILE."),
]
AsJsonOption = Annotated[
    bool, typer.Option("--json", help="Print the API's response body on stdout.")
]


def plan_rest_command(
    roster: RosterArgument,
    duty: DutyOption,
    crew: CrewOption,
    landing: LandingOption,
    sleep: SleepOption = None,
    date_format: DateFormatOption = DateFormat.DMY,
    preset: PresetOption = "ingre2014_5c",
    placeholders: PlaceholdersOption = "",
    out: OutOption = None,
    as_json: AsJsonOption = False,
) -> None:
    """Plan the in-flight rest of an augmented duty: best split, equal split, alternatives.

    Exit status: 0 planned, 2 the request cannot be planned (the message names why).
    """
    from vigil.planner import PlanRequest

    request = PlanRequest(
        roster_text=_read_text(roster, "ROSTER"),
        duty=_instant(duty),
        references=_refs(crew),
        landing=_refs(landing),
        date_format=date_format,
        sleep_data=_load_sleep(sleep),
        preset=preset,
        placeholders=_refs(placeholders),
    )
    plan = _planned(request)
    if out is not None:
        out.write_text(plan.roster_text, encoding="utf-8")
    if as_json:
        sys.stdout.write(json.dumps(plan.to_dict()) + "\n")
        return
    _print_plan(plan)


def _planned(request: PlanRequest) -> RestPlan:
    """The plan, or a usage error naming the option at fault (exit status 2)."""
    from vigil.planner import PlanError, plan_rest

    try:
        return plan_rest(request)
    except PlanError as exc:
        hint = {
            "References": "--crew",
            "Landing": "--landing",
            "Duty": "--duty",
            "Placeholders": "--placeholders",
        }
        raise typer.BadParameter(str(exc), param_hint=hint.get(exc.prop, exc.prop)) from exc


def _print_plan(plan: RestPlan) -> None:
    """The plan for a reader: the summary, each pair's KSS at its critical phase, the
    proposed and the equal split with their breaks, then the alternatives."""
    typer.echo(plan.summary)
    for pair in plan.pairs():
        typer.echo(
            f"{pair['group']} pilots {', '.join(pair['references'])} at the {pair['phase']}: "  # type: ignore[arg-type]
            f"KSS {pair['proposalKss']:.2f} proposed, {pair['equalSplitKss']:.2f} equal split "
            f"(gain {pair['gain']:+.2f})"
        )
    if any(b.placeholder for b in plan.proposal.breaks):
        names = ", ".join(b.reference for b in plan.proposal.breaks if b.placeholder)
        typer.echo(f"placeholders (not in the roster, planned rested): {names}")
    for name, split in (("proposal", plan.proposal), ("equal split", plan.equal)):
        typer.echo(
            f"{name}: worst KSS at a critical phase {split.worst_kss:.2f} (landing "
            f"{split.landing_kss:.2f}, relief {split.relief_kss:.2f}), crew mean "
            f"{split.crew_mean_kss:.2f}"
        )
        for b in split.breaks:
            role = "landing" if b.landing else "relief"
            row = "placeholder" if b.placeholder else f"row {b.row}"
            typer.echo(
                f"  {b.reference:<12} {role:<8} break {b.number}  "
                f"{b.start:%d %H:%M}-{b.end:%d %H:%M}Z  {row}"
            )
    for i, alt in enumerate(plan.alternatives, start=2):
        typer.echo(
            f"#{i}: worst KSS {alt.worst_kss:.2f} (landing {alt.landing_kss:.2f}, relief "
            f"{alt.relief_kss:.2f}), crew mean {alt.crew_mean_kss:.2f}"
        )
