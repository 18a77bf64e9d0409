"""The one path to a score (STYLE §3.9): roster text in, :class:`ScoreReport` out.

The CLI (``vigil score``), the scoring API (ProcessFatigue, ProcessFatigueRisk) and the
upload worker all call :func:`score`. It is synchronous, deterministic and does no I/O.

Pipeline, per chunk of crew (bounded memory, progress reported per chunk):

1. sleep the scores rest on: given SleepData (reference §4.4) or predicted (§4, §5);
2. :mod:`vigil.scoring.grid` builds the model arrays: warm-up start, body-clock target,
   sleep episodes, the 15-minute interval sample grid (contract §4);
3. :func:`vigil.model.simulate` gives S, C, U, W; the workload term (§6) and the KSS
   transform give the final KSS; every requested scale is mapped per sample and then
   averaged per interval (§9.2 step 4);
4. per-duty risk (§8) relative to the reference duty.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

import numba
import numpy as np
import numpy.typing as npt
import orjson

from vigil import model
from vigil.domain import CrewComposition, DateFormat, Schedule
from vigil.model import risk
from vigil.roster import format_error, parse_request
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, SleepEpisode
from vigil.scoring.predict import predict_sleep
from vigil.scoring.rest import rest_windows

#: Crew members simulated together: bounds peak memory (~15 samples per interval).
CHUNK_SIZE = 512
#: Below this many crew the kernels run single-threaded (see :func:`_kernel_threads`).
PARALLEL_MIN_CREW = 64
#: The contract's scale codes (seed §2.4), in its order.
SCALE_CODES: tuple[str, ...] = ("SP", "KSS", "KP", "VD", "CRD", "PMR")
#: Decimals of every reported score (contract §4).
DECIMALS = 3

ProgressCallback = Callable[[int, int], None]


class ScoringError(Exception):
    """A request the service cannot score (unknown scale or preset)."""


@dataclass(frozen=True, slots=True)
class ScoreRequest:
    """What a caller asks for (seed §2.1, contract §3)."""

    roster_text: str
    date_format: DateFormat = DateFormat.DMY
    scale: str = "KSS"
    sleep_data: Sequence[Mapping[str, object]] = ()
    activity_text: str = ""
    risk: bool = False
    include_sleep: bool = False
    preset: str = "ingre2014_5c"
    #: extra scales to compute alongside ``scale`` (the upload path stores all six)
    extra_scales: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DutyResult:
    """One duty's slice of its schedule's scores (contract §4 ``duties``)."""

    on_duty: datetime
    off_duty: datetime
    first_interval: int
    interval_count: int
    risk: float | None = None


@dataclass(frozen=True, slots=True)
class ScheduleResult:
    """Scores of one schedule: one array per computed scale, intervals concatenated."""

    reference: str
    scores: Mapping[str, FloatArray]
    duties: tuple[DutyResult, ...]
    sleep: tuple[SleepEpisode, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """Everything a response needs (contract §4)."""

    scale: str
    model_version: str
    schedules: tuple[ScheduleResult, ...]
    errors: tuple[str, ...]
    risk: bool = False
    include_sleep: bool = False

    def to_json(self, scale: str | None = None) -> bytes:
        """The contract §4 envelope as UTF-8 JSON, encoded straight from the score arrays."""
        return orjson.dumps(self.to_envelope(scale, arrays=True), option=orjson.OPT_SERIALIZE_NUMPY)

    def to_envelope(self, scale: str | None = None, *, arrays: bool = False) -> dict[str, object]:
        """The contract §4 JSON envelope, on ``scale`` (default: the requested one).

        With ``arrays=True`` the scores stay NumPy arrays (for :meth:`to_json`); otherwise
        they are lists of floats.
        """
        scale = scale or self.scale
        schedules: list[dict[str, object]] = []
        for result in self.schedules:
            if scale not in result.scores:
                raise ScoringError(f"scale {scale!r} was not computed for this report")
            entry: dict[str, object] = {
                "schedule": result.reference,
                "fatigueScores": result.scores[scale] if arrays else result.scores[scale].tolist(),
            }
            if self.risk:
                entry["riskScores"] = [d.risk for d in result.duties]
            duties: list[dict[str, object]] = []
            for duty in result.duties:
                item: dict[str, object] = {
                    "onDuty": iso(duty.on_duty),
                    "offDuty": iso(duty.off_duty),
                    "firstInterval": duty.first_interval,
                    "intervalCount": duty.interval_count,
                }
                if self.risk:
                    item["risk"] = duty.risk
                duties.append(item)
            entry["duties"] = duties
            if self.include_sleep:
                entry["sleep"] = [sleep_json(s) for s in result.sleep]
            schedules.append(entry)
        return {
            "scale": scale,
            "modelVersion": self.model_version,
            "scheduleScores": schedules,
            "errors": list(self.errors),
        }


def iso(instant: datetime) -> str:
    """UTC ``YYYY-MM-DDTHH:MM:SSZ`` (contract §8 Formats)."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sleep_json(episode: SleepEpisode) -> dict[str, object]:
    """One ``includeSleep`` entry (contract §4)."""
    return {
        "start": iso(grid.from_epoch_hours(episode.start)),
        "end": iso(grid.from_epoch_hours(episode.end)),
        "source": episode.source,
        "kind": episode.kind,
        "quality": round(episode.quality, 3),
    }


