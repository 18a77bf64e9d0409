"""Calibration pages (docs/calibration.md): upload crew observations for a
stored roster, read the report (tables, calibration plot, PDF), and, for settings
admins, adopt the fitted KSS coefficients as a new preset, recorded in the settings
history. Another operator's observations answer the console's 404.
"""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, UploadFile
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from vigil.settings import CalibratedPreset, OperatorSettings, SettingsError
from vigil.store import operator_settings as store
from vigil.store import uploads
from vigil.store.tables import ObservationSet
from vigil.web.calibration_service import check_files, report_for
from vigil.web.console._web import (
    PREFIX,
    SECURITY_HEADERS,
    Console,
    PostConsole,
    UserConsole,
    is_admin,
)

router = APIRouter(prefix="/calibration")

#: largest observations or sleep file accepted from the form [bytes]
MAX_FILE_BYTES = 10 * 1024 * 1024


def _own(console: Console, token: str) -> ObservationSet | None:
    return store.get_observation_set(session=console.db, operator=console.operator, token=token)


def _list(console: Console, *, error: str | None = None, status_code: int = 200) -> Response:
    rosters = [
        u
        for u in uploads.list_uploads(session=console.db, operator=console.operator)
        if u.status in uploads.FINISHED
    ]
    return console.render(
        "calibration.html",
        status_code=status_code,
        sets=store.list_observation_sets(session=console.db, operator=console.operator),
        rosters=rosters,
        error=error,
    )


@router.get("")
def list_sets(console: UserConsole) -> Response:
    return _list(console)


async def _text(file: UploadFile | None, pasted: str) -> str:
    if file is not None and file.filename:
        raw = await file.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise ValueError("the file is larger than 10 MiB")
        return raw.decode("utf-8-sig")
    return pasted


@router.post("")
async def upload(
    console: PostConsole,
    roster: Annotated[str, Form(max_length=64)] = "",
    name: Annotated[str, Form(max_length=200)] = "",
    observations: UploadFile | None = None,
    observations_text: Annotated[str, Form(max_length=MAX_FILE_BYTES)] = "",
    sleep: UploadFile | None = None,
) -> Response:
    """Store an observation set for one of the operator's finished rosters.

    The files are read here; parsing and storing run in the thread pool, never on the
    event loop (a 10 MiB file takes seconds to parse).
    """
    try:
        obs_text = await _text(observations, observations_text)
        sleep_text = await _text(sleep, "")
    except (ValueError, UnicodeDecodeError) as exc:
        return _list(console, error=f"Could not read the file: {exc}.", status_code=400)
    return await run_in_threadpool(_store_set, console, roster, name, obs_text, sleep_text)


def _store_set(
    console: Console, roster: str, name: str, obs_text: str, sleep_text: str
) -> Response:
    """Check the files and store the set (the API's rules and limits)."""
    limits = console.runtime.settings
    upload_row = uploads.get_upload(session=console.db, operator=console.operator, token=roster)
    if upload_row is None:
        return _list(console, error="Choose one of your rosters.", status_code=400)
    checked = check_files(obs_text, sleep_text, limits.max_observation_ratings)
    if not isinstance(checked, tuple):
        message = str(json.loads(bytes(checked.body))["detail"])
        return _list(console, error=message, status_code=400)
    assert console.user is not None
    try:
        row = store.create_observation_set(
            session=console.db,
            operator=console.operator,
            upload_id=upload_row.id,
            name=name.strip() or f"observations for {upload_row.roster_name}",
            observations_csv=obs_text,
            sleep_csv=sleep_text,
            created_by=console.user.username,
            max_sets=limits.max_observation_sets_per_operator,
        )
    except store.ObservationSetLimitError as exc:
        return _list(console, error=str(exc), status_code=409)
    return console.finish(RedirectResponse(f"{PREFIX}/calibration/{row.token}", status_code=303))


