"""The chain evaluation engine against a full re-score (issue: optimiser-grade evaluation).

Every candidate's chain is also written as a roster and scored through
:func:`vigil.scoring.service.score` with risk (the ProcessFatigueRisk path). The engine's
incremental evaluation (restart from the base's state, stop on convergence) and its full
evaluation must give the same duty risks and interval KSS to the golden baseline's
tolerance: its 3 decimals (|Δ| ≤ 0.001, a rounding at the last place may differ).
"""

from __future__ import annotations

import numpy as np
import pytest

from vigil.model.sleep import predict_packed
from vigil.optimise import Candidates, CostSettings, Engine, EngineError
from vigil.optimise import _scoring as sc
from vigil.optimise._ranges import seeded_capacity
from vigil.optimise._walk import Restart, empty_records
from vigil.optimise.costs import with_weights
from vigil.optimise.synthetic import CandidateSet, swap_candidates
from vigil.roster.synthetic import SyntheticDuty, generate_airline_duties, render_roster

TOL = 1e-3 + 1e-9  #: the golden baseline's resolution (3 decimals)


@pytest.fixture(scope="module")
def duties() -> list[SyntheticDuty]:
    return generate_airline_duties(16, 40, seed=11)


@pytest.fixture(scope="module")
def engine(duties: list[SyntheticDuty]) -> Engine:
    return Engine.from_roster(render_roster(duties))


@pytest.fixture(scope="module")
def cands(engine: Engine, duties: list[SyntheticDuty]) -> CandidateSet:
    return swap_candidates(engine, duties, 24, seed=3)


def test_base_walk_gives_the_predictors_episodes(engine: Engine) -> None:
    plan = engine.plan
    start = np.array([w.timestamp() / 3600.0 for w in plan.warmup])
    horizon = sc.horizons(plan)
    zones = sc.crew_zone_timelines(plan, start, np.maximum(horizon, plan.last_event + 1.0))
    packed = sc.pack_plan(plan, start, horizon, zones, engine.params, sc.DEFAULT_SLEEP)
    ptr, s, e, q, k = predict_packed(packed, engine.params, sc.DEFAULT_SLEEP)
    base = engine._base
    assert np.array_equal(base.ep_ptr, ptr)
    for mine, theirs in ((base.ep_s, s), (base.ep_e, e), (base.ep_q, q), (base.ep_k, k)):
        assert np.array_equal(mine, theirs)


def test_the_recorded_state_alone_restarts_the_walk(engine: Engine) -> None:
    """Restarted at any recorded window with no episode seeded, every person's walk gives
    the base's later episodes exactly: the recorded state is all that passes between
    windows (nothing is read back from the episodes)."""
    plan = engine.plan
    start = np.array([w.timestamp() / 3600.0 for w in plan.warmup])
    horizon = sc.horizons(plan)
    zones = sc.crew_zone_timelines(plan, start, np.maximum(horizon, plan.last_event + 1.0))
    packed = sc.pack_plan(plan, start, horizon, zones, engine.params, sc.DEFAULT_SLEEP)
    base = engine._base
    n = plan.n_crew
    cap = seeded_capacity(packed.end - packed.start, np.diff(packed.busy_ptr),
                          np.diff(packed.window_ptr))  # fmt: skip
    tried = 0
    for frac in (0.25, 0.5, 0.75):
        at = base.rec_ptr[:-1] + (frac * np.diff(base.rec_ptr)).astype(np.int64)
        restart = Restart(base.rec.ws[at], np.zeros(n, np.int64), base.rec.s_w[at],
                          base.rec.t_wake[at], np.full(n, np.inf),
                          np.full(n, -1, np.int64), np.zeros(n))  # fmt: skip
        ptr, (s, e, q, k), conv, _ = engine._walk(
            packed, restart, empty_records(0), np.zeros(1, np.int64), cap, record=False
        )
        assert (conv == -1).all()
        for i in range(n):
            lo, hi = base.ep_ptr[i] + base.rec.n[at[i]], base.ep_ptr[i + 1]
            assert ptr[i + 1] - ptr[i] == hi - lo
            got = slice(ptr[i], ptr[i + 1])
            for mine, theirs in ((s, base.ep_s), (e, base.ep_e), (q, base.ep_q), (k, base.ep_k)):
                assert np.array_equal(mine[got], theirs[lo:hi])
            tried += hi > lo
    assert tried > n  # most restarts have episodes after them


