"""Chunk layout of a crew plan (vigil.scoring.layout)."""

from __future__ import annotations

import numpy as np

from vigil import model
from vigil.domain import DateFormat
from vigil.model.sleep import DEFAULT_SLEEP
from vigil.roster import parse_request
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.grid import epoch_hours
from vigil.scoring.layout import build_layout
from vigil.scoring.plan import plan_schedules
from vigil.scoring.rest import rest_windows


def test_layout_rest_windows_are_each_duty_s_own_windows() -> None:
    # long-haul crew have in-flight rest: compare each duty's padded rows with the
    # per-duty reference function of scoring.rest
    schedules = parse_request(generate_airline_roster(40, 14, seed=5), DateFormat.DMY).schedules
    params = model.PRESETS["ingre2014_5c"]
    plan = plan_schedules(schedules, params, DEFAULT_SLEEP)
    layout = build_layout(plan, 3, 37)
    duties = [d for s in schedules[3:37] for d in s.duties]
    assert len(duties) == layout.on.size
    assert layout.inflight.any() and layout.inflight.dtype == bool
    for k, duty in enumerate(duties):
        windows = rest_windows(duty, params, DEFAULT_SLEEP)
        n = len(windows)
        assert np.isnan(layout.rest_start[k, n:]).all() and not layout.inflight[k, n:].any()
        for j, window in enumerate(windows):
            assert layout.inflight[k, j] == (window.kind == "inflight")
            assert layout.rest_start[k, j] == epoch_hours(window.start)
            assert layout.rest_end[k, j] == epoch_hours(window.end)


def test_layout_columns_match_their_array_statement() -> None:
    # the compiled walk of build_layout against the NumPy statement it replaced
    schedules = parse_request(generate_airline_roster(40, 14, seed=5), DateFormat.DMY).schedules
    plan = plan_schedules(schedules, model.PRESETS["ingre2014_5c"], DEFAULT_SLEEP)
    for lo, hi in ((3, 37), (0, 1), (5, 5), (0, 40)):
        layout = build_layout(plan, lo, hi)
        d0, d1 = int(plan.offsets[lo]), int(plan.offsets[hi])
        per_duty = np.diff(plan.offsets[lo : hi + 1])
        crew = np.repeat(np.arange(hi - lo), per_duty)
        count = plan.count[d0:d1]
        duty = np.repeat(np.arange(count.size), count)
        duty_first = np.cumsum(count) - count
        position = np.arange(duty.size) - duty_first[duty]
        per_crew = np.bincount(crew, weights=count, minlength=hi - lo).astype(np.int64)
        crew_first = duty_first - (np.cumsum(per_crew) - per_crew)[crew]
        np.testing.assert_array_equal(layout.crew, crew)
        np.testing.assert_array_equal(
            layout.slot, np.arange(count.size) - (np.cumsum(per_duty) - per_duty)[crew]
        )
        np.testing.assert_array_equal(layout.duty, duty)
        np.testing.assert_array_equal(layout.position, position)
        np.testing.assert_array_equal(layout.column, crew_first[duty] + position)
        np.testing.assert_array_equal(layout.start, plan.on[d0:d1][duty] + 0.25 * position)
        assert layout.width == (int(per_crew.max()) if per_crew.size else 0)
        np.testing.assert_array_equal(
            layout.interval_ptr, np.concatenate([[0], np.cumsum(per_crew)])
        )
        assert layout.rest_start.shape[0] == layout.inflight.shape[0] == count.size
