"""The worked example of docs/planner.md: equal split against the planned split.

Run ``.venv/bin/python docs/plots/planner_example.py [lhr-sin|dxb-lax]``; prints the plan
(summary, both pairs side by side, both splits, the alternatives) and writes
``docs/img/planner-example.png`` (or ``planner-dxb-lax.png``): the landing captain's and a
relief pilot's KSS over the duty under the equal split and under the plan (each scored by
the service on its own pasted roster), with each pair's breaks drawn as bars.
"""

from __future__ import annotations

import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from vigil.planner import PlanRequest, RestPlan, Split, plan_rest  # noqa: E402
from vigil.planner.columns import apply_to_roster  # noqa: E402
from vigil.scoring.service import ScoreRequest, score  # noqa: E402

IMG = Path(__file__).resolve().parents[1] / "img"
HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,HomeBase,"
    "TimeReference,CrewComposition,SleepCount,SleepOrder"
)
CREW = ("CA", "FO", "CB", "FB")  # captain and first officer land; CB, FB are the relief pair
#: name -> (report UTC, duty hours, from, to, a short-haul destination for the week before)
CASES = {
    # report 20:00Z LHR, 14.5 h duty to SIN
    "lhr-sin": (datetime(2026, 3, 9, 20, 0, tzinfo=UTC), 14.5, "LHR", "SIN", "CDG"),
    # report 03:25Z (07:25 in Dubai), a 17.5 h duty to Los Angeles
    "dxb-lax": (datetime(2026, 3, 9, 3, 25, tzinfo=UTC), 17.5, "DXB", "LAX", "MCT"),
}
CASE = sys.argv[1] if len(sys.argv) > 1 else "lhr-sin"
ON, HOURS, FROM, TO, NEAR = CASES[CASE]
OUT = IMG / ("planner-example.png" if CASE == "lhr-sin" else f"planner-{CASE}.png")


def roster() -> str:
    lines = [HEADER]
    for ref in CREW:
        for k in (6, 5, 4):  # three short-haul days the week before, 07:00-15:00 UTC
            d = (ON - timedelta(days=k)).strftime("%d/%m/%Y")
            lines.append(f"{ref},{d},07:00,{FROM},{d},15:00,{NEAR},{FROM},0,2,0,1")
        off = ON + timedelta(hours=HOURS)
        lines.append(
            f"{ref},{ON:%d/%m/%Y},{ON:%H:%M},{FROM},{off:%d/%m/%Y},{off:%H:%M},{TO},{FROM},0,4,1,1"
        )
    return "\r\n".join(lines)


def duty_kss(text: str, ref: str) -> list[float]:
    report = score(ScoreRequest(roster_text=text))
    result = next(s for s in report.schedules if s.reference == ref)
    duty = next(d for d in result.duties if d.on_duty == ON)
    first = duty.first_interval
    return list(result.scores["KSS"][first : first + duty.interval_count])


def draw(plan: RestPlan, text: str) -> None:
    fig, ax = plt.subplots(figsize=(9, 4))
    splits: tuple[tuple[str, Split, str], ...] = (
        ("equal split", plan.equal, "tab:gray"),
        ("planned", plan.proposal, "tab:blue"),
    )
    for label, split, colour in splits:
        cells = {b.row: b.columns for b in split.breaks}
        pasted = apply_to_roster(text, cells)
        for ref, style in (("CA", "-"), ("CB", ":")):
            kss = duty_kss(pasted, ref)
            hours = [0.25 * i for i in range(len(kss))]
            ax.step(hours, kss, where="post", color=colour, ls=style, label=f"{ref}, {label}")
        for b in split.breaks:
            if b.reference in ("CA", "CB"):
                y = 1.3 if label == "planned" else 1.0
                y += 0.15 if b.landing else 0.0
                a = (b.start - ON) / timedelta(hours=1)
                e = (b.end - ON) / timedelta(hours=1)
                ax.plot([a, e], [y, y], color=colour, lw=5, solid_capstyle="butt")
                ax.text(e + 0.1, y, "landing pair" if b.landing else "relief pair",
                        va="center", fontsize=7)  # fmt: skip
    ax.axvspan(HOURS - 1, HOURS, color="tab:red", alpha=0.08, label="last hour (landing pair)")
    ax.set_xlabel(f"hours since report ({ON:%H:%M}Z)")
    ax.set_ylabel("KSS")
    ax.set_ylim(0.8, 9)
    ax.set_title(textwrap.fill(plan.summary, 120), fontsize=8)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)


def main() -> None:
    text = roster()
    plan = plan_rest(PlanRequest(text, ON, CREW, ("CA", "FO")))
    print(plan.summary)
    for pair in plan.pairs():
        print(
            f"{pair['group']} {pair['references']} at the {pair['phase']}: proposal "
            f"{pair['proposalKss']}, equal split {pair['equalSplitKss']}, gain {pair['gain']}"
        )
    for name, split in (
        ("planned", plan.proposal),
        ("equal", plan.equal),
        *((f"alternative {i}", a) for i, a in enumerate(plan.alternatives, start=2)),
    ):
        breaks = ", ".join(f"{b.reference} {b.start:%H:%M}-{b.end:%H:%M}" for b in split.breaks)
        print(
            f"{name}: worst {split.worst_kss}, landing KSS {split.landing_kss}, relief "
            f"{split.relief_kss}, crew mean {split.crew_mean_kss}; {breaks}"
        )
    draw(plan, text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
