"""The exposure mask of :func:`vigil.scoring.duty_risk.duty_risks` (reference §8) and its
risk grids grouped by duty length."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring import duty_risk, service
from vigil.scoring.duty_risk import (
    DutyRiskDetail,
    WidthGroup,
    _exposed,
    duty_risk_detail,
    duty_risks,
    width_groups,
)


def test_exposure_leaves_out_sleep_and_own_inflight_rest_only() -> None:
    rng = np.random.default_rng(4)
    n_crew, m, n_duty, r, n_int = 6, 5, 12, 3, 400
    base = 20_000 * 24.0
    starts = base + np.cumsum(rng.uniform(2.0, 30.0, (n_crew, m)), axis=1)
    ends = starts + rng.uniform(0.5, 1.5, (n_crew, m))
    count = rng.integers(0, m + 1, n_crew)
    count[2] = 0  # a crew member with no sleep at all
    pad = np.arange(m)[None, :] >= count[:, None]
    starts[pad], ends[pad] = np.nan, np.nan
    rest_start = base + rng.uniform(0.0, 150.0, (n_duty, r))
    rest_end = rest_start + rng.uniform(0.5, 3.0, (n_duty, r))
    rest_start[:, 2] = rest_end[:, 2] = np.nan
    inflight = rng.random((n_duty, r)) < 0.6
    crew = rng.integers(0, n_crew, n_int)
    duty = rng.integers(0, n_duty, n_int)
    start = base + rng.uniform(0.0, 160.0, n_int)
    # off duty of each interval's duty: often after the interval, sometimes inside it
    off = np.empty(n_duty)
    off[duty] = start + rng.choice([0.05, 0.2, 3.0], n_int)
    mid = (start + np.minimum(start + 0.25, off[duty])) / 2  # interval midpoints
    assert np.sum(mid < start + 0.125) > 10  # short intervals among them
    position = np.arange(n_int)  # one cell of out per interval
    out = np.zeros((n_duty, n_int), dtype=bool)
    _exposed(crew, start, duty, position, off, starts, ends, rest_start, rest_end, inflight, out)
    exposed = out[duty, position]
    for t in range(n_int):
        c, d, x = crew[t], duty[t], mid[t]
        asleep = bool(np.any((starts[c] <= x) & (x < ends[c])))
        resting = bool(np.any(inflight[d] & (rest_start[d] <= x) & (x < rest_end[d])))
        assert exposed[t] == (not (asleep or resting))
    assert 10 < (~exposed).sum() < n_int - 10  # both outcomes exercised


def test_width_groups_pad_each_duty_to_a_multiple_of_eight_it_fits() -> None:
    lengths = np.array([1, 7, 8, 16, 17, 33, 48, 49, 56, 57, 61], np.int64)
    # a request's few duties stay on one grid (grouping would not pay for its passes)
    assert [g.width for g in width_groups(lengths)] == [61]
    count = np.tile(lengths, 2_000)  # a batch's thousands of duties
    groups = width_groups(count)
    rows = np.sort(np.concatenate([g.rows for g in groups]))
    assert (rows == np.arange(count.size)).all()  # every duty in exactly one group
    for g in groups:
        assert (count[g.rows] <= g.width).all()
        # multiples of 8 up to 8·⌊61/8⌋ = 56; longer duties keep the chunk's width 61
        assert g.width % 8 == 0 if g.width != 61 else (count[g.rows] > 56).all()
    assert {g.width for g in groups} == {16, 32, 48, 56, 61}
    # no grouping where NumPy's pairwise split depends on the width
    assert [g.width for g in width_groups(np.array([5, 3]))] == [5]
    assert [g.width for g in width_groups(np.array([12, 130]))] == [130]


def test_risk_by_width_groups_is_bit_equal_to_one_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    # every chunk of a long- and short-haul roster: R and every component of each duty
    # the same to the last bit as on one grid padded to the chunk's longest duty, and
    # duty_risks (R alone) the same R
    compared: list[int] = []
    split: list[bool] = []

    def both(*args: Any) -> DutyRiskDetail:
        grouped = duty_risk_detail(*args)
        split.append(len(width_groups(args[0].count)) > 1)
        with monkeypatch.context() as m:
            m.setattr(
                duty_risk, "width_groups", lambda c: [WidthGroup(np.arange(c.size), int(c.max()))]
            )
            one = duty_risk_detail(*args)
        np.testing.assert_array_equal(grouped.risk, one.risk)
        np.testing.assert_array_equal(duty_risks(*args), one.risk)  # without components
        for a, b in zip(grouped.components, one.components, strict=True):
            np.testing.assert_array_equal(a, b)
        compared.append(grouped.risk.size)
        return grouped

    monkeypatch.setattr(service, "duty_risk_detail", both)
    roster = generate_airline_roster(300, 28, seed=3)
    report = service.score(service.ScoreRequest(roster, risk=True))
    assert sum(compared) == sum(len(s.duties) for s in report.schedules) > 1000
    assert any(split)  # chunks big enough to be scored by width groups
