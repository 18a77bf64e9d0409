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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from vigil import model
from vigil.domain import CrewComposition, DateFormat, Duty, Schedule
from vigil.roster import format_error, parse_request
from vigil.scoring import grid
from vigil.scoring.grid import FloatArray, SleepEpisode
from vigil.scoring.predict import predict_sleep
from vigil.scoring.rest import rest_windows

#: Crew members simulated together: bounds peak memory (~15 samples per interval).
CHUNK_SIZE = 512
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
    stats: Mapping[str, float] = field(default_factory=dict)

    def to_envelope(self, scale: str | None = None) -> dict[str, object]:
        """The contract §4 JSON envelope, on ``scale`` (default: the requested one)."""
        scale = scale or self.scale
        schedules: list[dict[str, object]] = []
        for result in self.schedules:
            if scale not in result.scores:
                raise ScoringError(f"scale {scale!r} was not computed for this report")
            entry: dict[str, object] = {
                "schedule": result.reference,
                "fatigueScores": result.scores[scale].tolist(),
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
    results = score_schedules(parsed.schedules, params, scales, progress=progress)
    return ScoreReport(
        scale=scale,
        model_version=params.model_version,
        schedules=tuple(results),
        errors=tuple(format_error(e) for e in parsed.errors),
        risk=request.risk,
        include_sleep=request.include_sleep,
    )


def sleep_for(schedules: Sequence[Schedule], params: model.Parameters) -> list[list[SleepEpisode]]:
    """Given sleep where a schedule has any (contract §3.2), predicted sleep otherwise."""
    out: list[list[SleepEpisode] | None] = [None] * len(schedules)
    missing: list[int] = []
    for i, schedule in enumerate(schedules):
        if schedule.sleep:
            out[i] = grid.given_sleep_episodes(schedule, grid.warmup_start(schedule))
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
) -> list[ScheduleResult]:
    """Score validated schedules chunk by chunk (see the module docstring)."""
    results: list[ScheduleResult] = []
    total = len(schedules)
    for lo in range(0, total, chunk_size):
        chunk = schedules[lo : lo + chunk_size]
        results.extend(_score_chunk(chunk, params, scales))
        if progress is not None:
            progress(min(lo + chunk_size, total), total)
    return results


@dataclass(frozen=True, slots=True)
class _Packed:
    """One chunk of crew as model arrays.

    Crew rows hold every duty's intervals back to back, ``spi`` samples each (layout of
    :func:`vigil.model.interval_means`). Duty rows (all duties of the chunk) hold one
    duty's samples each, for the workload term and risk.
    """

    timeline: model.CrewTimeline
    sample_time: FloatArray  # (n_crew, I_max * spi)
    workload: FloatArray  # (n_crew, I_max * spi) ΔKSS_wl per sample
    interval_counts: list[int]  # per crew
    duty_rows: list[list[int]]  # per crew, the duty-row index of each of its duties
    duty_samples: FloatArray  # (n_duty, D_max * spi)


def _pack(schedules: Sequence[Schedule], sleeps: Sequence[Sequence[SleepEpisode]]) -> _Packed:
    spi = grid.SAMPLES_PER_INTERVAL
    starts: list[float] = []
    phase: list[float] = []
    sleep_start: list[list[float]] = []
    sleep_end: list[list[float]] = []
    sleep_quality: list[list[float]] = []
    zone_t: list[list[float]] = []
    zone_o: list[list[float]] = []
    crew_samples: list[FloatArray] = []
    counts: list[int] = []
    duty_rows: list[list[int]] = []
    duty_samples: list[FloatArray] = []
    duties: list[Duty] = []
    for schedule, episodes in zip(schedules, sleeps, strict=True):
        start = grid.warmup_start(schedule)
        t0 = grid.epoch_hours(start)
        if episodes:
            t0 = min(t0, episodes[0].start)
            start = grid.from_epoch_hours(t0)
        starts.append(t0)
        end = grid.epoch_hours(grid.last_event(schedule)) + 1.0
        points = grid.zone_timeline(grid.location_spans(schedule, start), end)
        phase.append(points[0][1])
        zone_t.append([p[0] for p in points])
        zone_o.append([p[1] for p in points])
        sleep_start.append([e.start for e in episodes])
        sleep_end.append([e.end for e in episodes])
        sleep_quality.append([e.quality for e in episodes])
        rows: list[int] = []
        blocks: list[FloatArray] = []
        for duty in schedule.duties:
            block = grid.duty_sample_times([duty], spi)
            blocks.append(block)
            rows.append(len(duty_samples))
            duty_samples.append(block.ravel())
            duties.append(duty)
        duty_rows.append(rows)
        merged = np.concatenate(blocks, axis=0) if blocks else np.empty((0, spi))
        crew_samples.append(merged.ravel())
        counts.append(merged.shape[0])
    n = len(schedules)
    timeline = model.CrewTimeline(
        start=np.asarray(starts, dtype=np.float64),
        s_start=np.full(n, grid.S_AT_WAKING),
        phase_start=np.asarray(phase, dtype=np.float64),
        sleep_start=grid.pad_rows(sleep_start),
        sleep_end=grid.pad_rows(sleep_end),
        sleep_quality=grid.pad_rows(sleep_quality, 1.0),
        zone_time=grid.pad_rows(zone_t),
        zone_offset=grid.pad_rows(zone_o),
    )
    duty_matrix = grid.pad_rows(duty_samples)
    duty_workload = _workload(duties, duty_matrix)
    workload = np.zeros((n, max(len(r) for r in crew_samples) if crew_samples else 1))
    for i, rows in enumerate(duty_rows):
        pieces = [duty_workload[r, : duties[r].interval_count * spi] for r in rows]
        if pieces:
            flat = np.concatenate(pieces)
            workload[i, : flat.size] = flat
    return _Packed(
        timeline=timeline,
        sample_time=grid.pad_rows(crew_samples),
        workload=np.nan_to_num(workload, nan=0.0),
        interval_counts=counts,
        duty_rows=duty_rows,
        duty_samples=duty_matrix,
    )


