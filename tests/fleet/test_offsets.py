"""Local offsets of the stored duties (``with_offsets``) against zoneinfo itself, one duty
at a time, on five weeks of March 2026 that cross the US (8 March) and European
(29 March) clock changes: the per-day grouping must not smear a change over a day."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from vigil.domain import DateFormat
from vigil.fleet.table import with_offsets
from vigil.results.compact import unpack
from vigil.roster.synthetic import generate_airline_duties, render_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest
from vigil.worker.roster_job import score_roster
from vigil.worker.scorers import InlineScorer


def _minutes(zone: str, epoch_s: int) -> int:
    if not zone:
        return 0
    offset = datetime.fromtimestamp(epoch_s, UTC).astimezone(ZoneInfo(zone)).utcoffset()
    assert offset is not None
    return int(offset.total_seconds() // 60)


def test_offsets_equal_zoneinfo_across_clock_changes() -> None:
    duties = generate_airline_duties(40, 35, seed=11, first_day=date(2026, 3, 1))
    request = ScoreRequest(
        roster_text=render_roster(duties),
        date_format=DateFormat.DMY,
        scale="KSS",
        risk=True,
        extra_scales=tuple(s for s in SCALE_CODES if s != "KSS"),
    )
    scored = score_roster(request, chunk_size=16, local=InlineScorer())
    assert scored.routes is not None
    stored = unpack(scored.scores, ("KSS",))
    facts = with_offsets(stored, scored.routes)
    zone = scored.routes.airports.zone
    on = [d[0] for e in stored.schedules for d in e.duties]
    off = [d[1] for e in stored.schedules for d in e.duties]
    home = [h for h, e in zip(scored.routes.home, stored.schedules, strict=True) for _ in e.duties]
    start, end = scored.routes.start, scored.routes.end
    assert facts.start_offset == [
        _minutes(zone[a], t) if a >= 0 else 0 for a, t in zip(start, on, strict=True)
    ]
    assert facts.end_offset == [
        _minutes(zone[a], t) if a >= 0 else 0 for a, t in zip(end, off, strict=True)
    ]
    assert facts.home_offset == [
        _minutes(zone[a], t) if a >= 0 else 0 for a, t in zip(home, on, strict=True)
    ]
    # the clock changes are in the data: some home base has two offsets in the five weeks
    by_base: dict[int, set[int]] = {}
    for base, minutes in zip(home, facts.home_offset, strict=True):
        by_base.setdefault(base, set()).add(minutes)
    assert any(len(seen) == 2 for seen in by_base.values())
    counts = [len(e.duties) for e in stored.schedules]
    assert facts.first_duty == [sum(counts[:i]) for i in range(len(counts))]
    rows = [e.interval_count for e in stored.schedules]
    assert facts.row_offset == [sum(rows[:i]) for i in range(len(rows))]