def resolve_preset(name: str) -> model.Parameters:
    """The named parameter preset (reference §2.5), or :class:`ScoringError`."""
    try:
        return model.PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(model.PRESETS))
        raise ScoringError(f"unknown preset {name!r}; known presets: {known}") from None


def resolve_scale(code: str) -> str:
    """Canonical scale code (case-insensitive, seed §2.4), or :class:`ScoringError`."""
    upper = code.strip().upper()
    if upper not in SCALE_CODES:
        raise ScoringError(f"unknown scale {code!r}; one of {', '.join(SCALE_CODES)}")
    return upper


def score(request: ScoreRequest, *, progress: ProgressCallback | None = None) -> ScoreReport:
    """Parse, validate and score a roster (the service's single scoring path).

    Parameters
    ----------
    request : ScoreRequest
        Roster text and options.
    progress : callable, optional
        Called as ``progress(done, total)`` in crew members after each chunk.

    Returns
    -------
    ScoreReport
        Scores of every schedule without data errors, in roster order of first
        appearance, and the data errors as ``row|schedule|message`` strings.

    Raises
    ------
    ScoringError
        Unknown scale or preset (request-level problems, answered 400 by the API).
    """
    scale = resolve_scale(request.scale)
    scales = tuple(dict.fromkeys((scale, *(resolve_scale(s) for s in request.extra_scales))))
    params = resolve_preset(request.preset)
    parsed = parse_request(
        request.roster_text,
        request.date_format,
        sleep_data=request.sleep_data,
        activity_text=request.activity_text,
    )
    results = score_schedules(
        parsed.schedules,
        params,
        scales,
        progress=progress,
        risk=request.risk,
    )
    return ScoreReport(
        scale=scale,
        model_version=params.model_version,
        schedules=tuple(results),
        errors=tuple(format_error(e) for e in parsed.errors),
        risk=request.risk,
        include_sleep=request.include_sleep,
    )


def sleep_for(
    schedules: Sequence[Schedule],
    params: model.Parameters,
    starts: Sequence[datetime] | None = None,
) -> list[list[SleepEpisode]]:
    """Given sleep where a schedule has any (contract §3.2), predicted sleep otherwise."""
    out: list[list[SleepEpisode] | None] = [None] * len(schedules)
    missing: list[int] = []
    for i, schedule in enumerate(schedules):
        if schedule.sleep:
            start = starts[i] if starts is not None else grid.warmup_start(schedule)
            out[i] = grid.given_sleep_episodes(schedule, start, params)
        else:
            missing.append(i)
    if missing:
        predicted = predict_sleep([schedules[i] for i in missing], params)
        for i, episodes in zip(missing, predicted, strict=True):
            out[i] = episodes
    return [episodes or [] for episodes in out]


def score_schedules(
    schedules: Sequence[Schedule],
    params: model.Parameters,
    scales: Sequence[str] = ("KSS",),
    *,
    progress: ProgressCallback | None = None,
    chunk_size: int = CHUNK_SIZE,
    risk: bool = True,
) -> list[ScheduleResult]:
    """Score validated schedules chunk by chunk (see the module docstring)."""
    results: list[ScheduleResult] = []
    total = len(schedules)
    with _kernel_threads(total):
        for lo in range(0, total, chunk_size):
            chunk = schedules[lo : lo + chunk_size]
            results.extend(_score_chunk(chunk, params, scales, risk))
            if progress is not None:
                progress(min(lo + chunk_size, total), total)
    return results


@contextmanager
def _kernel_threads(n_crew: int) -> Iterator[None]:
    """Run the Numba kernels on one thread for small batches.

    Waking a thread pool costs more than a few crew members' work (measured: 10 ms
    instead of 0.7 ms for one 28-day schedule on this 2-core machine), and a server
    already runs requests in parallel. Large batches keep every configured thread.
    """
    if n_crew >= PARALLEL_MIN_CREW:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


