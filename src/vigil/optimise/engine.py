"""The chain evaluation engine: a base roster loaded once, many candidate chains scored.

A candidate is a crew member's base chain with the duties in a time window replaced by
duties from a :class:`~vigil.optimise.chains.Pool`. Loading the base runs the sleep
predictor once with its walk state recorded before every sleep window
(:mod:`vigil.optimise._walk`), and scores every duty. Evaluating a batch of candidates:

1. gathers every candidate's chain as one plan (:func:`~vigil.optimise.chains.gather_plan`);
2. restarts the sleep predictor at the window before the first changed duty, from the
   base's recorded state, and stops it at the first window after the change whose state
   equals the base's (docs/optimise.md, "Horizon"): later sleep is the base's. On the
   way it marks the *output horizon*: the first such window with S only within
   :func:`~vigil.optimise.horizon.output_eps` of the base's and the same sleep after it,
   from where every score is the base's to the output's 3 decimals;
3. simulates only the duties from the first change to the output horizon, from the
   base's model state at a recorded wake (S, body-clock offset φ, full inertia), with
   the model's own :func:`~vigil.model.interval_kss.interval_kss`;
4. scores risk (:func:`~vigil.scoring.duty_risk.duty_risks`) over those duties and the
   runs of consecutive duties around them (reference §8: a run never spans a gap of
   ``consecutive_gap`` hours), with the base's interval KSS where nothing changed;
5. adds the cost terms of those duties to the base's terms of the rest of the chain
   (:mod:`vigil.optimise.costs`).

``tests/optimise`` checks that every candidate's duty risks and interval scores equal a
full re-score of the chain as a roster through :func:`vigil.scoring.service.score` (the
ProcessFatigueRisk path) to the golden baseline's tolerance (3 decimals).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numba
import numpy as np
import numpy.typing as npt

from vigil.domain import Airport
from vigil.model.parameters import Parameters
from vigil.model.simulate import CrewTimeline
from vigil.optimise import _scoring as sc
from vigil.optimise._ranges import crew_search, restarts, risk_ends, seeded_capacity
from vigil.optimise._walk import Episodes, Packed, Records, Restart, empty_records, walk_all
from vigil.optimise.chains import Pool, Sources, gather_plan, merge_zones
from vigil.optimise.costs import CostSettings, DutyTerms, Terms, chain_terms, duty_terms
from vigil.optimise.horizon import output_eps

__all__ = ["Candidates", "Engine", "EngineError", "Evaluation"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: S difference [TPM units] under which a candidate's walk state counts as the base's.
#: KSS moves by |slope| (0.46-0.6) per unit of S, so scores differ by < 1e-9 KSS; a
#: whole-minute sleep boundary moves only if a gate crossing lies within ~1e-8 s of it.
CONVERGENCE_EPS = 1e-9

#: the Numba thread pool's size (``NUMBA_NUM_THREADS``), the most a block may ask for
_MAX_THREADS: int = int(getattr(numba.config, "NUMBA_NUM_THREADS"))  # noqa: B009


class EngineError(ValueError):
    """A base roster or a candidate the engine cannot evaluate (the message says why)."""


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate chains, columnar.

    Candidate ``i`` replaces base crew member ``crew[i]``'s duties that overlap
    ``[window_start[i], window_end[i])`` (epoch hours) with pool duties
    ``duty[duty_ptr[i]:duty_ptr[i + 1]]`` (chronological, inside no kept duty).
    """

    crew: IntArray
    window_start: FloatArray
    window_end: FloatArray
    duty_ptr: IntArray
    duty: IntArray

    @property
    def n(self) -> int:
        return int(self.crew.size)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Cost terms of every candidate (:class:`~vigil.optimise.costs.Terms`) and, as CSR
    over each candidate's whole chain, every duty's R and report time."""

    terms: Terms
    duty_ptr: IntArray
    duty_risk: FloatArray
    duty_report: FloatArray
    #: with ``detail``: every chain duty's unrounded interval mean KSS, CSR by duty
    #: (``interval_ptr``, one more than the chains' duties)
    interval_ptr: IntArray | None = None
    interval_kss: FloatArray | None = None


@dataclass(frozen=True, slots=True)
class _Base:
    plan: sc.CrewPlan
    start: FloatArray
    ep_ptr: IntArray
    ep_s: FloatArray
    ep_e: FloatArray
    ep_q: FloatArray
    ep_k: IntArray
    rec: Records
    rec_ptr: IntArray
    kss_ptr: IntArray  #: (D + 1,) each duty's intervals in ``kss``
    kss: FloatArray  #: unrounded mean KSS of every interval
    duty: DutyTerms  #: per-duty cost terms
    supported: npt.NDArray[np.bool_]


#: CSR sleep episodes: pointer, start, end, quality, kind
EpisodeCSR = tuple[IntArray, FloatArray, FloatArray, FloatArray, IntArray]
#: :meth:`Engine._walk`'s result: CSR episodes, converged and output-horizon base records
_WalkOut = tuple[IntArray, tuple[FloatArray, FloatArray, FloatArray, IntArray], IntArray, IntArray]


@dataclass(frozen=True, slots=True)
class _Window:
    """Where each candidate's chain departs from its base chain."""

    first: IntArray  #: kept base duties before the window
    new: IntArray  #: pool duties in the window
    has_new: npt.NDArray[np.bool_]
    last_new: IntArray  #: chain row of the last pool duty (meaningless without one)
    t_change: FloatArray  #: earliest changed latest-wake [epoch h]
    t_last: FloatArray  #: latest changed earliest-sleep [epoch h]
    changed: npt.NDArray[np.bool_]
    full: npt.NDArray[np.bool_]  #: scored from the chain's start (no base state to reuse)


