"""Plan a relief crew's in-flight rest: the best split of the cruise, scored by the model.

:func:`plan_rest` reads the roster (so every pilot's prior duties and given or predicted
sleep count), finds the planned duty of each crew member, enumerates the admissible splits
(:mod:`vigil.planner.search`), scores every pilot under every distinct break of theirs in
one batch through the scoring service (:mod:`vigil.planner._scoring`), and ranks the splits
on the documented objective. See ``docs/planner.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from vigil.domain import CrewComposition, DateFormat, Duty, Period, Schedule
from vigil.model import Parameters
from vigil.planner import search
from vigil.planner._scoring import (
    DEFAULT_CONTEXT,
    ScoringContext,
    ScoringError,
    cruise_window,
    duty_scores,
)
from vigil.planner.columns import apply_to_roster, rest_cells
from vigil.roster import format_error

__all__ = ["PlanError", "PlanRequest", "PilotBreak", "Split", "RestPlan", "plan_rest"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HOUR = timedelta(hours=1)
#: Length of one score interval [h] (contract: 15 minutes).
INTERVAL_HOURS = 0.25
#: Intervals in the last hour of a duty (the top-of-descent window of the objective).
LAST_HOUR_INTERVALS = 4
#: Next-best alternatives reported beside the proposal.
ALTERNATIVES = 3
#: History the screen keeps before the planned report [days] (docs/planner.md).
SCREEN_DAYS = 4
#: Best screened splits scored again on the whole roster (with the equal split).
SCREEN_KEEP = 1 + ALTERNATIVES + 1


class PlanError(ValueError):
    """A request the planner cannot plan; ``prop`` names the offending request property."""

    def __init__(self, prop: str, message: str) -> None:
        super().__init__(message)
        self.prop = prop


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """What to plan (the API's and CLI's input)."""

    roster_text: str
    duty: datetime  #: any instant inside the planned duty (usually its report time), UTC
    references: tuple[str, ...]  #: the relief crew, 3 or 4 pilots
    landing: tuple[str, ...]  #: the 2 pilots at the controls for landing
    date_format: DateFormat = DateFormat.DMY
    sleep_data: Sequence[Mapping[str, object]] = ()
    #: the operator's scoring context (parameters, airports, blank defaults, version)
    context: ScoringContext = DEFAULT_CONTEXT
    #: a built-in preset replacing the context's parameters (``None``: the context's own)
    preset: str | None = None
    #: References of ``references`` with no rows in RosterData, planned as placeholders
    placeholders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PilotBreak:
    """One pilot's break in a split, and its score."""

    reference: str
    landing: bool
    number: int  #: 1-based break number, in time order
    start: datetime
    end: datetime
    row: int  #: the duty's physical line in RosterData (0 for a placeholder)
    columns: dict[str, str]  #: the eight rest cells of that row
    last_hour_kss: float  #: worst KSS in the last hour of the duty
    mean_kss: float  #: mean KSS at the controls (the duty outside this break)
    stretch_kss: float  #: worst KSS over the longest stretch at the controls
    placeholder: bool = False  #: not in the roster: planned rested, with no prior duties


@dataclass(frozen=True, slots=True)
class Split:
    """A split of the cruise and what the model predicts for it."""

    breaks: tuple[PilotBreak, ...]
    worst_kss: float  #: worst KSS of any pilot at their own critical phase (the objective)
    landing_kss: float  #: landing pilots' worst KSS in the duty's last hour (top of descent)
    crew_mean_kss: float  #: mean KSS of the whole crew at the controls

    @property
    def relief_kss(self) -> float:
        """The other pilots' worst KSS over their longest stretch at the controls."""
        return max((b.stretch_kss for b in self.breaks if not b.landing), default=float("nan"))


