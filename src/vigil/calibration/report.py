"""The calibration report: the model against the operator's own crews.

:func:`build_report` scores the stored roster twice through the one scoring path
(:func:`vigil.scoring.service.score`): once with the crew's actual sleep where given
(predicted otherwise), to compare ratings with the model, and once with predicted sleep
only, to compare predicted with actual sleep. Each rating is matched to the 15-minute
interval that holds it (contract §4) on the rating's own scale (KSS or SP), and the
residual is ``observed − predicted``. See docs/calibration.md for every statistic.

Everything here is pure: texts and options in, a :class:`CalibrationReport` out.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from vigil import tz
from vigil.calibration.fit import Fit, fit_kss
from vigil.calibration.observations import (
    INSTRUMENTS,
    Matched,
    Observation,
    SleepPeriod,
)
from vigil.calibration.verdict import Verdict, adoption_text, band_order, verdict
from vigil.domain import INTERVAL, DateFormat, Schedule
from vigil.roster.subset import only_schedules
from vigil.scoring.context import DEFAULT_CONTEXT, ScoringContext
from vigil.scoring.grid import from_epoch_hours
from vigil.scoring.service import ScheduleResult, ScoreReport, score

__all__ = ["CalibrationReport", "Group", "Matched", "build_report", "summarise"]

#: local time-of-day bins at the crew member's home base [h]
TIME_OF_DAY = (("00-06", 0, 6), ("06-12", 6, 12), ("12-18", 12, 18), ("18-24", 18, 24))
#: hours-on-duty bins [h]
HOURS_ON_DUTY = (("0-4", 0.0, 4.0), ("4-8", 4.0, 8.0), ("8-12", 8.0, 12.0), ("12+", 12.0, 99.0))
DUTY_TYPES = {1: "active", 2: "split shift", 3: "standby"}


@dataclass(frozen=True, slots=True)
class Group:
    """Agreement of one group of ratings: bias = mean(observed − predicted)."""

    label: str
    n: int
    bias: float
    rmse: float
    within1: float  #: share with |observed − predicted| ≤ 1
    within2: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "n": self.n,
            "bias": _r(self.bias),
            "rmse": _r(self.rmse),
            "within1": _r(self.within1),
            "within2": _r(self.within2),
        }


def _r(x: float) -> float | None:
    return None if not math.isfinite(x) else round(x, 3)


def summarise(label: str, matched: Sequence[Matched]) -> Group:
    """Bias, RMSE and shares within ±1 and ±2 scale points of ``matched``."""
    if not matched:
        return Group(label, 0, math.nan, math.nan, math.nan, math.nan)
    res = np.array([m.residual for m in matched])
    return Group(
        label,
        int(res.size),
        float(res.mean()),
        float(np.sqrt(np.mean(res**2))),
        float(np.mean(np.abs(res) <= 1.0)),
        float(np.mean(np.abs(res) <= 2.0)),
    )


@dataclass(frozen=True, slots=True)
class SleepComparison:
    """Predicted against actual sleep in the breaks of one type (hours per break)."""

    break_type: str
    breaks: int
    actual_hours: float  #: mean per break
    predicted_hours: float
    bias_hours: float  #: mean(actual − predicted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "breakType": self.break_type,
            "breaks": self.breaks,
            "actualHours": _r(self.actual_hours),
            "predictedHours": _r(self.predicted_hours),
            "biasHours": _r(self.bias_hours),
        }


@dataclass(frozen=True)
class CalibrationReport:
    """Everything the page, the JSON and the PDF show; every number says its source."""

    model_version: str
    settings_version: int | None
    matched: tuple[Matched, ...]
    unmatched: tuple[str, ...]  #: ``row|Reference|why`` of ratings not compared
    input_errors: tuple[str, ...]  #: bad lines of the files and roster data errors
    sleep_given_for: tuple[str, ...]  #: References scored with their actual sleep
    sleep: tuple[SleepComparison, ...]
    fits: Mapping[str, Fit | None] = field(default_factory=dict)

    def by_instrument(self, instrument: str) -> list[Matched]:
        return [m for m in self.matched if m.observation.instrument == instrument]

    def groups(self, instrument: str, key: Callable[[Matched], str]) -> list[Group]:
        buckets: dict[str, list[Matched]] = defaultdict(list)
        for m in self.by_instrument(instrument):
            buckets[key(m)].append(m)
        return [summarise(label, buckets[label]) for label in sorted(buckets, key=band_order)]

    def bins(self, instrument: str) -> list[dict[str, Any]]:
        """Calibration plot data: ratings binned by predicted value (1-point bins)."""
        low, high = INSTRUMENTS[instrument]
        out = []
        for lo in np.arange(low, high):
            inside = [
                m
                for m in self.by_instrument(instrument)
                if lo <= m.predicted < lo + 1 or (lo + 1 == high and m.predicted == high)
            ]
            if inside:
                obs = np.array([m.observation.value for m in inside])
                pred = np.array([m.predicted for m in inside])
                out.append(
                    {
                        "bin": f"{lo:g}-{lo + 1:g}",
                        "n": len(inside),
                        "meanPredicted": _r(float(pred.mean())),
                        "meanObserved": _r(float(obs.mean())),
                        "sdObserved": _r(float(obs.std(ddof=1))) if len(inside) > 1 else None,
                    }
                )
        return out

    def verdict(self) -> Verdict:
        """The plain one-sentence verdict (:mod:`vigil.calibration.verdict`)."""
        return verdict(self.matched, self.fits.get("KSS"))

    def adoption(self, *, current: str | None = None, offered: str | None = None) -> str | None:
        """What *Adopt* changes, in words; ``None`` when no preset is offered."""
        predicted = np.array([m.predicted for m in self.by_instrument("KSS")])
        return adoption_text(self.fits.get("KSS"), predicted, current=current, offered=offered)

    def instruments(self) -> list[str]:
        return [i for i in INSTRUMENTS if self.by_instrument(i)]

    def to_dict(self) -> dict[str, Any]:
        """The API's ``calibration`` key (docs/calibration.md "JSON")."""
        scales: dict[str, Any] = {}
        for instrument in self.instruments():
            fit = self.fits.get(instrument)
            scales[instrument] = {
                "overall": summarise("all", self.by_instrument(instrument)).to_dict(),
                "byTimeOfDay": [g.to_dict() for g in self.groups(instrument, _tod)],
                "byDutyType": [g.to_dict() for g in self.groups(instrument, _dt)],
                "byHoursOnDuty": [g.to_dict() for g in self.groups(instrument, _hod)],
                "calibrationBins": self.bins(instrument),
                "fit": fit.to_dict() if fit is not None else None,
            }
        said = self.verdict()
        return {
            "verdict": said.text,
            "verdictDetail": said.to_dict(),
            "adoption": self.adoption(),
            "modelVersion": self.model_version,
            "settingsVersion": self.settings_version,
            "observationsUsed": len(self.matched),
            "observationsNotCompared": list(self.unmatched),
            "inputErrors": list(self.input_errors),
            "actualSleepFor": list(self.sleep_given_for),
            "scales": scales,
            "sleep": [s.to_dict() for s in self.sleep],
        }