@dataclass(frozen=True, slots=True)
class _Restarts:
    """Each candidate's walk restart (:func:`~vigil.optimise._ranges.restarts`)."""

    restart: Restart
    seed: EpisodeCSR  #: seeded episodes
    restarted: npt.NDArray[np.bool_]
    r_rec: IntArray  #: base record of the timeline's restart state
    a_idx: IntArray  #: first duty of the risk range
    seed_lo: IntArray  #: first seeded base episode
    n0: IntArray  #: seeded episodes


class Engine:
    """A base roster, loaded once, and the evaluation of candidate chains against it."""

    def __init__(
        self,
        plan: sc.CrewPlan,
        params: Parameters,
        costs: CostSettings | None = None,
        end_weight: FloatArray | None = None,
        *,
        eps: float = CONVERGENCE_EPS,
        threads: int | None = 1,
    ) -> None:
        if not 0.0 <= eps < 1.0:
            raise EngineError("eps must be in [0, 1) TPM units")
        if threads is not None and threads < 1:
            raise EngineError("threads must be at least 1 (None: every Numba thread)")
        if plan.n_crew == 0:
            raise EngineError("the base roster has no schedule without errors")
        self.params = params
        self.eps = eps  #: the convergence tolerance on S (see :data:`CONVERGENCE_EPS`)
        #: Numba threads of an evaluation's kernels (None: every configured thread). One
        #: by default: a batch's kernels are short, and between them OpenMP's idle
        #: workers spin (GNU libgomp's default wait policy), CPU that does no work; an
        #: optimiser runs batches in parallel processes, a server requests in parallel.
        self.threads = threads
        self.costs = costs or CostSettings()
        self._end_weight = np.ones(plan.on.size) if end_weight is None else end_weight
        #: the operator's airport table and blank-cell values candidate rows are read with
        self.airports: Mapping[str, Airport] | None = None
        self.blank_defaults: Mapping[str, int] | None = None
        #: the operator settings version the engine was loaded under (``settingsVersion``)
        self.settings_version = 0
        self._base = self._load(plan)
        #: the S difference under which later scores are the base's to the output's
        #: resolution (:func:`~vigil.optimise.horizon.output_eps`), for the base's highest
        #: R: the duties scored with base KSS are base duties after the window
        r_max = float(np.nanmax(self._base.duty.risk, initial=1.0))
        self._eps_out = float(output_eps(params, np.array([r_max]))[0])

    # ------------------------------------------------------------------ loading

    @classmethod
    def from_roster(
        cls,
        roster_text: str,
        date_format: str = "dmy",
        params: Parameters | None = None,
        costs: CostSettings | None = None,
        *,
        airports: Mapping[str, Airport] | None = None,
        blank_defaults: Mapping[str, int] | None = None,
        eps: float = CONVERGENCE_EPS,
        threads: int | None = 1,
    ) -> Engine:
        """Parse and load a base roster (RosterData, contract §3.1); row errors raise.

        ``airports`` and ``blank_defaults`` are the operator's airport table and blank
        cell values (as :class:`~vigil.scoring.service.ScoreRequest` takes them); the
        engine reads candidate rows with the same.
        """
        p = params or sc.resolve_preset("ingre2014_5c")
        costs = costs or CostSettings()
        parsed = sc.parse_request(
            roster_text, date_format, airports=airports, blank_defaults=blank_defaults
        )
        if parsed.errors:
            raise EngineError(
                "the base roster has row errors:\n"
                + "\n".join(sc.format_error(e) for e in parsed.errors)
            )
        weights = end_weights(parsed, costs)
        engine = cls(sc.plan_parsed(parsed, p), p, costs, weights, eps=eps, threads=threads)
        engine.airports, engine.blank_defaults = airports, blank_defaults
        return engine

    @property
    def references(self) -> tuple[str, ...]:
        return self._base.plan.references

    @property
    def plan(self) -> sc.CrewPlan:
        return self._base.plan

    def base_terms(self) -> Terms:
        """The cost terms of every base crew member's own chain (base order)."""
        return chain_terms(self._base.duty, self._base.plan.offsets, self.costs)

    def crew_index(self, reference: str) -> int:
        try:
            return self.references.index(reference)
        except ValueError:
            raise EngineError(f"no base schedule {reference!r}") from None

    def pool(self, plan: sc.CrewPlan, end_weight: FloatArray | None = None) -> Pool:
        """A pool of duties (a plan of duty groups) candidates may use."""
        return merge_zones(self._base.plan, plan, end_weight)

    def pool_from_roster(self, roster_text: str, date_format: str = "dmy") -> Pool:
        """Parse a roster of duty groups (each Reference a pairing) as a :class:`Pool`."""
        parsed = sc.parse_request(
            roster_text, date_format, airports=self.airports, blank_defaults=self.blank_defaults
        )
        if parsed.errors:
            raise EngineError(
                "the pool has row errors:\n" + "\n".join(sc.format_error(e) for e in parsed.errors)
            )
        return self.pool(sc.plan_parsed(parsed, self.params), end_weights(parsed, self.costs))

    def _load(self, plan: sc.CrewPlan) -> _Base:
        supported = np.array(
            [not s and not a for s, a in zip(plan.sleep, plan.activities, strict=True)]
        )
        start = np.array([w.timestamp() / 3600.0 for w in plan.warmup])
        horizon = sc.horizons(plan)
        zones = sc.crew_zone_timelines(plan, start, np.maximum(horizon, plan.last_event + 1.0))
        packed = sc.pack_plan(plan, start, horizon, zones, self.params, sc.DEFAULT_SLEEP)
        n = plan.n_crew
        n_busy = np.diff(packed.busy_ptr)
        n_rest = np.diff(packed.window_ptr)
        rec_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(n_busy + n_rest + 1, out=rec_ptr[1:])
        rec = empty_records(int(rec_ptr[-1]))
        restart = Restart(
            np.full(n, -np.inf), np.zeros(n, np.int64), np.zeros(n), np.zeros(n),
            np.full(n, np.inf), np.full(n, -1, np.int64), np.zeros(n),
        )  # fmt: skip
        cap = seeded_capacity(packed.end - packed.start, n_busy, n_rest)
        ep_ptr, ep = self._walk(packed, restart, rec, rec_ptr, cap, record=True)[:2]
        sleep = sc.SleepArrays(ep_ptr, *ep, np.zeros(ep[0].size, dtype=bool))
        timeline = sc.build_timeline(start, sleep, zones)
        layout = sc.build_layout(plan, 0, n)
        kss = self._kss(layout, timeline, np.ones(plan.on.size, dtype=bool), np.empty(0))
        working = sc.at_controls(layout, sleep)
        risks = _risks(layout, timeline, kss, self.params, working)
        sleep_rows = (timeline.sleep_start, timeline.sleep_end)
        terms = duty_terms(
            layout, kss, risks, sleep_rows, self.params, self.costs, self._end_weight, working
        )
        kss_ptr = np.zeros(plan.on.size + 1, np.int64)
        np.cumsum(plan.count, out=kss_ptr[1:])
        return _Base(plan, start, ep_ptr, *ep, rec, rec_ptr, kss_ptr, kss, terms, supported)

    def _walk(
        self,
        packed: sc.PackedSleepInput,
        restart: Restart,
        rec: Records,
        rec_ptr: IntArray,
        cap: IntArray,
        *,
        record: bool,
        base: Records | None = None,
        base_ptr: IntArray | None = None,
        seed: EpisodeCSR | None = None,
    ) -> _WalkOut:
        """Run the walk (twice if some person outgrew its rows); CSR episodes, the
        converged base record and the output horizon's base record of each person
        (:func:`~vigil.optimise._walk.walk_all`)."""
        k = sc.DEFAULT_SLEEP.kernel(self.params)
        args = Packed(*[_typed(name, getattr(packed, name)) for name in Packed._fields])
        n = packed.start.size
        base_rec = base if base is not None else empty_records(0)
        b_ptr = base_ptr if base_ptr is not None else np.zeros(1, np.int64)
        if base is not None:
            b = self._base
            bep = Episodes(b.ep_ptr, b.ep_s, b.ep_e, b.ep_q, b.ep_k)
        else:
            bep = Episodes(np.zeros(1, np.int64), np.empty(0), np.empty(0), np.empty(0),
                           np.empty(0, np.int64))  # fmt: skip
        for _ in range(2):
            o_ptr, (o_s, o_e, o_q, o_k) = _seeded_output(n, cap, seed)
            count = np.zeros(n, np.int64)
            conv = np.zeros(n, np.int64)
            written = np.zeros(n, np.int64)
            conv_out = np.zeros(n, np.int64)
            walk_all(
                k, args, restart, base_rec, b_ptr, self.eps, record, rec, rec_ptr,
                o_ptr, o_s, o_e, o_q, o_k, count, conv, written, bep, conv_out,
            )  # fmt: skip
            if (count <= cap).all():
                break
            cap = np.maximum(cap, count)
        ptr = np.zeros(n + 1, np.int64)
        np.cumsum(count, out=ptr[1:])
        keep = np.repeat(o_ptr[:-1] - ptr[:-1], count) + np.arange(int(ptr[-1]))
        return ptr, (o_s[keep], o_e[keep], o_q[keep], o_k[keep]), conv, conv_out

    def _kss(
        self,
        layout: sc.Layout,
        timeline: CrewTimeline,
        resim: npt.NDArray[np.bool_],
        known: FloatArray,
    ) -> FloatArray:
        """Mean final KSS of every interval of ``layout``: simulated for duties ``resim``,
        ``known`` (in layout order, unused entries ignored) for the others."""
        duty = layout.duty
        rows = np.flatnonzero(resim[duty])
        kss = known.copy() if known.size else np.empty(duty.size)
        if rows.size:
            interval_crew = layout.crew[duty[rows]]
            ptr = np.zeros(layout.n_crew + 1, np.int64)
            np.cumsum(np.bincount(interval_crew, minlength=layout.n_crew), out=ptr[1:])
            samples = sc.interval_samples(layout.start[rows], layout.off[duty[rows]])
            duties = sc.DutyRows(
                layout.on, layout.off, layout.sectors, layout.workload,
                layout.rest_start, layout.rest_end,
            )  # fmt: skip
            kss[rows] = sc.interval_kss(
                timeline,
                samples,
                ptr,
                duty[rows],
                duties,
                self.params,
            )
        return kss

    # ------------------------------------------------------------------ candidates

    def _sources(
        self, pool: Pool, cand: Candidates
    ) -> tuple[Sources, IntArray, IntArray, IntArray]:
        """Each chain's duty sources; per candidate the kept base duties before the
        window (``first``), the replaced base duties ``[r0, r1)`` (absolute indices)."""
        self._check_candidates(pool, cand)
        base = self._base.plan
        lo, hi = base.offsets[cand.crew], base.offsets[cand.crew + 1]
        # replaced: base duties overlapping the window (on < end and off > start)
        r0 = _crew_search(base.off, lo, hi, cand.window_start, "right")
        r1 = np.maximum(_crew_search(base.on, lo, hi, cand.window_end, "left"), r0)
        kept_before = r0 - lo
        src, offsets, owner = _spliced(cand, base.on.size, lo, kept_before, r1, hi - r1)
        _check_in_order(base, pool, cand, src, owner)
        head_base, head_pool = _chain_heads(pool, cand, lo, kept_before)
        return Sources(src, offsets, head_base, head_pool), kept_before, r0, r1

    def _check_candidates(self, pool: Pool, cand: Candidates) -> None:
        """Raise :class:`EngineError` for candidates naming crew members or pool duties
        that do not exist, unsupported schedules, or malformed pointers and windows."""
        base = self._base.plan
        if cand.n == 0:
            raise EngineError("no candidates")
        if (cand.crew < 0).any() or (cand.crew >= base.n_crew).any():
            raise EngineError("a candidate names a crew member outside the base roster")
        bad = np.flatnonzero(~self._base.supported[cand.crew])
        if bad.size:
            ref = base.references[int(cand.crew[bad[0]])]
            raise EngineError(
                f"schedule {ref!r} has SleepData or activities: the engine evaluates "
                "predicted sleep of duty-only chains"
            )
        if cand.duty.size and ((cand.duty < 0) | (cand.duty >= pool.plan.on.size)).any():
            raise EngineError("a candidate names a duty outside the pool")
        if (
            cand.duty_ptr.shape != (cand.n + 1,)
            or cand.duty_ptr[0] != 0
            or (np.diff(cand.duty_ptr) < 0).any()
            or cand.duty_ptr[-1] != cand.duty.size
        ):
            raise EngineError("duty_ptr must run from 0 to len(duty) in n + 1 steps")
        if not (np.isfinite(cand.window_start).all() and np.isfinite(cand.window_end).all()):
            raise EngineError("windows must be finite instants")
        if (cand.window_end < cand.window_start).any():
            i = int(np.flatnonzero(cand.window_end < cand.window_start)[0])
            raise EngineError(f"candidate {i}: its window ends before it starts")

    def evaluate(self, pool: Pool, cand: Candidates, *, detail: bool = False) -> Evaluation:
        """Every candidate's cost terms, restarting from the base (module docstring);
        ``detail`` adds every chain interval's mean KSS."""
        with _kernel_threads(self.threads):
            return self._evaluate(pool, cand, detail)

    def _evaluate(self, pool: Pool, cand: Candidates, detail: bool) -> Evaluation:
        """The steps of the module docstring: gather the chains (1), re-walk sleep from
        the restart points to convergence (2), simulate and score the risk ranges (3, 4),
        and assemble the chains' terms with the base's (5)."""
        sources, first, r0, r1 = self._sources(pool, cand)
        chains = gather_plan(self._base.plan, pool, sources)
        win = self._window(cand, chains, first, r0, r1)
        start = np.array([w.timestamp() / 3600.0 for w in chains.warmup])
        horizon = sc.horizons(chains)
        zones = sc.crew_zone_timelines(chains, start, np.maximum(horizon, chains.last_event + 1.0))
        packed = sc.pack_plan(chains, start, horizon, zones, self.params, sc.DEFAULT_SLEEP)
        rs = self._restart_points(cand, chains, win, self._convergence_start(cand, chains, win, r1))
        walk = self._rewalk(packed, rs)
        conv_out = walk[3]
        a_idx, e_idx, b_idx = self._risk_ranges(chains, win, rs.a_idx, conv_out)
        from_restart, whole = self._episodes(cand, win, rs, walk)
        timeline = self._restart_timeline(cand, win, rs, start, zones, from_restart)
        owner, chain_row, t_sources, layout, resim = _range_layout(
            self._base.plan, pool, sources, chains.offsets, win, a_idx, e_idx, b_idx
        )
        kss = self._kss(
            layout, timeline, resim, self._known_kss(layout, sources.src[chain_row], resim)
        )
        working = sc.at_controls(
            layout, sc.SleepArrays(*whole, np.zeros(whole[1].size, dtype=bool))
        )
        risks = _risks(layout, timeline, kss, self.params, working)
        weights = np.concatenate([self._end_weight, pool.end_weight])[t_sources.src]
        terms_sub = duty_terms(
            layout, kss, risks, _padded(whole[0], whole[1], whole[2]), self.params, self.costs,
            weights, working,
        )  # fmt: skip
        out = self._assemble(cand, sources, chains, owner, chain_row, terms_sub, risks)
        if not detail:
            return out
        ptr, every_kss = self._every_kss(sources, chains, chain_row, layout, kss)
        return replace(out, interval_ptr=ptr, interval_kss=every_kss)

    def _window(
        self, cand: Candidates, chains: sc.CrewPlan, first: IntArray, r0: IntArray, r1: IntArray
    ) -> _Window:
        """Where each chain departs from its base chain: the earliest changed latest-wake
        and the latest changed earliest-sleep (reference §4.1) of the new and removed duties."""
        base = self._base.plan
        n = cand.n
        offs = chains.offsets
        new = np.diff(cand.duty_ptr)
        t_change = np.full(n, np.inf)
        t_last = np.full(n, -np.inf)
        has_new = new > 0
        i_new = offs[:-1] + first
        t_change[has_new] = chains.on[i_new[has_new]] - chains.lead[i_new[has_new]]
        last_new = offs[:-1] + first + new - 1
        t_last[has_new] = chains.off[last_new[has_new]] + chains.lag[last_new[has_new]]
        removed = r1 > r0
        t_change[removed] = np.minimum(
            t_change[removed], base.on[r0[removed]] - base.lead[r0[removed]]
        )
        t_last[removed] = np.maximum(
            t_last[removed], base.off[r1[removed] - 1] + base.lag[r1[removed] - 1]
        )
        changed = has_new | removed
        full = (first == 0) | ~changed
        return _Window(first, new, has_new, last_new, t_change, t_last, changed, full)

    def _convergence_start(
        self, cand: Candidates, chains: sc.CrewPlan, win: _Window, r1: IntArray
    ) -> FloatArray:
        """Each chain's earliest instant the walk may stop at: the last change, or the
        first kept duty after the window where the location differs from the base's (the
        walk may stop only where the location matches the base's too)."""
        base = self._base.plan
        offs = chains.offsets
        first, has_new, changed = win.first, win.has_new, win.changed
        conv_from = np.where(changed, win.t_last, np.inf)
        after = offs[:-1] + first + win.new  # first kept duty after the window
        has_after = after < offs[1:]
        if has_after.any():
            last_zone = np.where(has_new, chains.end_zone[np.maximum(win.last_new, 0)], -1)
            base_prev = r1 - 1
            base_zone = np.where(
                r1 > base.offsets[cand.crew], base.end_zone[np.maximum(base_prev, 0)], -2
            )
            kb_zone = np.where(first > 0, chains.end_zone[np.maximum(offs[:-1] + first - 1, 0)], -3)
            cand_zone = np.where(has_new, last_zone, kb_zone)
            moved = has_after & (cand_zone != base_zone)
            conv_from[moved] = chains.on[after[moved]]
        conv_from[~has_after & changed] = np.inf
        return conv_from

    def _restart_points(
        self, cand: Candidates, chains: sc.CrewPlan, win: _Window, conv_from: FloatArray
    ) -> _Restarts:
        """Where each chain's walk restarts from the base's recorded state
        (:func:`~vigil.optimise._ranges.restarts`), and the base episodes it is seeded with."""
        b = self._base
        p = self.params
        n = cand.n
        offs = chains.offsets
        p_rec = np.empty(n, np.int64)
        r_rec = np.empty(n, np.int64)
        a_idx = np.empty(n, np.int64)
        seed_lo = np.empty(n, np.int64)
        any_length = not (p.inertia and p.inertia_short_sleep_scaling)
        restarts(
            cand.crew, np.minimum(win.first, np.diff(offs)), win.t_change, chains.on, chains.off,
            offs, win.full.astype(np.int64), b.rec, b.rec_ptr, b.ep_ptr,
            float(p.consecutive_gap), float(p.inertia_full_sleep), any_length,
            p_rec, r_rec, a_idx, seed_lo,
        )  # fmt: skip
        restarted = p_rec >= 0
        pr = np.maximum(p_rec, 0)
        n_p = b.ep_ptr[cand.crew] + b.rec.n[pr]
        n0 = np.where(restarted, n_p - seed_lo, 0)
        seed_ptr = np.zeros(n + 1, np.int64)
        np.cumsum(n0, out=seed_ptr[1:])
        seed_rows = np.repeat(seed_lo - seed_ptr[:-1], n0) + np.arange(int(seed_ptr[-1]))
        seed = (
            seed_ptr,
            b.ep_s[seed_rows],
            b.ep_e[seed_rows],
            b.ep_q[seed_rows],
            b.ep_k[seed_rows],
        )
        restart = Restart(
            np.where(restarted, b.rec.ws[pr], -np.inf), n0, b.rec.s_w[pr], b.rec.t_wake[pr],
            conv_from, np.where(restarted, cand.crew, -1).astype(np.int64),
            np.full(n, max(self._eps_out, self.eps)),
        )  # fmt: skip
        return _Restarts(restart, seed, restarted, r_rec, a_idx, seed_lo, n0)

    def _rewalk(self, packed: sc.PackedSleepInput, rs: _Restarts) -> _WalkOut:
        """The candidates' walk from their restart points, stopping on convergence."""
        b = self._base
        n_busy = np.diff(packed.busy_ptr)
        n_rest = np.diff(packed.window_ptr)
        cap = rs.n0 + seeded_capacity(packed.end - packed.start, n_busy, n_rest)
        return self._walk(
            packed, rs.restart, empty_records(0), np.zeros(1, np.int64), cap, record=False,
            base=b.rec, base_ptr=b.rec_ptr, seed=rs.seed,
        )  # fmt: skip

    def _risk_ranges(
        self, chains: sc.CrewPlan, win: _Window, a_idx: IntArray, conv_out: IntArray
    ) -> tuple[IntArray, IntArray, IntArray]:
        """Per changed chain the risk range ``[a, b)`` and the re-simulated duties'
        end ``e`` (:func:`~vigil.optimise._ranges.risk_ends`); scores are the base's (to the
        output's resolution) from the output horizon on. Zero for unchanged chains."""
        b = self._base
        n = win.first.size
        conv_ws = np.where(conv_out >= 0, b.rec.ws[np.maximum(conv_out, 0)], np.inf)
        e_idx = np.empty(n, np.int64)
        b_idx = np.empty(n, np.int64)
        risk_ends(
            win.first, conv_ws, chains.on, chains.off, chains.offsets,
            float(self.params.consecutive_gap), e_idx, b_idx,
        )  # fmt: skip
        changed = win.changed
        return np.where(changed, a_idx, 0), np.where(changed, e_idx, 0), np.where(changed, b_idx, 0)

    def _episodes(
        self, cand: Candidates, win: _Window, rs: _Restarts, walk: _WalkOut
    ) -> tuple[EpisodeCSR, EpisodeCSR]:
        """Each chain's sleep episodes: base episodes to the seed, the walk's, then the
        base's after the converged window; from the restart state's start and from the
        chain's start."""
        b = self._base
        w_ptr, w_ep, conv = walk[0], walk[1], walk[2]
        full = win.full
        n_r = np.where(full, b.ep_ptr[cand.crew], b.ep_ptr[cand.crew] + b.rec.n[rs.r_rec])
        pre = np.where(rs.restarted, rs.seed_lo - n_r, 0)
        post_lo = b.ep_ptr[cand.crew] + b.rec.n[np.maximum(conv, 0)]
        post = np.where(conv >= 0, b.ep_ptr[cand.crew + 1] - post_lo, 0)
        walked = np.diff(w_ptr)
        from_restart = _concat_episodes(
            (np.where(full, 0, n_r), pre, b),
            (w_ptr, walked, w_ep),
            (post_lo, post, b),
        )
        whole = _concat_episodes(
            (b.ep_ptr[cand.crew], np.where(rs.restarted, rs.seed_lo - b.ep_ptr[cand.crew], 0), b),
            (w_ptr, walked, w_ep),
            (post_lo, post, b),
        )
        return from_restart, whole

    def _restart_timeline(
        self,
        cand: Candidates,
        win: _Window,
        rs: _Restarts,
        start: FloatArray,
        zones: tuple[IntArray, FloatArray, FloatArray],
        sleep: EpisodeCSR,
    ) -> CrewTimeline:
        """The model timeline of each chain from its restart state (the warm-up start for
        chains scored whole)."""
        b = self._base
        full, rr = win.full, rs.r_rec
        t_start = np.where(full, start, b.rec.t_wake[rr])
        s_start = np.where(full, sc.S_AT_WAKING, b.rec.s_w[rr])
        z_first = zones[2][zones[0][:-1]]
        phase = np.where(full, z_first, b.rec.phi_wake[rr])
        return _timeline(t_start, s_start, phase, sleep, _zones_from(zones, t_start))

    def _every_kss(
        self,
        sources: Sources,
        chains: sc.CrewPlan,
        chain_row: IntArray,
        layout: sc.Layout,
        kss: FloatArray,
    ) -> tuple[IntArray, FloatArray]:
        """Every chain interval's mean KSS, CSR by duty: the base's, overwritten by the
        scored ranges' ``kss``."""
        b = self._base
        ptr = np.zeros(chains.on.size + 1, np.int64)
        np.cumsum(chains.count, out=ptr[1:])
        n_base = b.plan.on.size
        src = sources.src
        from_base = np.repeat(src < n_base, chains.count)
        first_iv = np.repeat(b.kss_ptr[np.minimum(src, n_base - 1)] - ptr[:-1], chains.count)
        rows = first_iv + np.arange(int(ptr[-1]))
        every_kss = np.where(from_base, b.kss[np.where(from_base, rows, 0)], np.nan)
        iv = np.repeat(ptr[chain_row], chains.count[chain_row]) + (
            np.arange(layout.duty.size)
            - np.repeat(np.cumsum(layout.count) - layout.count, layout.count)
        )
        every_kss[iv] = kss
        return ptr, every_kss

    def _known_kss(
        self, layout: sc.Layout, src: IntArray, resim: npt.NDArray[np.bool_]
    ) -> FloatArray:
        """Base interval KSS of the layout's duties that are base duties and not re-run."""
        b = self._base
        n_base = b.plan.on.size
        out = np.full(layout.duty.size, np.nan)
        take = ~resim[layout.duty] & (src[layout.duty] < n_base)
        rows = np.flatnonzero(take)
        out[rows] = b.kss[b.kss_ptr[src[layout.duty[rows]]] + layout.position[rows]]
        return out

    def _assemble(
        self,
        cand: Candidates,
        sources: Sources,
        chains: sc.CrewPlan,
        owner: IntArray,
        chain_row: IntArray,
        terms_sub: DutyTerms,
        risks: FloatArray,
    ) -> Evaluation:
        """Whole-chain duty terms: the base's, overwritten where the range was scored."""
        b = self._base
        n_base = b.plan.on.size
        src = sources.src
        from_base = src < n_base
        bi = np.minimum(src, n_base - 1)
        chain = b.duty.take(bi)
        chain = chain.with_rows(chain_row, terms_sub)
        duty_risk = np.where(from_base, b.duty.risk[bi], np.nan)
        duty_risk[chain_row] = risks
        if np.isnan(duty_risk).any():  # pragma: no cover - every pool duty is in a range
            raise AssertionError("a candidate's duty was left unscored")
        terms = chain_terms(chain, sources.offsets, self.costs)
        return Evaluation(terms, sources.offsets, duty_risk, chains.on)

    # ------------------------------------------------------------------ full path

    def evaluate_full(self, pool: Pool, cand: Candidates) -> Evaluation:
        """The same cost terms from a full re-score of every chain (no restart): the
        scoring service's :func:`~vigil.scoring.service.score_plan` path, for comparison."""
        sources = self._sources(pool, cand)[0]
        chains = gather_plan(self._base.plan, pool, sources)
        weights = np.concatenate([self._end_weight, pool.end_weight])[sources.src]
        with _kernel_threads(self.threads):
            return self.score_chains(chains, weights)

    def score_chains(self, chains: sc.CrewPlan, end_weight: FloatArray) -> Evaluation:
        """Cost terms of whole chains scored from their warm-up start (``end_weight``:
        each duty's landing category weight)."""
        p = self.params
        n = chains.n_crew
        start = np.array([w.timestamp() / 3600.0 for w in chains.warmup])
        horizon = sc.horizons(chains)
        zones = sc.crew_zone_timelines(chains, start, np.maximum(horizon, chains.last_event + 1.0))
        packed = sc.pack_plan(chains, start, horizon, zones, p, sc.DEFAULT_SLEEP)
        ptr, s, e, q, k = sc.predict_packed(packed, p, sc.DEFAULT_SLEEP)
        sleep = sc.SleepArrays(ptr, s, e, q, k, np.zeros(s.size, dtype=bool))
        timeline = sc.build_timeline(start, sleep, zones)
        layout = sc.build_layout(chains, 0, n)
        kss = self._kss(layout, timeline, np.ones(chains.on.size, dtype=bool), np.empty(0))
        working = sc.at_controls(layout, sleep)
        risks = _risks(layout, timeline, kss, p, working)
        terms = duty_terms(
            layout, kss, risks, (timeline.sleep_start, timeline.sleep_end), p, self.costs,
            end_weight, working,
        )  # fmt: skip
        ptr = np.zeros(chains.on.size + 1, np.int64)
        np.cumsum(chains.count, out=ptr[1:])
        terms_c = chain_terms(terms, chains.offsets, self.costs)
        return Evaluation(terms_c, chains.offsets, risks, chains.on, ptr, kss)