@dataclass(frozen=True, slots=True)
class RestPlan:
    """The planner's answer."""

    cruise: tuple[datetime, datetime]
    proposal: Split
    equal: Split
    equal_meets_minimums: bool
    alternatives: tuple[Split, ...]
    candidates: int
    summary: str
    roster_text: str  #: the request's roster with the proposal's rest columns filled in
    model_version: str = field(default="")
    settings_version: int | None = 0  #: the operator settings version planned under

    def to_dict(self) -> dict[str, object]:
        """The API's and ``vigil plan-rest --json``'s response body (``docs/planner.md``)."""
        return {
            "summary": self.summary,
            "modelVersion": self.model_version,
            "settingsVersion": self.settings_version,
            "cruise": {"start": _iso(self.cruise[0]), "end": _iso(self.cruise[1])},
            "candidates": self.candidates,
            "proposal": _split_dict(self.proposal),
            "equalSplit": {**_split_dict(self.equal), "meetsMinimums": self.equal_meets_minimums},
            "gain": self.gain,
            "pairs": self.pairs(),
            "placeholders": [b.reference for b in self.proposal.breaks if b.placeholder],
            "alternatives": [_split_dict(a) for a in self.alternatives],
            "rosterData": self.roster_text,
        }

    @property
    def gain(self) -> float:
        """How much lower the proposal's top-of-descent KSS is than the equal split's."""
        return round(self.equal.landing_kss - self.proposal.landing_kss, 3)

    @property
    def relief_gain(self) -> float:
        """How much lower the relief pilots' worst KSS over their longest stretch at the
        controls is under the proposal than under the equal split (negative: a loss)."""
        return round(self.equal.relief_kss - self.proposal.relief_kss, 3)

    def pairs(self) -> list[dict[str, object]]:
        """Both groups side by side: each at its own critical phase, proposal vs equal split."""
        groups = (
            ("landing", "last hour of the duty (top of descent to landing)", True),
            ("relief", "longest stretch at the controls", False),
        )
        out: list[dict[str, object]] = []
        for name, phase, landing in groups:
            refs = [b.reference for b in self.proposal.breaks if b.landing == landing]
            proposal = self.proposal.landing_kss if landing else self.proposal.relief_kss
            equal = self.equal.landing_kss if landing else self.equal.relief_kss
            out.append(
                {
                    "group": name,
                    "references": refs,
                    "phase": phase,
                    "proposalKss": proposal,
                    "equalSplitKss": equal,
                    "gain": round(equal - proposal, 3),
                }
            )
        return out


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _split_dict(split: Split) -> dict[str, object]:
    return {
        "worstKss": split.worst_kss,
        "landingKss": split.landing_kss,
        "reliefKss": split.relief_kss,
        "crewMeanKss": split.crew_mean_kss,
        "breaks": [
            {
                "reference": b.reference,
                "landing": b.landing,
                "break": b.number,
                "start": _iso(b.start),
                "end": _iso(b.end),
                "hours": round((b.end - b.start) / _HOUR, 2),
                "row": b.row,
                "columns": b.columns,
                "lastHourKss": b.last_hour_kss,
                "stretchKss": b.stretch_kss,
                "meanKss": b.mean_kss,
                "placeholder": b.placeholder,
            }
            for b in split.breaks
        ],
    }


def _hours(t: datetime) -> float:
    return (t - _EPOCH) / _HOUR


def _instant(hours: float) -> datetime:
    # boundaries are whole minutes (grid points, or cruise ends derived from duty minutes)
    return _EPOCH + timedelta(minutes=round(hours * 60.0))


