"""The application layer of calibration: a stored observation set's report (cached per
runtime) and the checks on uploaded observation files, shared by the calibration API
(:mod:`vigil.web.routes.observations`) and the console (:mod:`vigil.web.console.calibration`).
"""

from __future__ import annotations

from collections import OrderedDict

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
from vigil.web._runtime import Runtime
from vigil.web.problems import problem

__all__ = ["REPORT_CACHE_SIZE", "check_files", "report_for", "roster_text_of"]

#: reports kept in memory per runtime (observation sets and rosters never change)
REPORT_CACHE_SIZE = 16


def roster_text_of(session: Session, upload_id: int) -> RosterUpload:
    """The roster row with its texts (the listing queries load without them)."""
    row = session.get(RosterUpload, upload_id)
    assert row is not None
    return row


def report_for(
    runtime: Runtime, session: Session, operator: str, observations: ObservationSet
) -> CalibrationReport:
    """The calibration report of a stored observation set (cached per runtime)."""
    cache: OrderedDict[tuple[str, int], CalibrationReport] = runtime.cache.setdefault(
        "calibration_reports", OrderedDict()
    )
    # the offered preset's name depends on the operator's current settings
    current = store.current_settings(session=session, operator=operator)
    key = (observations.token, current.version)
    found = cache.get(key)
    if found is not None:
        cache.move_to_end(key)
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
    cache[key] = report
    while len(cache) > REPORT_CACHE_SIZE:
        cache.popitem(last=False)
    return report


def check_files(observations: str, sleep: str) -> tuple[int, list[str]] | JSONResponse:
    """Good-row count and line errors, or a 400 for files that cannot be read at all."""
    try:
        ratings, errors = parse_observations(observations)
    except ObservationsError as exc:
        return problem(400, str(exc), errors=[{"property": "Observations", "message": str(exc)}])
    try:
        _, sleep_errors = parse_sleep_periods(sleep)
    except ObservationsError as exc:
        return problem(400, str(exc), errors=[{"property": "SleepData", "message": str(exc)}])
    if not ratings:
        detail = "Observations has no usable rating."
        return problem(
            400,
            detail,
            errors=[{"property": "Observations", "message": detail}],
            lineErrors=(errors + sleep_errors)[:100],
        )
    return len(ratings), errors + sleep_errors
