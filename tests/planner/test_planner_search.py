"""The split enumeration: grid, assignments and the EASA minimums (CS FTL.1.205(c))."""

from __future__ import annotations

import numpy as np

from vigil.planner import search

FOUR = np.array([True, True, False, False])
THREE = np.array([True, False, True])


def test_four_pilots_pairs_share_a_break_and_boundaries_sit_on_the_clock_grid() -> None:
    z0, z1 = 100.1, 108.6  # 8.5 h cruise, ends off the grid
    c = search.candidate_splits(z0, z1, FOUR)
    assert c.equal and len(c) > 2
    start, end = search.windows(c)
    # the landing pair always shares a break, the relief pair the other
    assert (c.assign[:, 0] == c.assign[:, 1]).all()
    assert (c.assign[:, 2] == c.assign[:, 3]).all()
    assert (c.assign[:, 0] != c.assign[:, 2]).all()
    inner = c.bounds[1:, 1]  # row 0 is the equal split
    assert np.allclose(inner * 4, np.round(inner * 4))
    assert np.isclose(c.bounds[0, 1], (z0 + z1) / 2)
    assert (c.bounds[:, 0] == z0).all() and (c.bounds[:, -1] == z1).all()


def test_every_candidate_meets_the_easa_minimums() -> None:
    for landing, z1 in ((FOUR, 104.0), (FOUR, 112.0), (THREE, 106.0), (THREE, 110.0)):
        c = search.candidate_splits(100.0, z1, landing)
        start, end = search.windows(c)
        hours = end - start
        # CS FTL.1.205(c): 2 h for the pilots landing, 90 min for the others
        assert (hours[:, landing] >= 2.0 - 1e-9).all()
        assert (hours[:, ~landing] >= 1.5 - 1e-9).all()
        assert (start >= 100.0).all() and (end <= z1).all()


def test_three_pilots_take_one_break_each_in_every_order() -> None:
    c = search.candidate_splits(100.0, 106.0, THREE)
    assert all(sorted(row) == [0, 1, 2] for row in c.assign.tolist())
    orders = {tuple(row) for row in c.assign.tolist()}
    assert len(orders) == 6
    # the three breaks tile the whole cruise
    start, end = search.windows(c)
    assert np.isclose((end - start).sum(axis=1), 6.0).all()


def test_too_short_a_cruise_has_no_candidate() -> None:
    assert len(search.candidate_splits(100.0, 103.25, FOUR)) == 0  # needs 2 + 1.5 h


def test_equal_split_follows_the_rostered_order_when_it_is_a_valid_assignment() -> None:
    bounds, assign = search.equal_split(0.0, 8.0, FOUR, np.array([1, 1, 0, 0]))
    assert bounds.tolist() == [0.0, 4.0, 8.0] and assign.tolist() == [1, 1, 0, 0]
    # an order that splits the landing pair is not a valid assignment: landing goes last
    _, assign = search.equal_split(0.0, 8.0, FOUR, np.array([0, 1, 0, 1]))
    assert assign.tolist() == [1, 1, 0, 0]


def test_rank_is_lexicographic_at_the_reported_precision() -> None:
    primary = np.array([5.0, 4.0, 4.0004, 4.0])
    secondary = np.array([1.0, 3.0, 2.0, 2.5])
    # 4.0004 ties 4.0 at 3 decimals, so the crew mean decides between 1, 2 and 3
    assert search.rank(primary, secondary).tolist() == [2, 3, 1, 0]


def test_rank_breaks_ties_key_by_key_then_by_candidate_order() -> None:
    worst = np.array([6.0, 6.0, 6.0, 5.9])
    landing = np.array([5.0, 4.0, 4.0, 6.5])
    mean = np.array([1.0, 3.0, 3.0, 9.0])
    assert search.rank(worst, landing, mean).tolist() == [3, 1, 2, 0]


def test_objective_judges_each_group_at_its_own_critical_phase() -> None:
    # candidate 0 rests the landing pair long: best landing score, relief pair left at 7.5
    # candidate 1 shares the cruise: landing 5.5, relief 6.0
    last_hour = np.array([[5.0, 5.0, 7.9, 7.9], [5.5, 5.5, 6.5, 6.5]])
    stretch = np.array([[6.0, 6.0, 7.5, 7.5], [6.2, 6.2, 6.0, 6.0]])
    mean = np.full((2, 4), 5.0)
    worst, landing_kss, _ = search.objective(last_hour, stretch, mean, FOUR)
    assert worst.tolist() == [7.5, 6.0]  # relief pairs judged over their stretch, not landing
    assert landing_kss.tolist() == [5.0, 5.5]
    assert search.rank(*search.objective(last_hour, stretch, mean, FOUR)).tolist() == [1, 0]


def test_no_pilot_is_planned_at_the_controls_longer_than_an_unaugmented_day() -> None:
    # a 17.5-h duty, cruise 1.5 h after report to 1 h before off duty (ORO.FTL.205(b): 13 h)
    duty = (0.0, 17.5)
    c = search.candidate_splits(1.5, 16.5, FOUR, duty=duty)
    start, end = search.windows(c)
    stretch = np.maximum(start - duty[0], duty[1] - end)
    assert len(c) > 0 and stretch.max() <= search.MAX_STRETCH_HOURS
    # without the duty window the lopsided splits are admissible again
    everything = search.candidate_splits(1.5, 16.5, FOUR)
    s2, e2 = search.windows(everything)
    assert np.maximum(s2 - duty[0], duty[1] - e2).max() > search.MAX_STRETCH_HOURS