def _crew_duties(
    schedules: Sequence[Schedule], request: PlanRequest, errors: Sequence[str]
) -> tuple[list[tuple[Schedule, int]], tuple[bool, ...]]:
    """Each crew member's schedule and the index of the planned duty in it, and which of them
    are placeholders.

    A placeholder (named in ``request.placeholders``, with no rows in RosterData) flies the
    planned duty of the first crew member found, starting rested (the model's initial state,
    no prior duties), so a crew can be planned before every member is rostered. Any other
    Reference without a valid duty at the planned instant is an error naming it.
    """
    by_ref = {s.reference: s for s in schedules}
    found = [_planned_duty(ref, by_ref.get(ref), errors, request) for ref in request.references]
    template = next((f for f in found if f is not None), None)
    if template is None:
        raise PlanError(
            "Placeholders",
            "every crew member is a placeholder: at least one must have the duty in RosterData",
        )
    duty = template[0].duties[template[1]]
    crew: list[tuple[Schedule, int]] = []
    for ref, f in zip(request.references, found, strict=True):
        if f is None:
            stand_in = replace(duty, reference=ref, row=0)
            f = (Schedule(reference=ref, duties=(stand_in,)), 0)
        crew.append(f)
    return crew, tuple(f is None for f in found)


def _planned_duty(
    ref: str, schedule: Schedule | None, errors: Sequence[str], request: PlanRequest
) -> tuple[Schedule, int] | None:
    """``ref``'s schedule and the index of its duty at the planned instant, or ``None`` for
    a placeholder; a :class:`PlanError` naming what is missing otherwise."""
    mine = [e for e in errors if e.split("|")[1:2] == [ref]]
    if ref in request.placeholders:
        if schedule is not None or mine:
            raise PlanError(
                "Placeholders", f"placeholder {ref!r} has rows in RosterData: plan it as crew"
            )
        return None
    if schedule is None:
        detail = f"; its roster errors: {'; '.join(mine[:5])}" if mine else ""
        raise PlanError(
            "References",
            f"reference {ref!r} has no valid duty in RosterData{detail} (a crew member "
            "not rostered yet can be named in Placeholders)",
        )
    index = next(
        (i for i, d in enumerate(schedule.duties) if d.on_duty <= request.duty < d.off_duty),
        None,
    )
    if index is None:
        raise PlanError(
            "Duty",
            f"duty not found: reference {ref!r} has no duty at {request.duty:%Y-%m-%dT%H:%MZ}",
        )
    return schedule, index


def _check_crew(request: PlanRequest) -> None:
    if request.duty.tzinfo is None:
        raise PlanError("Duty", "Duty needs a time zone (UTC), e.g. 2026-03-03T20:00Z")
    refs = request.references
    if len(refs) not in (3, 4) or len(set(refs)) != len(refs):
        raise PlanError("References", "give the 3 or 4 distinct pilots of the relief crew")
    if len(request.landing) != 2 or len(set(request.landing)) != 2:
        raise PlanError("Landing", "give the 2 distinct pilots at the controls for landing")
    missing = [r for r in request.landing if r not in refs]
    if missing:
        raise PlanError("Landing", f"landing pilot {missing[0]!r} is not one of References")
    strays = [r for r in request.placeholders if r not in refs]
    if strays:
        raise PlanError("Placeholders", f"placeholder {strays[0]!r} is not one of References")


def _check_augmented(duties: Sequence[Duty], n: int) -> None:
    want = CrewComposition.FOUR_PILOTS if n == 4 else CrewComposition.THREE_PILOTS
    for duty in duties:
        if duty.crew_composition != want:
            raise PlanError(
                "Duty",
                f"duty not augmented for {n} pilots: reference {duty.reference!r} row {duty.row} "
                f"has CrewComposition {int(duty.crew_composition)}, planning needs {int(want)}",
            )


def _common_cruise(duties: Sequence[Duty], params: Parameters) -> tuple[datetime, datetime]:
    spans = [cruise_window(d, params) for d in duties]
    if any(s is None for s in spans):
        raise PlanError("Duty", "the duty has no cruise to share out (too short)")
    z0 = max(s[0] for s in spans if s is not None)
    z1 = min(s[1] for s in spans if s is not None)
    return z0, z1