def end_weights(parsed: sc.ParsedRoster, costs: CostSettings) -> FloatArray:
    """Category weight of each planned duty's end airport (duty order of the plan)."""
    cols = parsed.columns
    per_airport = [costs.landing_weight(_codes(a)) for a in cols.airports]
    return np.array(per_airport or [1.0])[cols.end_airport].astype(np.float64)


def _codes(airport: object) -> frozenset[str]:
    names = (getattr(airport, n, "") for n in ("code", "icao", "iata"))
    return frozenset(x for x in names if x)


def _risks(
    layout: sc.Layout,
    timeline: CrewTimeline,
    kss: FloatArray,
    params: Parameters,
    working: npt.NDArray[np.bool_],
) -> FloatArray:
    """R of every duty of ``layout`` (:func:`~vigil.scoring.duty_risk.duty_risks`), its
    Numba kernels on one thread: the body-clock phase and workload passes of a batch are
    less work than waking the thread pool, whose OpenMP workers then spin idle while the
    NumPy passes run (the scoring service runs small batches on one thread alike)."""
    if layout.on.size == 0:
        return np.empty(0)
    with _kernel_threads(1):
        return sc.duty_risks(layout, timeline, kss, params, working)


@contextmanager
def _kernel_threads(threads: int | None) -> Iterator[None]:
    """Numba's kernels on ``threads`` threads in this block (None: unchanged). The
    setting is per calling thread (``numba.set_num_threads``), so concurrent requests
    of a server do not see each other's."""
    if threads is None:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, _MAX_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _range_layout(
    base: sc.CrewPlan,
    pool: Pool,
    sources: Sources,
    offs: IntArray,
    win: _Window,
    a_idx: IntArray,
    e_idx: IntArray,
    b_idx: IntArray,
) -> tuple[IntArray, IntArray, Sources, sc.Layout, npt.NDArray[np.bool_]]:
    """The duties of every chain's risk range ``[a, b)`` as one layout: each row's
    candidate and chain row, their sources, the layout, and which duties are re-simulated
    (``[first, e)``)."""
    n = win.first.size
    count = np.where(win.changed, b_idx - a_idx, 0)
    t_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=t_ptr[1:])
    local = np.arange(int(t_ptr[-1])) - np.repeat(t_ptr[:-1], count)
    owner = np.repeat(np.arange(n), count)
    chain_row = offs[owner] + a_idx[owner] + local
    idx_in_chain = a_idx[owner] + local
    t_sources = Sources(sources.src[chain_row], t_ptr, sources.head_base, sources.head_pool)
    layout = sc.build_layout(gather_plan(base, pool, t_sources), 0, n)
    resim = (idx_in_chain >= win.first[owner]) & (idx_in_chain < e_idx[owner])
    return owner, chain_row, t_sources, layout, resim


