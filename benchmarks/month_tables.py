"""Month tables of duty risk and fatigue at the controls, by fleet type and crew type (figures).

Usage (from a checkout's root; the same script scores in an older checkout)::

    PYTHONPATH=$PWD/src python benchmarks/month_tables.py --write /tmp/month  # roster + truth
    PYTHONPATH=$PWD/src python benchmarks/month_tables.py --read /tmp/month   # score, print

``--write`` saves the legal ``generate_airline_roster(10000, 28, seed=7)`` (CSV) with its
ground truth (JSON: reference, UTC report, sectors, CrewComposition, fleet, rank, start and
end airport, home base) so that another checkout (the model before a change) scores the
same month with ``--read``. ``--read`` scores the roster once (KSS and risk, the service's
code path) and prints, in plain text for pasting:

- per group (haul × crew type, and each fleet): the share of duties in each risk band, the
  median R by number of sectors, the mean risk components, and the top 20 duties with
  their components;
- per group: the mean top-of-descent KSS (highest working score in the duty's last hour),
  the share of duties whose peak KSS at work is 8 or more, and sleep per 24 h off duty at
  home and on layovers;
- F: layover against home sleep like with like: per trip, the field's measure (sleep per
  24 h over the layovers against the same crew member's 72 h before the trip), and off-duty
  periods of the same length at home and away.

Degrades on older checkouts: without risk bands the current definition (1.3 / 2 / 3) is
used (so both columns compare alike); without risk components the tables say so; without
the at-controls mask (``DutyResult.rest``) every interval of the duty counts (stated in the
output as "all intervals").
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

#: risk band edges when the checkout has none (the current definition, docs/model.md)
FALLBACK_BANDS = (("acceptable", 0.0, 1.3), ("monitor", 1.3, 2.0), ("mitigate", 2.0, 3.0),
                  ("redesign", 3.0, float("inf")))  # fmt: skip
PEAK_LEVEL = 8.0
TOD_INTERVALS = 4  #: the duty's last hour (vigil.scoring.controls.TOD_INTERVALS)
SHORT_FLEETS = ("A320", "A321", "B737", "E190")
TOP = 20
#: short names of the risk components (docs/model.md "Risk": h = S·T·D·B·M, E per event)
SHORT = {"sleepiness": "S", "timeOfDay": "T", "timeOnDuty": "D", "breaks": "B",
         "consecutive": "M", "workingHours": "workH", "taskExposure": "E",
         "priorSleep": "sleep24h"}  # fmt: skip


def write(folder: Path, crew: int, days: int, seed: int, derived_rest: bool = False) -> None:
    """Save the month and its ground truth (module doc). ``derived_rest``: blank the
    FirstRest/SecondRest columns of augmented and cabin-crew duties, so the scorer places
    each person's own rest slot from CrewComposition, SleepCount and SleepOrder (reference
    §5.1) instead of the generator's rests, which span the whole cruise."""
    from dataclasses import replace

    from vigil.roster.synthetic import generate_airline_duties, render_roster

    duties = generate_airline_duties(crew, days, seed)
    if derived_rest:
        duties = [
            replace(d, first_rest=None, second_rest=None) if d.crew_composition in (3, 4, 9) else d
            for d in duties
        ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text(render_roster(duties))
    truth = [
        [d.reference, d.on_duty.isoformat(), d.sectors, d.crew_composition, d.fleet, d.rank,
         d.start, d.end, d.home]
        for d in duties
    ]  # fmt: skip
    (folder / "truth.json").write_text(json.dumps(truth))
    print(f"wrote {len(duties)} duties of {crew} crew to {folder}")


def _bands() -> tuple[tuple[str, float, float], ...]:
    try:
        from vigil.settings.bands import RISK_BANDS
    except ImportError:
        return FALLBACK_BANDS
    return tuple((b.words, b.lower, b.upper) for b in RISK_BANDS)


def _score(text: str) -> Any:
    from vigil.scoring.service import score

    try:
        from vigil.scoring.request import ScoreRequest
    except ImportError:  # pragma: no cover - older layout
        from vigil.scoring.service import ScoreRequest  # type: ignore[attr-defined,no-redef]
    return score(ScoreRequest(text, risk=True))


def _summaries(kss: np.ndarray, working: np.ndarray) -> tuple[float, float]:
    """(peak, top of descent) of one duty's interval KSS over its working intervals."""
    if not working.any():
        return float("nan"), float("nan")
    peak = float(np.max(kss[working]))
    last = working.copy()
    last[: max(0, kss.size - TOD_INTERVALS)] = False
    tod = float(np.max(kss[last])) if last.any() else float("nan")
    return peak, tod


def _sleep_per_24h(
    sleep: Any, duties: list[tuple[float, float, bool]]
) -> tuple[list[float], list[float]]:
    """Per off-duty period between consecutive duties: (sleep hours, period hours) at
    home and on layovers; ``duties`` are (report, off, ends at home) in epoch hours."""
    starts = np.array([e.start for e in sleep], dtype=np.float64)
    ends = np.array([e.end for e in sleep], dtype=np.float64)
    home = [0.0, 0.0]
    away = [0.0, 0.0]
    for (_, off, at_home), (nxt, _, _) in zip(duties, duties[1:], strict=False):
        if nxt <= off:
            continue
        target = home if at_home else away
        target[0] += _asleep(starts, ends, off, nxt)
        target[1] += nxt - off
    return home, away


#: off-duty period lengths [h] for the matched home/layover comparison (section F)
PERIOD_BINS = ((0.0, 14.0), (14.0, 24.0), (24.0, 36.0), (36.0, 48.0), (48.0, 72.0),
               (72.0, float("inf")))  # fmt: skip
#: the pre-trip span of the field measure: the 72 h before a trip's first report [h]
PRE_TRIP_H = 72.0


def _asleep(starts: np.ndarray, ends: np.ndarray, a: float, b: float) -> float:
    return float(np.clip(np.minimum(ends, b) - np.maximum(starts, a), 0, None).sum())


def _by_period(
    sleep: Any, duties: list[tuple[float, float, bool]]
) -> dict[tuple[bool, int], list[float]]:
    """(at home, period bin) -> [sleep hours, period hours, periods] over off-duty periods."""
    starts = np.array([e.start for e in sleep], dtype=np.float64)
    ends = np.array([e.end for e in sleep], dtype=np.float64)
    out: dict[tuple[bool, int], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for (_, off, at_home), (nxt, _, _) in zip(duties, duties[1:], strict=False):
        if nxt <= off:
            continue
        b = next(i for i, (lo, hi) in enumerate(PERIOD_BINS) if lo <= nxt - off < hi)
        acc = out[(at_home, b)]
        acc[0] += _asleep(starts, ends, off, nxt)
        acc[1] += nxt - off
        acc[2] += 1
    return out


def _trips(sleep: Any, duties: list[tuple[float, float, bool]]) -> list[tuple[float, float]]:
    """Per trip (the duties from leaving home base to the one ending there), the field's
    measure (SLEEP abstract 0177): sleep per 24 h over the trip's layovers and over the
    72 h before its first report, for trips with no duty in those 72 h [h/24 h]."""
    starts = np.array([e.start for e in sleep], dtype=np.float64)
    ends = np.array([e.end for e in sleep], dtype=np.float64)
    out: list[tuple[float, float]] = []
    i = 0
    while i < len(duties):
        if duties[i][2]:
            i += 1
            continue
        j, slept, hours = i, 0.0, 0.0
        while j + 1 < len(duties) and not duties[j][2]:
            slept += _asleep(starts, ends, duties[j][1], duties[j + 1][0])
            hours += duties[j + 1][0] - duties[j][1]
            j += 1
        report = duties[i][0]
        free = all(off <= report - PRE_TRIP_H for _, off, _ in duties[:i])
        if hours > 0 and duties[j][2] and free and report - PRE_TRIP_H >= starts.min():
            pre = _asleep(starts, ends, report - PRE_TRIP_H, report)
            out.append((24.0 * slept / hours, 24.0 * pre / PRE_TRIP_H))
        i = j + 1
    return out


def _short_of_sleep(sleep: Any, duties: list[tuple[float, float, bool]]) -> list[list[int]]:
    """[from home, from a layover] x [duties, < 2 h asleep in the 24 h before report,
    > 16 h awake at report]: the reports the predictor leaves short of sleep."""
    starts = np.array([e.start for e in sleep], dtype=np.float64)
    ends = np.array([e.end for e in sleep], dtype=np.float64)
    out = [[0, 0, 0], [0, 0, 0]]
    for k, (report, _, _) in enumerate(duties):
        row = out[0 if k == 0 or duties[k - 1][2] else 1]
        before = ends[ends <= report + 1e-9]
        row[0] += 1
        row[1] += _asleep(starts, ends, report - 24.0, report) < 2.0
        row[2] += bool(before.size) and report - float(before.max()) > 16.0
    return out


def _print_layovers(
    names: list[str],
    periods: dict[str, dict[tuple[bool, int], list[float]]],
    trips: dict[str, list[tuple[float, float]]],
    short: dict[str, list[list[int]]],
) -> None:
    """Section F: layover against home sleep, matched two ways (module doc)."""
    print(
        "\nF. layover against home sleep, like with like (predicted sleep episodes, h/24 h)\n"
        "  trips: the field's measure (SLEEP abstract 0177: -17 min on layovers), sleep per\n"
        f"  24 h over a trip's layovers and over the {PRE_TRIP_H:g} h before its first report,\n"
        "  same crew member, trips with no duty in those hours"
    )
    print(f"  {'group':22s} {'trips':>6s} {'layover':>8s} {'pre-trip':>9s} {'difference':>11s}")
    for g in names:
        t = np.array(trips[g]) if trips[g] else np.zeros((0, 2))
        if len(t):
            diff = 60.0 * float(np.mean(t[:, 0] - t[:, 1]))
            print(
                f"  {g:22s} {len(t):6d} {t[:, 0].mean():8.2f} {t[:, 1].mean():9.2f} "
                f"{diff:+9.0f} min"
            )
    print("  off-duty periods of the same length, at home / on layovers (periods)")
    head = "  ".join(f"{lo:g}-{hi:g} h" for lo, hi in PERIOD_BINS)
    print(f"  {'group':22s} {head}")
    for g in names:
        cells = []
        for b in range(len(PERIOD_BINS)):
            pair = []
            for home in (True, False):
                slept, hours, n = periods[g].get((home, b), (0.0, 0.0, 0.0))
                pair.append(f"{24 * slept / hours:5.2f}" if n >= 20 else "    -")
            cells.append("/".join(pair))
        print(f"  {g:22s} " + "  ".join(cells))
    print("  reports short of sleep, from home / from a layover: duties, < 2 h asleep in the")
    print("  24 h before report, > 16 h awake at report")
    for g in names:
        (hn, h2, h16), (ln, l2, l16) = short[g]
        print(f"  {g:22s} {hn:6d} {h2:5d} {h16:5d}  /  {ln:6d} {l2:5d} {l16:5d}")


def read(folder: Path) -> None:
    """Score the saved month and print the tables (module doc)."""
    text = (folder / "roster.csv").read_text()
    truth: dict[str, list[list[Any]]] = defaultdict(list)
    for row in json.loads((folder / "truth.json").read_text()):
        truth[row[0]].append(row)
    start = time.perf_counter()
    report = _score(text)
    seconds = time.perf_counter() - start
    print(
        f"scored {len(report.schedules)} schedules in {seconds:.0f} s; "
        f"model {report.model_version}; errors {len(report.errors)}"
    )
    bands = _bands()
    has_mask = "rest" in getattr(type(report.schedules[0].duties[0]), "_fields", ())
    has_drivers = "drivers" in getattr(type(report.schedules[0].duties[0]), "_fields", ())
    rows: list[dict[str, Any]] = []
    sleep_by_group: dict[str, list[list[float]]] = defaultdict(lambda: [[0.0, 0.0], [0.0, 0.0]])
    periods: dict[str, dict[tuple[bool, int], list[float]]] = defaultdict(
        lambda: defaultdict(lambda: [0.0, 0.0, 0.0])
    )
    trips: dict[str, list[tuple[float, float]]] = defaultdict(list)
    short: dict[str, list[list[int]]] = defaultdict(lambda: [[0, 0, 0], [0, 0, 0]])
    for s in report.schedules:
        known = sorted(truth[s.reference], key=lambda r: r[1])
        kss_all = np.asarray(s.scores["KSS"], dtype=np.float64)
        fleet, rank = known[0][4], known[0][5]
        haul = "short-haul" if fleet in SHORT_FLEETS else "long-haul"
        crew = "cabin" if rank in ("CC", "PUR") else "pilots"
        groups = (f"{haul} {crew}", fleet)
        spans: list[tuple[float, float, bool]] = []
        for d, t in zip(s.duties, known, strict=True):
            kss = kss_all[d.first_interval : d.first_interval + d.interval_count]
            working = np.ones(kss.size, dtype=bool)
            if has_mask:
                for first, count in d.rest:
                    working[first : first + count] = False
            peak, tod = _summaries(kss, working)
            on, off = d.on_duty.timestamp() / 3600, d.off_duty.timestamp() / 3600
            spans.append((on, off, t[7] == t[8]))
            drivers = d.drivers if has_drivers else None
            rows.append({
                "groups": groups, "ref": s.reference, "on": t[1][:16], "route": f"{t[6]}-{t[7]}",
                "sectors": t[2], "comp": t[3], "risk": d.risk, "peak": peak, "tod": tod,
                "hours": (d.off_duty - d.on_duty).total_seconds() / 3600,
                "why": "; ".join(drivers.reasons) if drivers else "",
                "components": drivers.components if drivers else {},
            })  # fmt: skip
        home, away = _sleep_per_24h(s.sleep, spans)
        by_period, own_trips = _by_period(s.sleep, spans), _trips(s.sleep, spans)
        own_short = _short_of_sleep(s.sleep, spans)
        for g in (*groups, "all"):
            trips[g] += own_trips
            for where in (0, 1):
                mine = own_short[where]
                short[g][where] = [a + b for a, b in zip(short[g][where], mine, strict=True)]
            for key, (slept, hours, n) in by_period.items():
                cell = periods[g][key]
                cell[0] += slept
                cell[1] += hours
                cell[2] += n
            acc = sleep_by_group[g]
            acc[0][0] += home[0]
            acc[0][1] += home[1]
            acc[1][0] += away[0]
            acc[1][1] += away[1]
    names = sorted({g for r in rows for g in r["groups"]}, key=lambda g: (" " not in g, g))
    names.append("all")

    def members(g: str) -> list[dict[str, Any]]:
        return [r for r in rows if g == "all" or g in r["groups"]]

    mask_words = "at the controls" if has_mask else "all intervals (no at-controls mask here)"
    print(
        f"\nA. share of duties per risk band (R edges {', '.join(f'{b[1]:g}' for b in bands[1:])})"
    )
    print(f"  {'group':22s} {'duties':>7s} " + " ".join(f"{b[0]:>11s}" for b in bands))
    for g in names:
        rs = [r["risk"] for r in members(g) if r["risk"] is not None]
        shares = [sum(lo <= x < hi for x in rs) / len(rs) for _, lo, hi in bands]
        print(f"  {g:22s} {len(rs):7d} " + " ".join(f"{100 * v:10.1f}%" for v in shares))
    print("\nB. median R by number of sectors (n duties)")
    for g in names:
        by: dict[int, list[float]] = defaultdict(list)
        for r in members(g):
            if r["risk"] is not None:
                by[r["sectors"]].append(r["risk"])
        cells = "  ".join(
            f"{k}: {statistics.median(v):.2f} ({len(v)})" for k, v in sorted(by.items())
        )
        print(f"  {g:22s} {cells}")
    print("\nC. mean risk components (hour-weighted within a duty, then mean over duties)")
    if not has_drivers:
        print("  not available: this checkout's duties carry no risk components")
    else:
        keys = list(rows[0]["components"])
        print(f"  {'group':22s} {'mean R':>7s} " + " ".join(f"{k[:11]:>11s}" for k in keys))
        for g in names:
            ms = members(g)
            means = [statistics.fmean(r["components"][k] for r in ms) for k in keys]
            mean_r = statistics.fmean(r["risk"] for r in ms)
            print(f"  {g:22s} {mean_r:7.3f} " + " ".join(f"{v:11.3f}" for v in means))
    print(
        f"\nD. fatigue {mask_words}: mean top-of-descent KSS, share of duties peaking at "
        f"KSS >= {PEAK_LEVEL:g}; sleep per 24 h off duty (predicted sleep episodes) "
        "at home / on layovers"
    )
    print(
        f"  {'group':22s} {'duties':>7s} {'TOD KSS':>8s} {'peak>=8':>8s} {'home h/24h':>11s} "
        f"{'layover h/24h':>14s}"
    )
    for g in names:
        ms = members(g)
        tod = np.array([r["tod"] for r in ms])
        peak = np.array([r["peak"] for r in ms])
        (hs, hh), (ls, lh) = sleep_by_group[g]
        home = 24 * hs / hh if hh else float("nan")
        lay = 24 * ls / lh if lh else float("nan")
        print(
            f"  {g:22s} {len(ms):7d} {np.nanmean(tod):8.2f} "
            f"{np.mean(np.nan_to_num(peak) >= PEAK_LEVEL):8.1%} {home:11.2f} {lay:14.2f}"
        )
    _print_layovers(names, periods, trips, short)
    for g in [n for n in names if " " in n or n == "all"]:  # haul × crew groups and all
        print(f"\nE. top {TOP} duties by R: {g}")
        for r in sorted(members(g), key=lambda r: -(r["risk"] or 0.0))[:TOP]:
            c = r["components"]
            comp = " ".join(f"{SHORT.get(k, k)}={v:g}" for k, v in c.items()) if c else "-"
            print(
                f"  R {r['risk']:6.3f} {r['ref']:7s} {r['on']} {r['route']:7s} {r['sectors']} sec "
                f"cc{r['comp']} {r['hours']:5.2f} h TOD {r['tod']:.2f} | {r['why']} | {comp}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--write", type=Path)
    parser.add_argument("--read", type=Path)
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--derived-rest",
        action="store_true",
        help="with --write: let the scorer place augmented crews' own rest",
    )
    args = parser.parse_args()
    if args.write:
        write(args.write, args.crew, args.days, args.seed, args.derived_rest)
    if args.read:
        read(args.read)


if __name__ == "__main__":
    main()