def plan_rest(request: PlanRequest) -> RestPlan:
    """Propose the in-flight rest split that minimises the objective (``docs/planner.md``).

    Raises
    ------
    PlanError
        A request property that cannot be planned (its name in ``prop``).
    """
    _check_crew(request)
    context = _context(request)
    params = context.parameters
    parsed = context.parse(request.roster_text, request.date_format, sleep_data=request.sleep_data)
    errors = [format_error(e) for e in parsed.errors]
    crew, placeholders = _crew_duties(parsed.schedules, request, errors)
    duties = [s.duties[i] for s, i in crew]
    _check_augmented(duties, len(duties))
    z0_t, z1_t = _common_cruise(duties, params)
    pilots = _Pilots.of(request, duties, placeholders)
    order = np.asarray([(d.sleep_order - 1) for d in duties], dtype=np.int64)
    z0, z1 = _hours(z0_t), _hours(z1_t)
    span = (max(_hours(d.on_duty) for d in duties), min(_hours(d.off_duty) for d in duties))
    candidates = search.candidate_splits(z0, z1, pilots.landing, order, duty=span)
    if len(candidates) == 0:
        raise _no_split(z0_t, z1_t, len(duties))
    starts, ends, assign, stats, best = _screened(crew, candidates, pilots.landing, params)
    proposal = pilots.split(int(best[0]), starts, ends, assign, stats)
    if candidates.equal:  # candidate 0, kept first by the screen
        equal = pilots.split(0, starts, ends, assign, stats)
    else:
        equal = _equal_below_minimums(crew, pilots, (z0, z1), order, params)
    alternatives = tuple(
        pilots.split(int(c), starts, ends, assign, stats) for c in best[1 : 1 + ALTERNATIVES]
    )
    cells = {b.row: b.columns for b in proposal.breaks if not b.placeholder}
    return RestPlan(
        cruise=(z0_t, z1_t),
        proposal=proposal,
        equal=equal,
        equal_meets_minimums=candidates.equal,
        alternatives=alternatives,
        candidates=len(candidates),
        summary=summary(proposal, equal),
        roster_text=apply_to_roster(request.roster_text, cells),
        model_version=params.model_version,
        settings_version=context.settings_version,
    )


def _equal_below_minimums(
    crew: Sequence[tuple[Schedule, int]],
    pilots: _Pilots,
    cruise: tuple[float, float],
    order: IntArray,
    params: Parameters,
) -> Split:
    """The equal split when it breaks the minimums: scored on its own, reported, never
    proposed."""
    bounds, one_assign = search.equal_split(*cruise, pilots.landing, order)
    one = search.Candidates(bounds[None, :], one_assign[None, :], False)
    s1, e1 = search.windows(one)
    return pilots.split(0, s1, e1, one.assign, _score(crew, s1, e1, params, None))


def _context(request: PlanRequest) -> ScoringContext:
    """The request's scoring context, with its preset when it names one."""
    if request.preset is None:
        return request.context
    try:
        return request.context.with_preset(request.preset)
    except ScoringError as exc:
        raise PlanError("Preset", str(exc)) from None


def _no_split(z0_t: datetime, z1_t: datetime, n: int) -> PlanError:
    """Why no split of the cruise ``z0_t``-``z1_t`` was found for ``n`` pilots: too short
    for the rest minimums, or no split keeps every stretch at the controls short enough."""
    z0, z1 = _hours(z0_t), _hours(z1_t)
    need = 2 * search.MIN_LANDING_HOURS + (n - 2) * search.MIN_OTHER_HOURS
    if n == 4:
        need = search.MIN_LANDING_HOURS + search.MIN_OTHER_HOURS
    if z1 - z0 >= need:
        return PlanError(
            "Duty",
            f"no split of the cruise {z0_t:%H:%M}-{z1_t:%H:%M}Z keeps every pilot's "
            f"stretch at the controls within {search.MAX_STRETCH_HOURS:g} h "
            "(ORO.FTL.205(b)) while meeting the rest minimums (CS FTL.1.205(c))",
        )
    return PlanError(
        "Duty",
        f"the cruise {z0_t:%H:%M}-{z1_t:%H:%M}Z lasts {z1 - z0:.2f} h; the EASA minimums "
        f"(CS FTL.1.205(c)) need {need:.1f} h for {n} pilots",
    )