def test_incremental_and_full_equal_process_fatigue_risk(
    engine: Engine, cands: CandidateSet
) -> None:
    inc = engine.evaluate(cands.pool, cands.candidates, detail=True)
    full = engine.evaluate_full(cands.pool, cands.candidates)
    assert inc.interval_kss is not None and inc.interval_ptr is not None
    assert full.interval_kss is not None and full.interval_ptr is not None
    assert np.array_equal(inc.duty_ptr, full.duty_ptr)
    for k, chain in enumerate(cands.chains):
        report = sc.score(sc.ScoreRequest(render_roster(chain), risk=True))
        assert not report.errors
        (result,) = report.schedules
        risk = np.array([d.risk for d in result.duties])
        lo, hi = inc.duty_ptr[k], inc.duty_ptr[k + 1]
        np.testing.assert_allclose(inc.duty_risk[lo:hi], risk, atol=TOL, rtol=0)
        np.testing.assert_allclose(full.duty_risk[lo:hi], risk, atol=TOL, rtol=0)
        kss = result.scores["KSS"]
        a, b = inc.interval_ptr[lo], inc.interval_ptr[hi]
        np.testing.assert_allclose(inc.interval_kss[a:b], kss, atol=TOL, rtol=0)
        np.testing.assert_allclose(full.interval_kss[a:b], kss, atol=TOL, rtol=0)
    # the unrounded KSS terms may differ by what the output horizon allows
    # (vigil.optimise.horizon): KSS by |slope|·eps, exp(β·KSS) by a factor exp(β|slope|·eps)
    p = engine.params
    d_kss = abs(p.kss_slope) * engine._eps_out
    rel = np.expm1(p.risk_beta * d_kss)
    full_terms = full.terms.columns()
    for name, values in inc.terms.columns().items():
        if name == "tod_fatigue":
            np.testing.assert_allclose(values, full_terms[name], rtol=rel, atol=1e-9)
        elif name == "tod_kss_max":
            np.testing.assert_allclose(values, full_terms[name], atol=d_kss + 1e-9, rtol=0)
        elif name == "cost":
            tod = np.asarray(full_terms["tod_fatigue"])
            bound = engine.costs.weight("tod_fatigue") * rel * tod + 1e-6
            assert (np.abs(np.asarray(values) - np.asarray(full_terms[name])) <= bound).all()
        else:
            np.testing.assert_allclose(values, full_terms[name], atol=1e-6, rtol=0)
    assert 1e-4 < engine._eps_out < 1e-3  # the bound of the base's highest R, not a guess


def test_the_walk_stops_where_the_state_reconverges(engine: Engine, cands: CandidateSet) -> None:
    seen: dict[str, np.ndarray] = {}
    walk = engine._walk

    def spy(*args: object, **kwargs: object) -> object:
        out = walk(*args, **kwargs)  # type: ignore[arg-type]
        seen["conv"], seen["out"] = out[2], out[3]
        return out

    engine._walk = spy  # type: ignore[method-assign]
    try:
        engine.evaluate(cands.pool, cands.candidates)
    finally:
        del engine._walk
    conv = seen["conv"]
    assert (conv >= 0).any()  # some candidates stop before the end of their chain
    base = engine._base
    stopped = np.flatnonzero(conv >= 0)
    # the window where a walk stopped lies after its candidate's window
    assert (base.rec.ws[conv[stopped]] >= cands.candidates.window_start[stopped]).all()
    # the output horizon (S within the bound, the same sleep after) comes no later, and
    # for some candidates days earlier
    out = seen["out"]
    assert ((out >= 0) | (conv < 0)).all()
    both = np.flatnonzero((out >= 0) & (conv >= 0))
    assert (base.rec.ws[out[both]] <= base.rec.ws[conv[both]]).all()
    assert (base.rec.ws[out[both]] < base.rec.ws[conv[both]] - 24.0).any()
    assert (out[conv < 0] >= 0).any()  # some never re-converge exactly, but to the output


