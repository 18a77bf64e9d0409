"""Figures of the 28-day example rosters of docs/sleep.md, as ``vigil score --show-sleep --risk``
computes them (the same :func:`vigil.scoring.service.score` call).

Run ``.venv/bin/python docs/plots/sleep_before_after.py`` (any checkout: run it with that
checkout's code on ``PYTHONPATH`` to get its "before" figures). The rosters are the first
LHR-based schedules of ``generate_roster(200, 28, seed=4)`` with augmented long-haul duties
(the roster drawn in docs/sleep.md) and with two-pilot duties only (short-haul). Prints one
Markdown row per roster: sleep per 24 h (warm-up excluded), sleep in the 12 h before reports
at 04:00-06:59 home time, in-flight sleep per duty with rest, the share of layover main sleep
inside 22:00-08:00 local, and peak / mean KSS over all duty intervals.
"""

from __future__ import annotations

import numpy as np

from vigil import tz
from vigil.domain import CrewComposition, Schedule
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_roster
from vigil.scoring import grid
from vigil.scoring.grid import epoch_hours
from vigil.scoring.service import ScoreRequest, score


def _pick(schedules: tuple[Schedule, ...], long_haul: bool) -> Schedule:
    for s in schedules:
        augmented = any(d.crew_composition != CrewComposition.TWO_PILOTS for d in s.duties)
        if s.duties[0].home.code == "LHR" and augmented == long_haul:
            return s
    raise RuntimeError("no such schedule")


def _overlap(episodes: list[tuple[float, float]], a: float, b: float) -> float:
    return sum(max(0.0, min(e, b) - max(s, a)) for s, e in episodes)


def figures(text: str, schedule: Schedule) -> dict[str, float | str]:
    rows = [ln for ln in text.splitlines()[1:] if ln.split(",", 1)[0] == schedule.reference]
    roster = "\n".join([text.splitlines()[0], *rows])
    report = score(ScoreRequest(roster_text=roster, include_sleep=True, risk=True))
    result = report.schedules[0]
    sleep = [(e.start, e.end, e.kind) for e in result.sleep]
    first = epoch_hours(schedule.duties[0].on_duty) - 24.0
    last = epoch_hours(schedule.duties[-1].off_duty)
    spans = [(s, e) for s, e, _ in sleep]
    per_day = _overlap(spans, first, last) / (last - first) * 24.0
    home = grid.home_zone(schedule)
    early = []
    for d in schedule.duties:
        t = epoch_hours(d.on_duty)
        local = (t + grid.zone_offset(home, t)) % 24.0
        if 4.0 <= local < 7.0:
            early.append(_overlap(spans, t - 12.0, t))
    inflight = []
    for d in schedule.duties:
        a, b = epoch_hours(d.on_duty), epoch_hours(d.off_duty)
        hours = sum(max(0.0, min(e, b) - max(s, a)) for s, e, k in sleep if k == "inflight")
        if d.crew_composition != CrewComposition.TWO_PILOTS:
            inflight.append(hours)
    in_night = total = 0.0
    for d, nxt in zip(schedule.duties, schedule.duties[1:], strict=False):
        if d.end_airport.code == "LHR":
            continue
        zone = tz.airport(d.end_airport.code)
        a, b = epoch_hours(d.off_duty), epoch_hours(nxt.on_duty)
        for s, e, k in sleep:
            if k != "main" or not (a <= s < b):
                continue
            total += e - s
            off = grid.zone_offset(zone.tz if zone else d.end_airport.tz, s)
            day = np.floor((s + off) / 24.0) * 24.0 - off
            for n in (day - 26.0, day - 2.0, day + 22.0):  # 22:00-08:00 local nights
                in_night += _overlap([(s, e)], n, n + 10.0)
    kss = np.concatenate([np.asarray(v) for k, v in result.scores.items() if k == "KSS"])
    return {
        "model": report.model_version,
        "sleep_per_24h": per_day,
        "before_early": float(np.mean(early)) if early else float("nan"),
        "n_early": float(len(early)),
        "inflight_per_duty": float(np.mean(inflight)) if inflight else float("nan"),
        "layover_local_night": in_night / total if total else float("nan"),
        "kss_peak": float(np.nanmax(kss)),
        "kss_mean": float(np.nanmean(kss)),
    }


def main() -> None:
    text = generate_roster(200, 28, seed=4)
    schedules = parse_request(text, "dmy").schedules
    for name, long_haul in (("long-haul", True), ("short-haul", False)):
        f = figures(text, _pick(schedules, long_haul))
        print(f"| {name} | {f['model']} | {f['sleep_per_24h']:.2f} h | {f['before_early']:.2f} h "
              f"({int(f['n_early'])}) | {f['inflight_per_duty']:.2f} h | "
              f"{100 * f['layover_local_night']:.0f} % | {f['kss_peak']:.2f} / "
              f"{f['kss_mean']:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