def _screened(
    crew: Sequence[tuple[Schedule, int]],
    candidates: search.Candidates,
    landing: npt.NDArray[np.bool_],
    params: Parameters,
) -> tuple[FloatArray, FloatArray, IntArray, _Stats, IntArray]:
    """The splits kept, their windows, assignments, KSS statistics and rank (best first).

    Every split is screened on the last ``SCREEN_DAYS`` of history, then the best few and
    the equal split are scored on the whole roster: the reported figures are the
    service's own."""
    starts, ends = search.windows(candidates)
    assign = candidates.assign
    cut = _screen_cut(crew)
    stats = _score(crew, starts, ends, params, cut)
    best = search.rank(*search.objective(*stats, landing))
    if cut is not None:
        keep = np.unique(np.concatenate([best[:SCREEN_KEEP], [0] if candidates.equal else []]))
        keep = keep.astype(np.int64)
        starts, ends, assign = starts[keep], ends[keep], assign[keep]
        stats = _score(crew, starts, ends, params, None)
        best = search.rank(*search.objective(*stats, landing))
    return starts, ends, assign, stats, best


@dataclass(frozen=True)
class _Pilots:
    """The pilots of the planned duty, in the request's order of References."""

    references: tuple[str, ...]
    landing: npt.NDArray[np.bool_]
    duties: list[Duty]
    placeholders: tuple[bool, ...]
    date_format: DateFormat

    @classmethod
    def of(
        cls, request: PlanRequest, duties: list[Duty], placeholders: tuple[bool, ...]
    ) -> _Pilots:
        landing = np.asarray([r in request.landing for r in request.references])
        return cls(tuple(request.references), landing, duties, placeholders, request.date_format)

    def split(self, c: int, s: FloatArray, e: FloatArray, assign: IntArray, stats: _Stats) -> Split:
        """Candidate ``c`` as a :class:`Split`: each pilot's break and KSS figures."""
        last_hour, stretch, mean = stats
        worst, landing_kss, crew_mean = search.objective(*stats, self.landing)
        breaks = tuple(
            PilotBreak(
                reference=ref,
                landing=bool(self.landing[p]),
                number=int(assign[c, p]) + 1,
                start=_instant(float(s[c, p])),
                end=_instant(float(e[c, p])),
                row=self.duties[p].row,
                columns=rest_cells(
                    self.duties[p],
                    _instant(float(s[c, p])),
                    _instant(float(e[c, p])),
                    self.date_format,
                ),
                last_hour_kss=round(float(last_hour[c, p]), 3),
                mean_kss=round(float(mean[c, p]), 3),
                stretch_kss=round(float(stretch[c, p]), 3),
                placeholder=self.placeholders[p],
            )
            for p, ref in enumerate(self.references)
        )
        return Split(
            breaks,
            round(float(worst[c]), 3),
            round(float(landing_kss[c]), 3),
            round(float(crew_mean[c]), 3),
        )


def _screen_cut(crew: Sequence[tuple[Schedule, int]]) -> datetime | None:
    """Where the screen cuts history: ``SCREEN_DAYS`` before the planned report, or ``None``
    when no crew member has a duty that ends before then (the screen is then exact)."""
    cut = min(s.duties[i].on_duty for s, i in crew) - timedelta(days=SCREEN_DAYS)
    early = any(d.off_duty < cut for s, i in crew for d in s.duties[:i])
    return cut if early else None


#: Per (candidate, pilot): worst last-hour KSS, worst KSS over the longest stretch at the
#: controls, mean KSS at the controls; three ``(C, P)`` arrays.
_Stats = tuple[FloatArray, FloatArray, FloatArray]