def _spliced(
    cand: Candidates,
    n_base: int,
    lo: IntArray,
    kept_before: IntArray,
    r1: IntArray,
    kept_after: IntArray,
) -> tuple[IntArray, IntArray, IntArray]:
    """Each chain's duties as sources (a base duty's index, or ``n_base`` plus a pool
    duty's): the kept base duties from ``lo``, the window's pool duties, the kept base
    duties from ``r1``; CSR offsets, and each row's candidate."""
    new = np.diff(cand.duty_ptr)
    length = kept_before + new + kept_after
    if (length == 0).any():
        raise EngineError("a candidate leaves its crew member with no duties")
    offsets = np.zeros(cand.n + 1, np.int64)
    np.cumsum(length, out=offsets[1:])
    total = int(offsets[-1])
    pos = np.arange(total) - np.repeat(offsets[:-1], length)
    owner = np.repeat(np.arange(cand.n), length)
    kb, nw = kept_before[owner], new[owner]
    last = max(cand.duty.size - 1, 0)
    pool_row = (
        cand.duty[np.clip(cand.duty_ptr[owner] + pos - kb, 0, last)] if cand.duty.size else pos
    )
    src = np.where(
        pos < kb,
        lo[owner] + pos,
        np.where(pos < kb + nw, n_base + pool_row, r1[owner] + pos - kb - nw),
    ).astype(np.int64)
    return src, offsets, owner


