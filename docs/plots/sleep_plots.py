"""Plot predicted sleep for a realistic 28-day long-haul roster (docs/sleep.md).

Run ``.venv/bin/python docs/plots/sleep_plots.py``; writes ``docs/img/sleep-longhaul.png``:
one row per day in home-base local time, duties grey, predicted sleep coloured by kind,
with the body-clock offset φ (reference §3) on the right.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from vigil.domain import CrewComposition, Schedule  # noqa: E402
from vigil.model.sleep import body_clock_offset  # noqa: E402
from vigil.roster import parse_request  # noqa: E402
from vigil.roster.synthetic import generate_roster  # noqa: E402
from vigil.scoring import grid  # noqa: E402
from vigil.scoring.predict import predict_sleep, prediction_horizon  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "img"
COLOURS = {"main": "#1f77b4", "nap": "#2ca02c", "inflight": "#ff7f0e"}


def long_haul_schedule() -> Schedule:
    """The first synthetic LHR-based schedule with augmented long-haul duties."""
    parsed = parse_request(generate_roster(200, 28, seed=4), "dmy")
    for schedule in parsed.schedules:
        if schedule.duties[0].home.code == "LHR" and any(
            d.crew_composition != CrewComposition.TWO_PILOTS for d in schedule.duties
        ):
            return schedule
    raise RuntimeError("no long-haul schedule in the synthetic roster")


def _bars(ax: plt.Axes, a: float, b: float, day0: float, offset: float, **kw: object) -> None:
    """Draw [a, b) (epoch h) on the day rows of a local-time chart, split at midnight."""
    a, b = a + offset - day0, b + offset - day0
    while a < b:
        row = np.floor(a / 24.0)
        end = min(b, (row + 1) * 24.0)
        ax.broken_barh([(a - row * 24.0, end - a)], (row - 0.4, 0.8), **kw)
        a = end


def plot_long_haul(path: Path) -> None:
    schedule = long_haul_schedule()
    episodes = predict_sleep([schedule])[0]
    zone = grid.home_zone(schedule)
    start = grid.warmup_start(schedule)
    t0 = grid.epoch_hours(start)
    offset = grid.zone_offset(zone, t0)
    day0 = np.floor((t0 + offset) / 24.0) * 24.0
    fig, (ax, ax_phi) = plt.subplots(
        1, 2, figsize=(11, 9), sharey=True, gridspec_kw={"width_ratios": [5, 1]}
    )
    for d in schedule.duties:
        label = f"{d.start_airport.code}-{d.end_airport.code}"
        a, b = grid.epoch_hours(d.on_duty), grid.epoch_hours(d.off_duty)
        _bars(ax, a, b, day0, offset, facecolors="0.75", edgecolor="0.4")
        x, row = (a + offset - day0) % 24.0, np.floor((a + offset - day0) / 24.0)
        ax.text(x, row - 0.45, label, fontsize=6, va="bottom")
    for e in episodes:
        _bars(ax, e.start, e.end, day0, offset, facecolors=COLOURS[e.kind], alpha=0.85)
    ax.set_xlim(0, 24)
    ax.set_xticks(range(0, 25, 3))
    ax.set_xlabel(f"home-base local time ({zone}) [h]")
    ax.set_ylabel("day of roster (warm-up first)")
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    handles.append(plt.Rectangle((0, 0), 1, 1, color="0.75"))
    ax.legend(handles, [*COLOURS, "duty"], loc="lower right", fontsize=8)
    ax.set_title(f"Predicted sleep, schedule {schedule.reference} (synthetic, seed 4)")
    zones = grid.zone_timeline(grid.location_spans(schedule, start), prediction_horizon(schedule))
    zt, zo = zip(*zones, strict=True)
    t = np.arange(t0, prediction_horizon(schedule), 0.5)
    phi = body_clock_offset(t, t0, offset, zt, zo)
    ax_phi.plot(phi, (t + offset - day0) / 24.0, color="k", lw=1)
    ax_phi.set_xlabel("body-clock offset φ [h]")
    ax_phi.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    plot_long_haul(OUT / "sleep-longhaul.png")