def _score(
    crew: Sequence[tuple[Schedule, int]],
    starts: FloatArray,
    ends: FloatArray,
    params: Parameters,
    cut: datetime | None,
) -> _Stats:
    """Each pilot's figures under each candidate (:data:`_Stats`).

    One schedule is scored per distinct (pilot, break): a pilot's scores depend on their own
    break only. Each schedule is cut after the planned duty (later duties cannot change its
    scores) and, for the screen, before ``cut`` (duties ending and given sleep ending
    earlier are left out); all of them go through the scorer in one batch along the crew axis.
    """
    batch: list[Schedule] = []
    inverse: list[IntArray] = []
    pairs_of: list[FloatArray] = []
    for p, (schedule, index) in enumerate(crew):
        pairs, inv = np.unique(
            np.stack([starts[:, p], ends[:, p]], axis=1), axis=0, return_inverse=True
        )
        inverse.append(np.asarray(inv, dtype=np.int64).reshape(-1))
        pairs_of.append(pairs)
        duty = schedule.duties[index]
        before = schedule.duties[:index]
        sleep = schedule.sleep
        if cut is not None:
            before = tuple(d for d in before if d.off_duty >= cut)
            sleep = tuple(r for r in sleep if r.end >= cut)
        for a, b in pairs.tolist():
            planned = replace(
                duty, first_rest=Period(_instant(a), _instant(b)), second_rest=None, sleep_count=1
            )
            batch.append(replace(schedule, duties=(*before, planned), sleep=sleep))
    kss = duty_scores(batch, params)
    out = (np.empty(starts.shape), np.empty(starts.shape), np.empty(starts.shape))
    row = 0
    for p, (schedule, index) in enumerate(crew):
        duty = schedule.duties[index]
        on, off = _hours(duty.on_duty), _hours(duty.off_duty)
        figures = np.asarray(
            [
                phase_figures(kss[row + k], on, off, a, b)
                for k, (a, b) in enumerate(pairs_of[p].tolist())
            ]
        )
        for j in range(3):
            out[j][:, p] = figures[inverse[p], j]
        row += len(pairs_of[p])
    return out


def phase_figures(
    kss: FloatArray, on: float, off: float, rest_start: float, rest_end: float
) -> tuple[float, float, float]:
    """One pilot's figures on one duty with one in-flight break (all times epoch hours).

    Returns the worst KSS in the duty's last hour, the worst KSS over the pilot's longest
    stretch at the controls (the longer of report-to-break and break-to-off-duty, the later
    one on a tie), and the mean KSS at the controls. An interval belongs to the break when its
    midpoint lies inside it.
    """
    mid = on + (np.arange(kss.size) + 0.5) * INTERVAL_HOURS
    before = mid < rest_start
    after = mid >= rest_end
    stretch = before if rest_start - on > off - rest_end else after
    working = before | after
    worst_stretch = float(kss[stretch].max()) if stretch.any() else float("nan")
    mean = float(kss[working].mean()) if working.any() else float("nan")
    return float(kss[-LAST_HOUR_INTERVALS:].max()), worst_stretch, mean


def summary(proposal: Split, equal: Split) -> str:
    """One line for the crew scheduler, e.g. "Landing pilots A, B take break 2, 03:15-05:45Z;
    landing KSS 5.9 instead of 6.7 (equal split); relief pilots C, D at most 6.1 over their
    longest stretch at the controls instead of 6.0"."""
    landing = [b for b in proposal.breaks if b.landing]
    names = " and ".join(b.reference for b in landing)
    if len({b.number for b in landing}) == 1:
        b = landing[0]
        where = f"take break {b.number}, {b.start:%H:%M}\u2013{b.end:%H:%M}Z"
    else:
        where = "take breaks " + ", ".join(
            f"{b.number} ({b.reference}) {b.start:%H:%M}\u2013{b.end:%H:%M}Z" for b in landing
        )
    relief = " and ".join(b.reference for b in proposal.breaks if not b.landing)
    return (
        f"Landing pilots {names} {where}; landing KSS {proposal.landing_kss:.1f} "
        f"instead of {equal.landing_kss:.1f} with the equal split; relief {relief}: worst KSS "
        f"over the longest stretch at the controls {proposal.relief_kss:.1f} instead of "
        f"{equal.relief_kss:.1f}"
    )