def _check_in_order(
    base: sc.CrewPlan, pool: Pool, cand: Candidates, src: IntArray, owner: IntArray
) -> None:
    """Raise :class:`EngineError` for a pool duty outside its candidate's window, or
    chain duties that overlap or are out of time order."""
    pool_on = pool.plan.on
    pool_off = pool.plan.off
    on = np.concatenate([base.on, pool_on])[src]
    off = np.concatenate([base.off, pool_off])[src]
    if cand.duty.size:
        new = np.diff(cand.duty_ptr)
        inside = (pool_on[cand.duty] >= np.repeat(cand.window_start, new)) & (
            pool_off[cand.duty] <= np.repeat(cand.window_end, new)
        )
        if not inside.all():
            i = int(np.repeat(np.arange(cand.n), new)[np.flatnonzero(~inside)[0]])
            raise EngineError(f"candidate {i}: a duty lies outside its window")
    same_chain = owner[1:] == owner[:-1]
    overlap = same_chain & (on[1:] < off[:-1])
    if overlap.any():
        i = int(owner[1:][overlap][0])
        raise EngineError(f"candidate {i}: duties overlap or are not in time order")


def _chain_heads(
    pool: Pool, cand: Candidates, lo: IntArray, kept_before: IntArray
) -> tuple[IntArray, IntArray]:
    """Where each chain's warm-up and home come from (reference §9.4): its first duty's,
    the base crew member's (-1 if none is kept before the window) or else the first
    duty of a pool group (0 if the base's)."""
    new = np.diff(cand.duty_ptr)
    last = max(cand.duty.size - 1, 0)
    head_base = np.where(kept_before > 0, cand.crew, -1)
    heads = cand.duty[np.minimum(cand.duty_ptr[:-1], last)] if cand.duty.size else lo
    groups = _pool_group(pool, heads) if cand.duty.size else np.zeros(cand.n, np.int64)
    lead = kept_before == 0
    bad_head = lead & ((new == 0) | (pool.plan.offsets[groups] != heads))
    if bad_head.any():
        i = int(np.flatnonzero(bad_head)[0])
        raise EngineError(
            f"candidate {i}: a window over the chain's first duty must start the chain "
            "with the first duty of a pool group"
        )
    head_pool = np.where(lead, groups, 0).astype(np.int64)
    return head_base.astype(np.int64), head_pool


