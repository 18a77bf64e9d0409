"""Duty risk on the legal airline month, by fleet type and crew type (figures).

Usage (from the worktree root)::

    PYTHONPATH=$PWD/src python benchmarks/risk_month.py --write /tmp/month   # roster + truth
    PYTHONPATH=$PWD/src python benchmarks/risk_month.py --read /tmp/month    # score, print

``--write`` saves the legal ``generate_airline_roster(10000, 28, seed=7)`` as CSV with its
ground truth (JSON: reference, UTC report, sectors, CrewComposition, Fleet, Rank) so that
another checkout (the model before a change) can score the same month with ``--read``.
Prints the share of duties per risk band, the median R by number of sectors, per
short-/long-haul and pilot/cabin crew, and the top 20 duties with their components where
the scoring path gives them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def write(folder: Path, crew: int, days: int, seed: int) -> None:
    from vigil.roster.synthetic import generate_airline_duties, render_roster

    duties = generate_airline_duties(crew, days, seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text(render_roster(duties))
    truth = [
        [d.reference, d.on_duty.isoformat(), d.sectors, d.crew_composition, d.fleet, d.rank,
         d.start, d.end]
        for d in duties
    ]  # fmt: skip
    (folder / "truth.json").write_text(json.dumps(truth))
    print(f"wrote {len(duties)} duties of {crew} crew to {folder}")


def _group(composition: int, rank: str) -> str:
    haul = "short-haul" if composition == 2 else "long-haul"
    crew = "cabin" if composition == 9 or rank in ("CC", "PUR") else "pilots"
    return f"{haul} {crew}"


def read(folder: Path) -> None:
    from vigil.scoring.service import ScoreRequest, score

    try:
        from vigil.settings.bands import RISK_BANDS
    except ImportError:  # pragma: no cover - a checkout without bands
        RISK_BANDS = ()  # noqa: N806
    text = (folder / "roster.csv").read_text()
    truth: dict[str, list[list[Any]]] = defaultdict(list)
    for row in json.loads((folder / "truth.json").read_text()):
        truth[row[0]].append(row)
    start = time.perf_counter()
    report = score(ScoreRequest(text, risk=True))
    print(f"scored {len(report.schedules)} schedules in {time.perf_counter() - start:.1f} s; "
          f"model {report.model_version}; errors {len(report.errors)}")  # fmt: skip
    rows: list[dict[str, Any]] = []
    for s in report.schedules:
        known = sorted(truth[s.reference], key=lambda r: r[1])
        for d, t in zip(s.duties, known, strict=True):
            if d.risk is None:
                continue
            drivers = getattr(d, "drivers", None)
            rows.append({
                "ref": s.reference, "on": t[1][:16], "route": f"{t[6]}-{t[7]}", "sectors": t[2],
                "group": _group(t[3], t[5]), "risk": d.risk,
                "hours": (d.off_duty - d.on_duty).total_seconds() / 3600,
                "why": "; ".join(drivers.reasons) if drivers else "",
                "components": drivers.components if drivers else {},
            })  # fmt: skip
    groups = sorted({r["group"] for r in rows})
    print("\nshare of duties per band (bands of this checkout)")
    names = [f"{b.words} <{b.upper:g}" for b in RISK_BANDS]
    print(f"  {'group':22s} {'duties':>7s} " + " ".join(f"{n:>18s}" for n in names))
    for g in [*groups, "all"]:
        rs = [r["risk"] for r in rows if g in ("all", r["group"])]
        shares = [sum(b.lower <= x < b.upper for x in rs) / len(rs) for b in RISK_BANDS]
        print(f"  {g:22s} {len(rs):7d} " + " ".join(f"{100 * v:17.1f}%" for v in shares))
    print("\nmedian R by number of sectors")
    for g in [*groups, "all"]:
        by: dict[int, list[float]] = defaultdict(list)
        for r in rows:
            if g in ("all", r["group"]):
                by[r["sectors"]].append(r["risk"])
        cells = ", ".join(
            f"{k}: {statistics.median(v):.2f} (n={len(v)})" for k, v in sorted(by.items())
        )
        print(f"  {g:22s} {cells}")
    print("\ntop 20 duties")
    for r in sorted(rows, key=lambda r: -r["risk"])[:20]:
        c = r["components"]
        comp = " ".join(f"{k[:5]}={v:g}" for k, v in c.items()) if c else ""
        print(f"  R {r['risk']:6.3f} {r['group']:20s} {r['ref']:12s} {r['on']} {r['route']:9s} "
              f"{r['sectors']} sec {r['hours']:5.2f} h | {r['why']} | {comp}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path)
    parser.add_argument("--read", type=Path)
    parser.add_argument("--crew", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.write:
        write(args.write, args.crew, args.days, args.seed)
    if args.read:
        read(args.read)


if __name__ == "__main__":
    main()
