"""The golden baseline (item 8): the scoring path's results, pinned.

``tests/data/golden.json`` was computed by ``scripts/update-golden`` from the service's
public entry point; any change to a count, a risk or a sampled score on any scale fails
here. A deliberate model change regenerates the file and explains why in its commit.
"""

from __future__ import annotations

import json

from golden_cases import GOLDEN, compute, render


def test_golden_baseline_is_unchanged() -> None:
    expected = GOLDEN.read_text()
    actual = render(compute())
    if actual != expected:  # name the first scenario that moved, then compare everything
        old, new = json.loads(expected), json.loads(actual)
        moved = [name for name in old if old[name] != new.get(name)]
        assert moved == [], f"golden baseline changed in {moved}; see scripts/update-golden"
    assert actual == expected


def test_golden_baseline_covers_every_scenario_and_scale() -> None:
    baseline = json.loads(GOLDEN.read_text())
    assert set(baseline) == {"readme", "night_run", "airline_mix", "given_sleep"}
    for scenario in baseline.values():
        for schedule in scenario["schedules"]:
            assert set(schedule["scores"]) == {"SP", "KSS", "KP", "VD", "CRD", "PMR"}
            assert len(schedule["risk"]) == len(schedule["duties"])
            assert sum(n for _, n in schedule["duties"]) == schedule["intervals"]