def _workload(duties: Sequence[Duty], samples: FloatArray) -> FloatArray:
    """ΔKSS_wl (reference §6) per duty row, halved and frozen in the person's own rest."""
    if not duties:
        return np.zeros_like(samples)
    rests = [rest_windows(d) for d in duties]
    rest_start = grid.pad_rows([[grid.epoch_hours(w.start) for w in r] for r in rests])
    rest_end = grid.pad_rows([[grid.epoch_hours(w.end) for w in r] for r in rests])
    return model.workload_kss(
        samples,
        [grid.epoch_hours(d.on_duty) for d in duties],
        [grid.epoch_hours(d.off_duty) for d in duties],
        [float(d.sectors) for d in duties],
        [float(d.workload) for d in duties],
        rest_start,
        rest_end,
    )


def _score_chunk(
    schedules: Sequence[Schedule], params: model.Parameters, scales: Sequence[str]
) -> list[ScheduleResult]:
    sleeps = sleep_for(schedules, params)
    packed = _pack(schedules, sleeps)
    state = model.simulate(packed.timeline, packed.sample_time, params)
    kss = model.final_kss(state.alertness, packed.workload, params)
    spi = grid.SAMPLES_PER_INTERVAL
    per_scale = {
        code: np.round(model.interval_means(model.SCALES[code](kss, params), spi), DECIMALS)
        for code in scales
    }
    kss_intervals = model.interval_means(kss, spi)
    results: list[ScheduleResult] = []
    for i, schedule in enumerate(schedules):
        count = packed.interval_counts[i]
        risks = duty_risks(
            schedule, sleeps[i], kss_intervals[i, :count], state.phase[i], packed, i, params
        )
        duties: list[DutyResult] = []
        first = 0
        for duty, risk in zip(schedule.duties, risks, strict=True):
            duties.append(DutyResult(duty.on_duty, duty.off_duty, first, duty.interval_count, risk))
            first += duty.interval_count
        results.append(
            ScheduleResult(
                reference=schedule.reference,
                scores={code: arr[i, :count] for code, arr in per_scale.items()},
                duties=tuple(duties),
                sleep=tuple(sleeps[i]),
            )
        )
    return results


def duty_risks(
    schedule: Schedule,
    sleeps: Sequence[SleepEpisode],
    kss_intervals: FloatArray,
    phase: FloatArray,
    packed: _Packed,
    row: int,
    params: model.Parameters,
) -> list[float]:
    """R_d = H_d / H_ref for every duty of one schedule (reference §8).

    An interval is excluded from the exposure sum when its midpoint lies in the
    person's own in-flight rest or in one of their sleeps (a split-duty break counts
    as duty only while awake, reference §7). Body-clock report and off times, for the
    night/early classification, use the simulated phase at the duty's first and last
    sample.
    """
    duties = schedule.duties
    d = len(duties)
    width = max(x.interval_count for x in duties)
    spi = grid.SAMPLES_PER_INTERVAL
    kss = np.full((d, width), np.nan)
    hours = np.zeros((d, width))
    lengths = np.zeros((d, width))
    included = np.zeros((d, width), dtype=bool)
    report = np.array([grid.epoch_hours(x.on_duty) for x in duties])
    off = np.array([grid.epoch_hours(x.off_duty) for x in duties])
    report_body = np.empty(d)
    off_body = np.empty(d)
    sleep_bounds = [(e.start, e.end) for e in sleeps]
    first = 0
    for j, duty in enumerate(duties):
        count = duty.interval_count
        kss[j, :count] = kss_intervals[first : first + count]
        points = report[j] + 0.25 * np.arange(count)
        hours[j, :count] = points - report[j]
        lengths[j, :count] = np.minimum(points + 0.25, off[j]) - points
        mid = (points + np.minimum(points + 0.25, off[j])) / 2
        resting = np.zeros(count, dtype=bool)
        windows = [w for w in rest_windows(duty) if w.kind == "inflight"]
        spans = [(grid.epoch_hours(w.start), grid.epoch_hours(w.end)) for w in windows]
        for a, b in spans + [s for s in sleep_bounds if s[1] > report[j] and s[0] < off[j]]:
            resting |= (mid >= a) & (mid < b)
        included[j, :count] = ~resting
        samples = packed.sample_time[row, first * spi : (first + count) * spi]
        phases = phase[first * spi : (first + count) * spi]
        valid = np.flatnonzero(np.isfinite(samples))
        report_body[j] = report[j] + phases[valid[0]]
        off_body[j] = off[j] + phases[valid[-1]]
        first += count
    kinds = model.classify_duty(report_body, off_body, params)
    multiplier = model.cumulative_multiplier(report[None, :], off[None, :], kinds[None, :], params)
    sectors = np.array([float(x.sectors) for x in duties])
    takeoff, landing = model.sector_times(report, off, sectors, params)
    n_int = np.array([x.interval_count for x in duties])
    hazards = model.duty_hazard(
        kss,
        hours,
        included,
        model.nearest_point_counts(takeoff, report, n_int, width),
        model.nearest_point_counts(landing, report, n_int, width),
        multiplier[0],
        params,
        cabin_crew=np.array([x.crew_composition == CrewComposition.CABIN_CREW for x in duties]),
        interval_hours=lengths,
    )
    return [round(float(r), DECIMALS) for r in model.duty_risk(hazards, params)]