def test_output_eps_is_the_stated_bound(engine: Engine) -> None:
    """docs/optimise.md, "Horizon": δ = 0.0005 (half the last of 3 decimals), KSS
    slope 0.46 and β = ln 1.72 (Åkerstedt et al. 2008) of the default preset."""
    from vigil.optimise.horizon import output_eps

    p = engine.params
    assert abs(p.kss_slope) == 0.46 and p.risk_beta == pytest.approx(np.log(1.72))
    got = output_eps(p, np.array([0.5, 4.0, 20.0]))
    # R below 1 counts as 1; the KSS bound 0.0005/0.46 is then the looser one
    assert got[0] == pytest.approx(np.log1p(0.0005) / (3 * np.log(1.72) * 0.46))
    assert got[1] == pytest.approx(np.log1p(0.0005 / 4.0) / (3 * np.log(1.72) * 0.46))
    assert got[2] < got[1]  # a riskier chain needs S closer
    unified = sc.resolve_preset("unified")
    assert (output_eps(unified, np.array([4.0])) == 0).all()


def test_unchanged_candidate_scores_as_the_base(engine: Engine, cands: CandidateSet) -> None:
    c = cands.candidates
    empty = Candidates(c.crew[:1], c.window_start[:1], c.window_start[:1], np.zeros(2, np.int64),
                       np.zeros(0, np.int64))  # fmt: skip
    ev = engine.evaluate(cands.pool, empty)
    crew = int(c.crew[0])
    lo, hi = engine.plan.offsets[crew], engine.plan.offsets[crew + 1]
    assert np.array_equal(ev.duty_risk, engine._base.duty.risk[lo:hi])


def test_bad_candidates_are_refused_with_a_reason(engine: Engine, cands: CandidateSet) -> None:
    c = cands.candidates
    k = int(np.flatnonzero(np.diff(c.duty_ptr) > 0)[0])
    one = slice(k, k + 1)
    duties = c.duty[c.duty_ptr[k] : c.duty_ptr[k + 1]]
    ptr = np.array([0, duties.size])
    narrow = Candidates(c.crew[one], c.window_start[one], c.window_start[one] + 0.5, ptr, duties)
    with pytest.raises(EngineError, match="outside its window"):
        engine.evaluate(cands.pool, narrow)
    outside = Candidates(np.array([99]), c.window_start[one], c.window_end[one], ptr, duties)
    with pytest.raises(EngineError, match="outside the base roster"):
        engine.evaluate(cands.pool, outside)
    both = np.concatenate([duties, duties])
    twice = Candidates(
        c.crew[one], c.window_start[one], c.window_end[one], np.array([0, both.size]), both
    )
    with pytest.raises(EngineError, match="overlap"):
        engine.evaluate(cands.pool, twice)
    backwards = Candidates(c.crew[one], c.window_end[one], c.window_start[one], ptr, duties)
    with pytest.raises(EngineError, match="ends before it starts"):
        engine.evaluate(cands.pool, backwards)
    crew = int(c.crew[k])
    first_on = engine.plan.on[engine.plan.offsets[crew]]
    none = np.zeros(1, np.int64)
    strip = Candidates(c.crew[one], np.array([first_on - 1]), np.array([first_on + 1]),
                       np.zeros(2, np.int64), none[:0])  # fmt: skip
    with pytest.raises(EngineError, match="first duty of a pool group"):
        engine.evaluate(cands.pool, strip)
    with pytest.raises(EngineError, match="row errors"):
        Engine.from_roster("Reference,OnDutyDate\r\nX,1\r\n")