def _tod(m: Matched) -> str:
    return m.time_of_day


def _dt(m: Matched) -> str:
    return m.duty_type


def _hod(m: Matched) -> str:
    return m.hours_on_duty


def _label(bins: Sequence[tuple[str, float, float]], value: float) -> str:
    return next((name for name, lo, hi in bins if lo <= value < hi), bins[-1][0])


def _match(
    observations: Sequence[Observation],
    schedules: Mapping[str, Schedule],
    results: Mapping[str, ScheduleResult],
) -> tuple[list[Matched], list[str]]:
    matched: list[Matched] = []
    unmatched: list[str] = []
    for obs in observations:
        where = f"{obs.row}|{obs.reference}"
        schedule, result = schedules.get(obs.reference), results.get(obs.reference)
        if schedule is None or result is None:
            unmatched.append(f"{where}|no scored schedule with this Reference in the roster")
            continue
        for duty, slot in zip(schedule.duties, result.duties, strict=True):
            if duty.on_duty <= obs.at < duty.off_duty:
                k = int((obs.at - duty.on_duty) / INTERVAL)
                value = float(result.scores[obs.instrument][slot.first_interval + k])
                local = tz.utc_to_local(obs.at, duty.home.tz)
                matched.append(
                    Matched(
                        obs,
                        value,
                        _label(TIME_OF_DAY, local.hour + local.minute / 60),
                        DUTY_TYPES.get(int(duty.duty_type), str(int(duty.duty_type))),
                        _label(HOURS_ON_DUTY, (obs.at - duty.on_duty) / timedelta(hours=1)),
                    )
                )
                break
        else:
            unmatched.append(f"{where}|the timestamp is outside every duty of this schedule")
    return matched, unmatched