def _seeded_output(
    n: int, cap: IntArray, seed: EpisodeCSR | None
) -> tuple[IntArray, tuple[FloatArray, FloatArray, FloatArray, IntArray]]:
    """The walk's output rows: ``cap`` for each of ``n`` people (CSR), each person's
    ``seed`` episodes (CSR) written first."""
    o_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(cap, out=o_ptr[1:])
    total = int(o_ptr[-1])
    o_s, o_e, o_q = np.empty(total), np.empty(total), np.empty(total)
    o_k = np.empty(total, np.int64)
    if seed is not None:
        s_ptr, s_s, s_e, s_q, s_k = seed
        rows = np.repeat(o_ptr[:-1] - s_ptr[:-1], np.diff(s_ptr)) + np.arange(s_ptr[-1])
        o_s[rows], o_e[rows], o_q[rows], o_k[rows] = s_s, s_e, s_q, s_k
    return o_ptr, (o_s, o_e, o_q, o_k)


def _padded(ptr: IntArray, s: FloatArray, e: FloatArray) -> tuple[FloatArray, FloatArray]:
    """CSR episodes as NaN-padded ``(n, m)`` start and end rows."""
    counts = np.diff(ptr)
    n = counts.size
    width = max(int(counts.max()) if n else 0, 1)
    rows = np.repeat(np.arange(n), counts)
    cols = np.arange(rows.size) - np.repeat(ptr[:-1], counts)
    out_s = np.full((n, width), np.nan)
    out_e = np.full((n, width), np.nan)
    out_s[rows, cols] = s
    out_e[rows, cols] = e
    return out_s, out_e


