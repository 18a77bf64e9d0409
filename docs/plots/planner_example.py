"""The worked example of docs/planner.md: equal split against the planned split.

Run ``.venv/bin/python docs/plots/planner_example.py``; prints the plan (summary, both
splits, the alternatives) and writes ``docs/img/planner-example.png``: the landing
captain's KSS over the duty under the equal split and under the plan (each scored by the
service on its own pasted roster), with each pair's breaks drawn as bars.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from vigil.planner import PlanRequest, RestPlan, Split, plan_rest  # noqa: E402
from vigil.planner.columns import apply_to_roster  # noqa: E402
from vigil.scoring.service import ScoreRequest, score  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "img" / "planner-example.png"
HEADER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,HomeBase,"
    "TimeReference,CrewComposition,SleepCount,SleepOrder"
)
CREW = ("CA", "FO", "CB", "FB")  # captain and first officer land; CB, FB are the relief pair
ON = datetime(2026, 3, 9, 20, 0, tzinfo=UTC)  # report 20:00Z LHR, 14.5 h duty to SIN


def roster() -> str:
    lines = [HEADER]
    for ref in CREW:
        for k in (6, 5, 4):  # three short-haul days the week before
            d = (ON - timedelta(days=k)).strftime("%d/%m/%Y")
            lines.append(f"{ref},{d},07:00,LHR,{d},15:00,CDG,LHR,0,2,0,1")
        off = ON + timedelta(hours=14.5)
        lines.append(
            f"{ref},{ON:%d/%m/%Y},{ON:%H:%M},LHR,{off:%d/%m/%Y},{off:%H:%M},SIN,LHR,0,4,1,1"
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
        kss = duty_kss(apply_to_roster(text, cells), "CA")
        hours = [0.25 * i for i in range(len(kss))]
        ax.step(hours, kss, where="post", color=colour, label=f"CA, {label}")
        for b in split.breaks:
            if b.reference in ("CA", "CB"):
                y = 1.3 if label == "planned" else 1.0
                y += 0.15 if b.landing else 0.0
                a = (b.start - ON) / timedelta(hours=1)
                e = (b.end - ON) / timedelta(hours=1)
                ax.plot([a, e], [y, y], color=colour, lw=5, solid_capstyle="butt")
                ax.text(e + 0.1, y, "landing pair" if b.landing else "relief pair",
                        va="center", fontsize=7)  # fmt: skip
    ax.axvspan(13.5, 14.5, color="tab:red", alpha=0.08, label="last hour (objective)")
    ax.set_xlabel("hours since report (20:00Z)")
    ax.set_ylabel("KSS")
    ax.set_ylim(0.8, 9)
    ax.set_title(plan.summary, fontsize=8)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)


def main() -> None:
    text = roster()
    plan = plan_rest(PlanRequest(text, ON, CREW, ("CA", "FO")))
    print(plan.summary)
    for name, split in (
        ("planned", plan.proposal),
        ("equal", plan.equal),
        *((f"alternative {i}", a) for i, a in enumerate(plan.alternatives, start=2)),
    ):
        breaks = ", ".join(f"{b.reference} {b.start:%H:%M}-{b.end:%H:%M}" for b in split.breaks)
        print(f"{name}: landing KSS {split.landing_kss}, crew mean {split.crew_mean_kss}; {breaks}")
    draw(plan, text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