def _hours_in(episodes: Sequence[tuple[datetime, datetime]], lo: datetime, hi: datetime) -> float:
    total = timedelta()
    for start, end in episodes:
        overlap = min(end, hi) - max(start, lo)
        if overlap > timedelta():
            total += overlap
    return total / timedelta(hours=1)


def _sleep_comparison(
    schedules: Mapping[str, Schedule],
    predicted: Mapping[str, ScheduleResult],
    actual: Sequence[SleepPeriod],
) -> list[SleepComparison]:
    by_ref: dict[str, list[tuple[datetime, datetime]]] = defaultdict(list)
    for period in actual:
        by_ref[period.reference].append((period.start, period.end))
    rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for ref, periods in by_ref.items():
        schedule, result = schedules.get(ref), predicted.get(ref)
        if schedule is None or result is None:
            continue
        model_sleep = [
            (from_epoch_hours(e.start), from_epoch_hours(e.end))
            for e in result.sleep
            if e.kind != "inflight"
        ]
        duties = schedule.duties
        for before, after in zip(duties, duties[1:], strict=False):
            lo, hi = before.off_duty, after.on_duty
            home = {a.icao or a.code for a in before.home_base}
            kind = (
                "home"
                if (before.end_airport.icao or before.end_airport.code) in home
                else "layover"
            )
            if hi - lo > timedelta(hours=36):
                kind += " (over 36 h)"
            rows[kind].append((_hours_in(periods, lo, hi), _hours_in(model_sleep, lo, hi)))
    out = []
    for kind in sorted(rows):
        pairs = np.array(rows[kind])
        out.append(
            SleepComparison(
                kind,
                len(pairs),
                float(pairs[:, 0].mean()),
                float(pairs[:, 1].mean()),
                float((pairs[:, 0] - pairs[:, 1]).mean()),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class _RatedRows:
    """The rows of the rated (or slept) crews' schedules only: a schedule scores from its
    own rows, and the others' rows become blank lines, so row numbers hold
    (:func:`vigil.roster.subset.only_schedules`)."""

    roster_text: str
    date_format: DateFormat
    activity_text: str

    @classmethod
    def of(
        cls, roster_text: str, date_format: DateFormat, activity_text: str, references: set[str]
    ) -> _RatedRows:
        activity = only_schedules(activity_text, references) if activity_text else ""
        return cls(only_schedules(roster_text, references), date_format, activity)

    def only(self, references: set[str]) -> _RatedRows:
        """These rows narrowed to the schedules of ``references``."""
        return _RatedRows.of(self.roster_text, self.date_format, self.activity_text, references)

    def score(self, context: ScoringContext, **options: Any) -> ScoreReport:
        """These rows scored on KSS under ``context`` with the request's ``options``."""
        request = context.request(
            self.roster_text,
            date_format=self.date_format,
            scale="KSS",
            activity_text=self.activity_text,
            **options,
        )
        return score(request)

    def with_actual_sleep(
        self, context: ScoringContext, actual_sleep: Sequence[SleepPeriod]
    ) -> ScoreReport:
        """These rows scored on KSS and SP with the crew's actual sleep where given."""
        sleep_data = [p.sleep_data() for p in actual_sleep]
        return self.score(context, extra_scales=("SP",), sleep_data=sleep_data)

    def schedules(self, context: ScoringContext) -> dict[str, Schedule]:
        """These rows' schedules by Reference, read as the scorer reads them."""
        parsed = context.parse(self.roster_text, self.date_format, activity_text=self.activity_text)
        return {s.reference: s for s in parsed.schedules}

    def predicted(self, context: ScoringContext, slept: set[str]) -> dict[str, ScheduleResult]:
        """Results with predicted sleep only (``include_sleep``) of the schedules of
        ``slept``, by Reference: predicted sleep is compared with the actual sleep given,
        so only those crews need it (none when ``slept`` is empty)."""
        if not slept:
            return {}
        report = self.only(slept).score(context, include_sleep=True)
        return {r.reference: r for r in report.schedules}


def _kss_fit(report: CalibrationReport, name: str, source: str) -> Fit | None:
    """The KSS preset fitted to the report's matched KSS ratings (:func:`fit_kss`; ``None``
    with fewer than 3)."""
    kss = report.by_instrument("KSS")
    return fit_kss(
        np.array([m.predicted for m in kss]),
        np.array([m.observation.value for m in kss]),
        np.array([hash(m.observation.reference) for m in kss]),
        name=name,
        source=source,
    )


def build_report(
    roster_text: str,
    date_format: DateFormat,
    observations: Sequence[Observation],
    actual_sleep: Sequence[SleepPeriod] = (),
    *,
    activity_text: str = "",
    context: ScoringContext = DEFAULT_CONTEXT,
    input_errors: Sequence[str] = (),
    fit_name: str = "calibrated-kss",
    fit_source: str = "",
) -> CalibrationReport:
    """Score the rated crews' schedules, match the ratings, summarise (module docstring).

    Only the schedules of References in ``observations`` or ``actual_sleep`` are read and
    scored (:func:`vigil.roster.subset.only_schedules`): each scores from its own rows, so
    as in the whole roster, and a report on a study group costs the group, not the roster.
    Roster errors reported are those of these schedules' rows.

    Parameters
    ----------
    roster_text, date_format, activity_text
        The stored roster's data.
    observations, actual_sleep
        Parsed by :mod:`vigil.calibration.observations`.
    context : ScoringContext, optional
        The scoring context of the roster's settings version, so the report uses the
        settings the roster was scored with (default: the built-in defaults).
    input_errors : sequence of str
        Bad lines of the observation files, carried into the report.
    fit_name, fit_source
        Name and provenance of the offered KSS preset (:func:`vigil.calibration.fit_kss`).
    """
    slept = {p.reference for p in actual_sleep}
    rated = {o.reference for o in observations} | slept
    rows = _RatedRows.of(roster_text, date_format, activity_text, rated)
    with_actual = rows.with_actual_sleep(context, actual_sleep)
    schedules = rows.schedules(context)
    results = {r.reference: r for r in with_actual.schedules}
    matched, unmatched = _match(observations, schedules, results)
    report = CalibrationReport(
        model_version=with_actual.model_version,
        settings_version=context.settings_version,
        matched=tuple(matched),
        unmatched=tuple(unmatched),
        input_errors=(*input_errors, *with_actual.errors),
        sleep_given_for=tuple(sorted(slept & set(results))),
        sleep=tuple(_sleep_comparison(schedules, rows.predicted(context, slept), actual_sleep)),
    )
    return replace(report, fits={"KSS": _kss_fit(report, fit_name, fit_source)})