def _typed(name: str, value: object) -> npt.NDArray[np.generic]:
    if name.endswith(("_ptr", "_kind")):
        return np.ascontiguousarray(value, dtype=np.int64)
    return np.ascontiguousarray(value, dtype=np.float64)


def _crew_search(
    values: FloatArray, lo: IntArray, hi: IntArray, t: FloatArray, side: str
) -> IntArray:
    """Per row: ``lo + searchsorted(values[lo:hi], t, side)`` (values sorted per crew)."""
    out = np.empty(lo.size, np.int64)
    crew_search(values, lo, hi, t, side == "right", out)
    return out


def _pool_group(pool: Pool, duty: IntArray) -> IntArray:
    """The pool group owning each pool duty."""
    out: IntArray = np.searchsorted(pool.plan.offsets, duty, side="right") - 1
    return out


def _concat_episodes(
    pre: tuple[IntArray, IntArray, _Base],
    walked: tuple[IntArray, IntArray, tuple[FloatArray, FloatArray, FloatArray, IntArray]],
    post: tuple[IntArray, IntArray, _Base],
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray, IntArray]:
    """Per person, base episodes ``pre`` (first row, count), the walk's (CSR pointer,
    count, columns) and base episodes ``post`` (first row, count), back to back (CSR)."""
    pre_lo_a, pre_n_a, base = pre
    w_ptr_a, w_n_a, (ws, we, wq, wk) = walked
    post_lo_a, post_n_a, _ = post
    total = pre_n_a + w_n_a + post_n_a
    n = total.size
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(total, out=ptr[1:])
    src_s = np.concatenate([base.ep_s, ws])
    src_e = np.concatenate([base.ep_e, we])
    src_q = np.concatenate([base.ep_q, wq])
    src_k = np.concatenate([base.ep_k, wk])
    nb_ = base.ep_s.size
    owner = np.repeat(np.arange(n), total)
    local = np.arange(int(ptr[-1])) - ptr[:-1][owner]
    pn, wn = pre_n_a[owner], w_n_a[owner]
    rows = np.where(
        local < pn,
        pre_lo_a[owner] + local,
        np.where(
            local < pn + wn, nb_ + w_ptr_a[owner] + local - pn, post_lo_a[owner] + local - pn - wn
        ),
    )
    return ptr, src_s[rows], src_e[rows], src_q[rows], src_k[rows]


