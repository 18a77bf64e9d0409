"""Generate the figures of docs/model.md: ``.venv/bin/python docs/plots/model_plots.py``."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from vigil.model import (  # noqa: E402
    DEFAULT,
    TPM_DEFAULT,
    CrewTimeline,
    advance_phase,
    final_kss,
    simulate,
    workload_kss,
)

OUT = Path(__file__).resolve().parents[1] / "img"
DAY0 = 20_000 * 24.0


def timeline(sleeps: list[tuple[float, float]]) -> CrewTimeline:
    ss = np.array([[a for a, _ in sleeps]])
    return CrewTimeline(
        start=[DAY0 + 7.0], s_start=[13.82], phase_start=[0.0], sleep_start=ss,
        sleep_end=np.array([[b for _, b in sleeps]]), sleep_quality=np.ones_like(ss),
        zone_time=[[DAY0]], zone_offset=[[0.0]],
    )  # fmt: skip


def processes() -> None:
    sleeps = [(DAY0 + 23 + 24 * k, DAY0 + 31 + 24 * k) for k in range(4)]
    t = DAY0 + 7.0 + np.arange(0, 96, 1 / 12)
    st = simulate(timeline(sleeps), t[None, :])
    h = t - DAY0
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(h, st.homeostatic[0], label="S")
    ax.plot(h, st.circadian[0] + st.ultradian[0], label="C + U")
    ax.plot(h, st.alertness[0], label="X = S + C + U + W", lw=2)
    for a, b in sleeps:
        ax.axvspan(a - DAY0, b - DAY0, color="0.9")
    ax.set(xlabel="hours from day 0 00:00 UTC", ylabel="TPM units",
           title="Habitual 23:00-07:00 sleep (shaded): S, C+U and alertness")  # fmt: skip
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(OUT / "model-processes.png", dpi=110)


def night_duty() -> None:
    sleeps = [(DAY0 + 23 + 24 * k, DAY0 + 31 + 24 * k) for k in range(3)]
    report, off = DAY0 + 72 + 22.0, DAY0 + 72 + 31.0
    t = np.arange(report, off, 1 / 60)[None, :]
    fig, ax = plt.subplots(figsize=(9, 4))
    for params, label in ((DEFAULT, "ingre2014_5c"), (TPM_DEFAULT, "tpm_default")):
        st = simulate(timeline(sleeps), t, params)
        wl = workload_kss(t, [report], [off], [2], [0.0], params=params)
        ax.plot(t[0] - report, final_kss(st.alertness, wl, params)[0], label=label)
    ax.axhline(7.0, color="r", ls="--", lw=1, label="KSS 7 warning")
    ax.set(
        xlabel="hours since report (22:00 UTC, acclimatised, 2 sectors)",
        ylabel="KSS",
        ylim=(1, 9),
        title="KSS across a night duty after habitual sleep, awake since 07:00",
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(OUT / "model-night-duty.png", dpi=110)


def reentrainment() -> None:
    days = np.linspace(0, 10, 241)
    fig, ax = plt.subplots(figsize=(9, 4))
    shifts = (
        (8.0, "8 h east (advance 1.0 h/day)"),
        (-8.0, "8 h west (delay 1.5 h/day)"),
        (10.0, "10 h east (antidromic: delay 14 h)"),
    )
    for shift, label in shifts:
        phi = advance_phase(0.0, shift, days * 24.0)
        gap = np.abs(12.0 - np.mod(12.0 - (shift - phi), 24.0))
        ax.plot(days, gap, label=label)
    ax.set(
        xlabel="days after the shift",
        ylabel="|body clock - local time| [h]",
        title="Re-entrainment after a time-zone change (reference §3)",
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(OUT / "model-reentrainment.png", dpi=110)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    processes()
    night_duty()
    reentrainment()