@router.get("/{token}")
def report_page(console: UserConsole, token: str, adopted: str | None = None) -> Response:
    found = _own(console, token)
    if found is None:
        return console.not_found("observations")
    report = report_for(console.runtime, console.db, console.operator, found)
    data = report.to_dict()
    current = store.current_settings(session=console.db, operator=console.operator)
    fit = report.fits.get("KSS")
    offered_name = current.settings.next_calibrated_name(console.operator)
    return console.render(
        "calibration_report.html",
        obs=found,
        data=data,
        fit=fit.to_dict() if fit is not None else None,
        offered_name=offered_name,
        adoption=report.adoption(current=current.settings.preset, offered=offered_name),
        admin=is_admin(console),
        adopted=adopted,
        instruments=report.instruments(),
    )


@router.get("/{token}/plot-{instrument}.svg")
def plot(console: UserConsole, token: str, instrument: str) -> Response:
    found = _own(console, token)
    if found is None or instrument not in ("KSS", "SP"):
        raise HTTPException(404, "no such plot")
    from vigil.calibration.plots import plot_svg

    report = report_for(console.runtime, console.db, console.operator, found)
    if not report.by_instrument(instrument):
        raise HTTPException(404, "no ratings on this scale")
    headers = {"Cache-Control": "private, no-store", **SECURITY_HEADERS}
    return Response(plot_svg(report, instrument), media_type="image/svg+xml", headers=headers)


@router.get("/{token}/report.pdf")
def pdf(console: UserConsole, token: str) -> Response:
    found = _own(console, token)
    if found is None:
        return console.not_found("observations")
    from vigil.calibration.plots import report_pdf

    report = report_for(console.runtime, console.db, console.operator, found)
    headers = {
        "Content-Disposition": f'attachment; filename="calibration-{token[:8]}.pdf"',
        "Cache-Control": "private, no-store",
        **SECURITY_HEADERS,
    }
    body = report_pdf(report, f"Vigil calibration report: {found.name}")
    return Response(body, media_type="application/pdf", headers=headers)


def _adopting(current: OperatorSettings, preset: CalibratedPreset) -> OperatorSettings:
    """``current`` with ``preset`` added to its calibrated presets and made the preset."""
    from vigil.settings import parse_settings

    data = current.to_dict()
    data["calibratedPresets"] = [
        *data["calibratedPresets"],
        {
            "name": preset.name,
            "base": preset.base,
            "intercept": preset.intercept,
            "slope": preset.slope,
            "n": preset.n,
            "source": preset.source,
        },
    ]
    data["preset"] = preset.name
    try:
        return parse_settings(data)
    except SettingsError as exc:  # pragma: no cover - built from validated parts
        raise HTTPException(409, str(exc)) from None


@router.post("/{token}/adopt")
def adopt(console: PostConsole, token: str) -> Response:
    """Add the fitted coefficients as a new preset and make it the operator's preset.

    Explicit and recorded: a new settings version, noted with the observation set.
    """
    if not is_admin(console):
        raise HTTPException(403, "Only settings admins may change settings.")
    found = _own(console, token)
    if found is None:
        return console.not_found("observations")
    report = report_for(console.runtime, console.db, console.operator, found)
    fit = report.fits.get("KSS")
    if fit is None or not fit.enough:
        raise HTTPException(409, "These observations are not enough for a fit.")
    roster_version = store.roster_settings_version(session=console.db, upload_id=found.upload_id)
    scored_under = store.settings_at(
        session=console.db, operator=console.operator, version=roster_version
    )
    current = store.current_settings(session=console.db, operator=console.operator)
    name = current.settings.next_calibrated_name(console.operator)
    preset = (scored_under or store.BUILT_IN).settings.calibrated_from(
        fit.intercept, fit.slope, name=name, n=fit.n, source=fit.source
    )
    assert console.user is not None
    store.save_settings(
        session=console.db,
        operator=console.operator,
        settings=_adopting(current.settings, preset),
        changed_by=console.user.username,
        note=f"adopted calibrated preset {preset.name} from observations {found.token}",
    )
    return console.finish(
        RedirectResponse(f"{PREFIX}/calibration/{token}?adopted={preset.name}", status_code=303)
    )