def _zones_from(
    zones: tuple[IntArray, FloatArray, FloatArray], t: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Each person's zone timeline from ``t[i]`` on: the segment holding ``t[i]`` first,
    starting at ``t[i]``."""
    z_ptr, z_time, z_off = zones
    n = t.size
    owner = np.repeat(np.arange(n), np.diff(z_ptr))
    # first row kept: the last row with time <= t (or the person's first row)
    le = (z_time <= t[owner]) | (np.arange(z_time.size) == z_ptr[:-1][owner])
    last_le = np.zeros(n, np.int64)
    np.maximum.at(last_le, owner, np.where(le, np.arange(z_time.size), 0))
    last_le = np.maximum(last_le, z_ptr[:-1])
    count = z_ptr[1:] - last_le
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=ptr[1:])
    rows = np.repeat(last_le - ptr[:-1], count) + np.arange(int(ptr[-1]))
    time = z_time[rows].copy()
    time[ptr[:-1]] = t
    return ptr, time, z_off[rows]


def _timeline(
    start: FloatArray,
    s_start: FloatArray,
    phase: FloatArray,
    sleep: tuple[IntArray, FloatArray, FloatArray, FloatArray, IntArray],
    zones: tuple[IntArray, FloatArray, FloatArray],
) -> CrewTimeline:
    """The model timeline of each person from its restart state (``start``, S, φ)."""
    ptr, s, e, q, k = sleep
    arrays = sc.SleepArrays(ptr, s, e, q, k, np.zeros(s.size, dtype=bool))
    timeline = sc.build_timeline(start, arrays, zones)

    return replace(timeline, s_start=np.asarray(s_start, dtype=np.float64), phase_start=phase)
