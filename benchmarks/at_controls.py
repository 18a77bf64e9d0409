"""Fatigue at the controls on an airline month: summaries over every interval against the
intervals at work (:mod:`vigil.scoring.controls`).

Scores ``generate_airline_roster(crew, days, seed)`` once with the service's code path
(:func:`vigil.scoring.service.score`, KSS) and prints, per fleet type and for all
long-haul duties (CrewComposition 3, 4 or 9: augmented flight crews and cabin crew):

- the share of duties whose peak KSS is 8 or more: *before*, over every interval of the
  duty; *after*, over the intervals at work only;
- the mean top-of-descent KSS (highest score in the duty's last hour), before and after;
- as a cross-check, the same "after" figures read back through the stored-result path
  (packed blob → :func:`vigil.fleet.table.duty_table`), which must be equal.

Not a timing benchmark: it prints figures (the issue's before/after table).

    PYTHONPATH=src .venv/bin/python benchmarks/at_controls.py [--crew 10000 --days 28 --seed 7]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

import numpy as np

PEAK_LEVEL = 8.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crew", type=int, default=10000)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    from vigil.contract import SCALE_CODES
    from vigil.domain import DateFormat
    from vigil.fleet.table import duty_table, roster_facts
    from vigil.model import DEFAULT
    from vigil.results.compact import unpack
    from vigil.results.frames import encode_frame, join_frames
    from vigil.roster import parse_request
    from vigil.roster.synthetic import generate_airline_roster
    from vigil.scoring.controls import duty_summaries, mask_from_ranges
    from vigil.scoring.request import ScoreRequest
    from vigil.scoring.service import score

    text = generate_airline_roster(args.crew, args.days, seed=args.seed)
    started = time.perf_counter()
    report = score(ScoreRequest(text, risk=False, extra_scales=SCALE_CODES))  # a frame: all six
    print(f"scored {len(report.schedules)} schedules in {time.perf_counter() - started:.0f} s")
    parsed = parse_request(text, DateFormat.DMY)
    fleet_of = {s.reference: s.duties[0].fleet for s in parsed.schedules}
    augmented = {
        (s.reference, d.on_duty): int(d.crew_composition) in (3, 4, 9)
        for s in parsed.schedules
        for d in s.duties
    }

    duties = [(r.reference, d) for r in report.schedules for d in r.duties]
    count = np.array([d.interval_count for _, d in duties], dtype=np.int64)
    on = np.array([d.on_duty.timestamp() for _, d in duties])
    off = np.array([d.off_duty.timestamp() for _, d in duties])
    values = np.concatenate([r.scores["KSS"] for r in report.schedules])
    first = np.cumsum(count) - count
    length = np.full(values.size, 900.0)
    has = count > 0
    length[(first + count - 1)[has]] = (off - on - 900.0 * (count - 1))[has]
    working = mask_from_ranges(count, [d.rest for _, d in duties])
    before = duty_summaries(values, count, length, np.ones_like(working), PEAK_LEVEL)
    after = duty_summaries(values, count, length, working, PEAK_LEVEL)

    # the stored-result path (what the dashboard, exports and GetResults read)
    stored = unpack(join_frames([encode_frame(report.schedules, DEFAULT, SCALE_CODES)]), ("KSS",))
    table = duty_table(stored, roster_facts(stored, parsed.schedules), "KSS")
    same = np.array_equal(np.round(after.peak, 3), table.peak, equal_nan=True)
    same_tod = np.array_equal(np.round(after.tod, 3), table.tod, equal_nan=True)
    print(f"stored path agrees: peak {same}, top of descent {same_tod}")

    fleets = np.array([fleet_of[ref] for ref, _ in duties])
    long_haul = np.array([augmented[(ref, d.on_duty)] for ref, d in duties])
    groups: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(duties), dtype=bool))
    for name in sorted(set(fleets.tolist())):
        groups[name] = fleets == name
    groups["long-haul (augmented)"] = long_haul
    groups["all duties"] = np.ones(len(duties), dtype=bool)
    header = (
        f"{'group':<22} {'duties':>7} {'peak>=8 all':>12} {'peak>=8 work':>13} "
        f"{'TOD all':>8} {'TOD work':>9}"
    )
    print(header)
    for name, chosen in groups.items():
        n = int(chosen.sum())
        if not n:
            continue
        share_before = float(np.mean(before.peak[chosen] >= PEAK_LEVEL))
        share_after = float(np.mean(np.nan_to_num(after.peak[chosen], nan=0.0) >= PEAK_LEVEL))
        print(
            f"{name:<22} {n:>7} {share_before:>12.1%} {share_after:>13.1%} "
            f"{np.nanmean(before.tod[chosen]):>8.2f} {np.nanmean(after.tod[chosen]):>9.2f}"
        )


if __name__ == "__main__":
    main()
