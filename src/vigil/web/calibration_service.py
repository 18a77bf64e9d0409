"""The application layer of calibration: a stored observation set's report (cached per
runtime) and the checks on uploaded observation files, shared by the calibration API
(:mod:`vigil.web.routes.observations`) and the console (:mod:`vigil.web.console.calibration`).
"""

from __future__ import annotations

from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from vigil.calibration import (
    CalibrationReport,
    ObservationsError,
    build_report,
    parse_observations,
    parse_sleep_periods,
)
from vigil.domain import DateFormat
from vigil.scoring.service import iso
from vigil.store import operator_settings as store
from vigil.store.tables import ObservationSet, RosterUpload
from vigil.web._report_cache import ReportCache
from vigil.web._runtime import Runtime
from vigil.web.problems import problem

__all__ = [
    "check_files",
    "report_cache",
    "report_for",
    "roster_text_of",
]


def report_cache(runtime: Runtime) -> ReportCache[CalibrationReport]:
    """The runtime's calibration report cache (bounded by ratings: vigil.web.runtime_state)."""
    return runtime.state.calibration_reports


def roster_text_of(session: Session, upload_id: int) -> RosterUpload:
    """The roster row with its texts (the listing queries load without them)."""
    row = session.get(RosterUpload, upload_id)
    assert row is not None
    return row


def report_for(
    runtime: Runtime, session: Session, operator: str, observations: ObservationSet
) -> CalibrationReport:
    """The calibration report of a stored observation set (cached per runtime)."""
    cache = report_cache(runtime)
    # the offered preset's name depends on the operator's current settings
    current = store.current_settings(session=session, operator=operator)
    key = (observations.token, current.version)
    found = cache.get(operator, key)
    if found is not None:
        return found
    roster = roster_text_of(session, observations.upload_id)
    version = store.roster_settings_version(session=session, upload_id=roster.id)
    settings = store.settings_at(session=session, operator=operator, version=version)
    settings = settings or store.BUILT_IN
    ratings, errors = parse_observations(observations.observations_csv)
    sleep, sleep_errors = parse_sleep_periods(observations.sleep_csv)
    name = current.settings.next_calibrated_name(operator)
    report = build_report(
        roster.roster_text,
        DateFormat(roster.date_format),
        ratings,
        sleep,
        activity_text=roster.activity_text,
        context=settings.context(),
        input_errors=[*errors, *sleep_errors],
        fit_name=name,
        fit_source=(
            f"observations {observations.token} ({observations.name}, "
            f"{iso(observations.created_at)}) on roster {roster.roster_name}"
        ),
    )
    cache.put(operator, key, report, len(report.matched) + len(report.unmatched))
    return report


def check_files(
    observations: str, sleep: str, max_ratings: int
) -> tuple[int, list[str]] | JSONResponse:
    """Good-row count and line errors, or a 400 for files that cannot be read at all or
    that hold more than ``max_ratings`` ratings (a report's cost grows with them)."""
    try:
        ratings, errors = parse_observations(observations)
    except ObservationsError as exc:
        return problem(400, str(exc), errors=[{"property": "Observations", "message": str(exc)}])
    try:
        _, sleep_errors = parse_sleep_periods(sleep)
    except ObservationsError as exc:
        return problem(400, str(exc), errors=[{"property": "SleepData", "message": str(exc)}])
    if len(ratings) > max_ratings:
        detail = (
            f"Observations has {len(ratings):,} ratings; a set holds at most {max_ratings:,} "
            "(VIGIL_MAX_OBSERVATION_RATINGS). Split it, e.g. by month."
        )
        return problem(400, detail, errors=[{"property": "Observations", "message": detail}])
    if not ratings:
        detail = "Observations has no usable rating."
        return problem(
            400,
            detail,
            errors=[{"property": "Observations", "message": detail}],
            lineErrors=(errors + sleep_errors)[:100],
        )
    return len(ratings), errors + sleep_errors
