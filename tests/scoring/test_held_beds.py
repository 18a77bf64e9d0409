"""Held times in bed through the service's scoring path (model 1.5.0, docs/model.md).

A laboratory protocol's bed is declared on the request (``ScoreRequest.held_beds``, not
part of the contract); without it the same roster's window follows the field gates."""

from __future__ import annotations

from vigil.scoring.request import ScoreRequest
from vigil.scoring.service import score
from vigil.validation import rosters as r
from vigil.validation.independent_cases import laboratory


def _asleep(held: bool) -> float:
    bed = (r.at(4, 7.0), r.at(4, 14.0))  # after a night awake (Sargent et al. 2022)
    lab = laboratory("LAB", r.at(3, 7.0), r.at(5, 6.0), [bed])
    request = ScoreRequest(
        r.roster_text([lab]),
        include_sleep=True,
        held_beds=r.held_beds([lab]) if held else None,
    )
    report = score(request)
    assert report.errors == ()
    a, b = (t.timestamp() / 3600.0 for t in bed)
    return sum(max(0.0, min(e.end, b) - max(e.start, a)) for e in report.schedules[0].sleep)


def test_a_held_bed_is_slept_longer_than_the_same_window_in_the_field() -> None:
    field, held = _asleep(False), _asleep(True)
    assert 4.0 < field < 5.5  # the wake gate ends a day sleep after a night awake
    assert held > 6.5  # the held bed is slept on (whole 7-h sleep period here)