def test_weights_and_airport_categories_move_the_cost(engine: Engine, cands: CandidateSet) -> None:
    ev = engine.evaluate(cands.pool, cands.candidates)
    t = ev.terms
    expected = (
        t.risk_sum + 5 * t.high_risk_duties + 2 * t.hours_kss7 + t.short_sleep + 0.5 * t.tod_fatigue
    )
    np.testing.assert_allclose(t.cost, expected, rtol=1e-12)
    assert (t.min_sleep24 >= 0).all() and (t.tod_kss_max >= 1).all()
    only_risk = with_weights(CostSettings(), {k: 0.0 for k in CostSettings().weights})
    only_risk = with_weights(only_risk, {"risk_sum": 1.0})
    assert with_weights(only_risk, {}).weight("risk_sum") == 1.0
    with pytest.raises(ValueError, match="unknown cost terms"):
        CostSettings(weights={"nonsense": 1.0})


def test_a_category_c_airport_weighs_its_landings(duties: list[SyntheticDuty]) -> None:
    ends = sorted({d.end for d in duties})
    plain = Engine.from_roster(render_roster(duties))
    heavy = Engine.from_roster(
        render_roster(duties), costs=CostSettings(airport_category={a: "C" for a in ends})
    )
    cands = swap_candidates(plain, duties, 4, seed=9)
    a = plain.evaluate(cands.pool, cands.candidates).terms.tod_fatigue
    pool_h = heavy.pool_from_roster(render_roster([d for w in cands.windows for d in w]))
    b = heavy.evaluate(pool_h, cands.candidates).terms.tod_fatigue
    assert (b > a).all()  # every last landing now weighs 2


def test_windows_at_the_chains_ends_equal_the_full_rescore(
    engine: Engine, duties: list[SyntheticDuty]
) -> None:
    # windows over the first duties (a new warm-up) and up to the last ones (nothing kept
    # after the window: the walk runs to the horizon)
    edge = swap_candidates(engine, duties, 12, seed=5, first_window_day=-2, days=5)
    firsts = edge.candidates.window_start < np.array(
        [engine.plan.on[engine.plan.offsets[c]] for c in edge.candidates.crew]
    )
    assert firsts.any()
    inc = engine.evaluate(edge.pool, edge.candidates)
    for k, chain in enumerate(edge.chains):
        (result,) = sc.score(sc.ScoreRequest(render_roster(chain), risk=True)).schedules
        lo, hi = inc.duty_ptr[k], inc.duty_ptr[k + 1]
        risk = np.array([d.risk for d in result.duties])
        np.testing.assert_allclose(inc.duty_risk[lo:hi], risk, atol=TOL, rtol=0)


def test_the_thread_count_leaves_every_result_unchanged(
    engine: Engine, cands: CandidateSet
) -> None:
    """One thread (the default) and every Numba thread give the same bits; the caller's
    own thread setting is restored afterwards."""
    import numba

    before = numba.get_num_threads()
    one = engine.evaluate(cands.pool, cands.candidates, detail=True)
    assert numba.get_num_threads() == before
    engine.threads = None
    try:
        every = engine.evaluate(cands.pool, cands.candidates, detail=True)
    finally:
        engine.threads = 1
    assert np.array_equal(one.duty_risk, every.duty_risk)
    assert one.interval_kss is not None and every.interval_kss is not None
    assert np.array_equal(one.interval_kss, every.interval_kss, equal_nan=True)
    for name, values in one.terms.columns().items():
        assert values == every.terms.columns()[name], name
    with pytest.raises(EngineError, match="threads"):
        Engine(engine.plan, engine.params, threads=0)