_CREW_STRIDE = 1.0e6  #: [h] offset separating crew rows when searching sorted episodes


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where every duty and interval of a chunk sits, as flat arrays.

    Duties (``D`` of them) are indexed in crew order then duty order; intervals (``T``)
    in duty order. Crew rows of the model arrays hold each crew member's intervals back
    to back, ``spi`` samples each (the layout of :func:`vigil.model.interval_means`).
    """

    n_crew: int
    crew: npt.NDArray[np.int64]  # (D,) crew row of each duty
    on: FloatArray  # (D,) report [epoch h]
    off: FloatArray  # (D,) off duty [epoch h]
    count: npt.NDArray[np.int64]  # (D,) intervals per duty
    slot: npt.NDArray[np.int64]  # (D,) duty position within its crew member
    sectors: FloatArray  # (D,)
    workload: FloatArray  # (D,)
    cabin: npt.NDArray[np.bool_]  # (D,)
    rest_start: FloatArray  # (D, r) own rest windows (in-flight and split breaks), NaN pad
    rest_end: FloatArray  # (D, r)
    inflight: npt.NDArray[np.bool_]  # (D, r) which windows are in-flight rest
    duty: npt.NDArray[np.int64]  # (T,) duty of each interval
    position: npt.NDArray[np.int64]  # (T,) interval index within its duty
    column: npt.NDArray[np.int64]  # (T,) interval index within its crew row
    start: FloatArray  # (T,) interval start [epoch h]
    width: int  # most intervals of any crew member

    @property
    def interval_crew(self) -> npt.NDArray[np.int64]:
        return self.crew[self.duty]


def _layout(schedules: Sequence[Schedule]) -> _Layout:
    crew: list[int] = []
    on: list[float] = []
    off: list[float] = []
    count: list[int] = []
    slot: list[int] = []
    sectors: list[float] = []
    workload: list[float] = []
    cabin: list[bool] = []
    rests: list[list[tuple[float, float, bool]]] = []
    for i, schedule in enumerate(schedules):
        for j, duty in enumerate(schedule.duties):
            crew.append(i)
            on.append(grid.epoch_hours(duty.on_duty))
            off.append(grid.epoch_hours(duty.off_duty))
            count.append(duty.interval_count)
            slot.append(j)
            sectors.append(float(duty.sectors))
            workload.append(float(duty.workload))
            cabin.append(duty.crew_composition == CrewComposition.CABIN_CREW)
            rests.append(
                [
                    (grid.epoch_hours(w.start), grid.epoch_hours(w.end), w.kind == "inflight")
                    for w in rest_windows(duty)
                ]
            )
    crew_a = np.asarray(crew, dtype=np.int64)
    count_a = np.asarray(count, dtype=np.int64)
    on_a = np.asarray(on, dtype=np.float64)
    n_duty = count_a.size
    duty_idx = np.repeat(np.arange(n_duty), count_a)
    duty_first = np.cumsum(count_a) - count_a
    position = np.arange(duty_idx.size) - duty_first[duty_idx]
    # first interval column of each duty within its crew row
    crew_first = np.zeros(n_duty, dtype=np.int64)
    per_crew = np.bincount(crew_a, weights=count_a, minlength=len(schedules)).astype(np.int64)
    crew_offset = np.cumsum(per_crew) - per_crew
    if n_duty:
        crew_first = duty_first - crew_offset[crew_a]
    return _Layout(
        n_crew=len(schedules),
        crew=crew_a,
        on=on_a,
        off=np.asarray(off, dtype=np.float64),
        count=count_a,
        slot=np.asarray(slot, dtype=np.int64),
        sectors=np.asarray(sectors, dtype=np.float64),
        workload=np.asarray(workload, dtype=np.float64),
        cabin=np.asarray(cabin, dtype=bool),
        rest_start=grid.pad_rows([[r[0] for r in rows] for rows in rests]),
        rest_end=grid.pad_rows([[r[1] for r in rows] for rows in rests]),
        inflight=grid.pad_rows([[float(r[2]) for r in rows] for rows in rests], 0.0) > 0,
        duty=duty_idx,
        position=position,
        column=crew_first[duty_idx] + position,
        start=on_a[duty_idx] + 0.25 * position,
        width=int(per_crew.max()) if per_crew.size else 0,
    )


def _timeline(
    schedules: Sequence[Schedule],
    sleeps: Sequence[Sequence[SleepEpisode]],
    warmups: Sequence[datetime],
) -> model.CrewTimeline:
    """Warm-up start, body-clock target and sleep episodes of each crew member."""
    starts: list[float] = []
    phase: list[float] = []
    zone_t: list[list[float]] = []
    zone_o: list[list[float]] = []
    for schedule, episodes, start in zip(schedules, sleeps, warmups, strict=True):
        t0 = grid.epoch_hours(start)
        if episodes and episodes[0].start < t0:
            t0 = episodes[0].start
            start = grid.from_epoch_hours(t0)
        starts.append(t0)
        end = grid.epoch_hours(grid.last_event(schedule)) + 1.0
        points = grid.zone_timeline(grid.location_spans(schedule, start), end)
        phase.append(points[0][1])
        zone_t.append([p[0] for p in points])
        zone_o.append([p[1] for p in points])
    return model.CrewTimeline(
        start=np.asarray(starts, dtype=np.float64),
        s_start=np.full(len(schedules), grid.S_AT_WAKING),
        phase_start=np.asarray(phase, dtype=np.float64),
        sleep_start=grid.pad_rows([[e.start for e in ep] for ep in sleeps]),
        sleep_end=grid.pad_rows([[e.end for e in ep] for ep in sleeps]),
        sleep_quality=grid.pad_rows([[e.quality for e in ep] for ep in sleeps], 1.0),
        zone_time=grid.pad_rows(zone_t),
        zone_offset=grid.pad_rows(zone_o),
    )


def _to_crew_rows(layout: _Layout, per_interval: FloatArray, fill: float) -> FloatArray:
    """Scatter ``(T, spi)`` interval rows into ``(n_crew, width * spi)`` crew rows."""
    spi = per_interval.shape[1]
    out = np.full((layout.n_crew, max(layout.width, 1), spi), fill)
    out[layout.interval_crew, layout.column] = per_interval
    return out.reshape(layout.n_crew, -1)


def _score_chunk(
    schedules: Sequence[Schedule],
    params: model.Parameters,
    scales: Sequence[str],
    risk: bool = True,
) -> list[ScheduleResult]:
    starts = [grid.warmup_start(schedule) for schedule in schedules]
    sleeps = sleep_for(schedules, params, starts)
    layout = _layout(schedules)
    timeline = _timeline(schedules, sleeps, starts)
    spi = grid.SAMPLES_PER_INTERVAL
    samples = grid.interval_samples(layout.start, layout.off[layout.duty], spi)  # (T, spi)
    d = layout.duty
    wl = model.workload_kss_fast(  # reference §6, one row per interval
        samples,
        layout.on[d],
        layout.off[d],
        layout.sectors[d],
        layout.workload[d],
        layout.rest_start[d],
        layout.rest_end[d],
        params,
    )
    sample_time = _to_crew_rows(layout, samples, np.nan)
    x = model.simulate_alertness(timeline, sample_time, params)
    # back to interval rows (T, spi): no crew padding in the per-sample work below
    x = x.reshape(layout.n_crew, -1, spi)[layout.interval_crew, layout.column]
    kss = model.final_kss(x, np.nan_to_num(wl, nan=0.0), params, out=x)
    padding = np.isnan(samples)
    count = spi - padding.sum(axis=1)
    per_scale = {
        code: np.round(_interval_means(model.SCALES[code](kss, params), padding, count), DECIMALS)
        for code in scales
    }
    risks = (
        _risks(layout, timeline, _interval_means(kss.copy(), padding, count), params)
        if risk
        else np.full(layout.on.size, np.nan)
    )
    results: list[ScheduleResult] = []
    duty_row = 0
    row = 0
    risk_list = risks.tolist()
    for i, schedule in enumerate(schedules):
        total = schedule.interval_count
        duties: list[DutyResult] = []
        first = 0
        for duty in schedule.duties:
            value = risk_list[duty_row] if risk else None
            duties.append(
                DutyResult(duty.on_duty, duty.off_duty, first, duty.interval_count, value)
            )
            first += duty.interval_count
            duty_row += 1
        results.append(
            ScheduleResult(
                reference=schedule.reference,
                scores={code: arr[row : row + total] for code, arr in per_scale.items()},
                duties=tuple(duties),
                sleep=tuple(sleeps[i]),
            )
        )
        row += total
    return results


def _interval_means(
    values: FloatArray, padding: npt.NDArray[np.bool_], count: npt.NDArray[np.int64]
) -> FloatArray:
    """Mean of each ``(T, spi)`` row over its ``count`` valid samples.

    ``values`` is overwritten (its ``padding`` slots set to 0): callers pass a temporary.
    """
    values[padding] = 0.0
    means: FloatArray = values.sum(axis=1) / np.maximum(count, 1)
    return means


def _inside(
    crew: npt.NDArray[np.int64], t: FloatArray, start: FloatArray, end: FloatArray
) -> npt.NDArray[np.bool_]:
    """Whether instant ``t[k]`` of crew ``crew[k]`` lies in one of that crew's episodes.

    ``start``/``end`` are ``(n_crew, m)`` sorted, non-overlapping, NaN-padded.
    """
    rows = np.broadcast_to(np.arange(start.shape[0])[:, None], start.shape)
    valid = np.isfinite(start)
    keys = (start + rows * _CREW_STRIDE)[valid]
    ends = (end + rows * _CREW_STRIDE)[valid]
    if keys.size == 0:
        return np.zeros(t.shape, dtype=bool)
    query = t + crew * _CREW_STRIDE
    idx = np.searchsorted(keys, query, side="right") - 1
    safe = np.maximum(idx, 0)
    return (idx >= 0) & (query < ends[safe])


def _risks(
    layout: _Layout,
    timeline: model.CrewTimeline,
    kss_by_interval: FloatArray,
    params: model.Parameters,
) -> FloatArray:
    """R_d = H_d / H_ref for every duty of the chunk (reference §8).

    An interval is left out of the exposure sum when its midpoint lies in the person's
    own in-flight rest or in one of their sleeps (a split-duty break counts as duty only
    while awake, §7). Night/early classification uses body-clock report and off times,
    ``t + phi(t)`` from the simulated body clock.
    """
    n_duty = layout.on.size
    if n_duty == 0:
        return np.empty(0)
    width = int(layout.count.max())
    d, k = layout.duty, layout.position
    kss = np.full((n_duty, width), np.nan)
    kss[d, k] = kss_by_interval
    end = np.minimum(layout.start + 0.25, layout.off[d])
    hours = np.zeros((n_duty, width))
    hours[d, k] = layout.start - layout.on[d]
    lengths = np.zeros((n_duty, width))
    lengths[d, k] = end - layout.start
    mid = (layout.start + end) / 2
    asleep = _inside(
        layout.interval_crew,
        mid,
        np.asarray(timeline.sleep_start),
        np.asarray(timeline.sleep_end),
    )
    rs, re = layout.rest_start[d], layout.rest_end[d]
    resting = ((mid[:, None] >= rs) & (mid[:, None] < re) & layout.inflight[d]).any(axis=1)
    included = np.zeros((n_duty, width), dtype=bool)
    included[d, k] = ~(asleep | resting)
    # body clock at report and off duty: phase from the same simulation, two points a duty
    slots = int(layout.slot.max()) + 1
    points = np.full((layout.n_crew, 2 * slots), np.nan)
    points[layout.crew, 2 * layout.slot] = layout.on
    points[layout.crew, 2 * layout.slot + 1] = layout.off - 1e-6
    phase = model.simulate(timeline, points, params).phase
    report_body = layout.on + phase[layout.crew, 2 * layout.slot]
    off_body = layout.off + phase[layout.crew, 2 * layout.slot + 1]
    kinds = model.classify_duty(report_body, off_body, params)
    crew_shape = (layout.n_crew, slots)
    report_rows = np.full(crew_shape, np.nan)
    off_rows = np.full(crew_shape, np.nan)
    kind_rows = np.zeros(crew_shape, dtype=np.int64)
    report_rows[layout.crew, layout.slot] = layout.on
    off_rows[layout.crew, layout.slot] = layout.off
    kind_rows[layout.crew, layout.slot] = kinds
    multiplier = model.cumulative_multiplier(report_rows, off_rows, kind_rows, params)
    # cumulative fatigue over a run of nights or earlies: no recovery within the run (§8)
    factor_rows = np.full(crew_shape, np.nan)
    factor_rows[layout.crew, layout.slot] = risk.fatigue_factor(kss, included, lengths, params)
    positions = risk.run_positions(report_rows, off_rows, kind_rows, params)
    multiplier = multiplier * risk.run_fatigue_floor(factor_rows, kind_rows, positions)
    takeoff, landing = model.sector_times(layout.on, layout.off, layout.sectors, params)
    hazard = model.duty_hazard(
        kss,
        hours,
        included,
        model.nearest_point_counts(takeoff, layout.on, layout.count, width),
        model.nearest_point_counts(landing, layout.on, layout.count, width),
        multiplier[layout.crew, layout.slot],
        params,
        cabin_crew=layout.cabin,
        interval_hours=lengths,
    )
    return np.round(model.duty_risk(hazard, params), DECIMALS)
