"""Settings page (docs/settings.md): everyone sees the operator's settings and
their history; settings admins (``vigil settings admin USER``) change them.

A change is validated as a whole (:func:`vigil.settings.parse_settings`); a bad value,
such as an airport time zone that is not an IANA name, answers 400 with the page and
each offending field named, and records nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException
from fastapi.responses import RedirectResponse, Response

from vigil import model
from vigil.scoring.request import SCALE_CODES
from vigil.settings import OperatorSettings, SettingsError, merge_settings
from vigil.store import operator_settings as store
from vigil.web.console._web import PREFIX, Console, PostConsole, UserConsole, is_admin

router = APIRouter(prefix="/settings")


def airports_text(rows: list[dict[str, Any]]) -> str:
    """The airports table as the form's lines ``CODE,NAME,TZ[,LAT,LON]``."""
    lines = []
    for r in rows:
        line = f"{r['code']},{r['name']},{r['tz']}"
        if r.get("lat") is not None and r.get("lon") is not None:
            line += f",{r['lat']:g},{r['lon']:g}"
        lines.append(line)
    return "\n".join(lines)


def parse_airports(text: str) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Form lines → airport rows, and errors for lines of the wrong shape."""
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(",")]
        if len(parts) not in (3, 5):
            errors.append(
                {"property": f"airports line {number}", "message": "use CODE,NAME,TZ[,LAT,LON]"}
            )
            continue
        row: dict[str, Any] = {"code": parts[0], "name": parts[1], "tz": parts[2]}
        if len(parts) == 5:
            row["lat"], row["lon"] = parts[3], parts[4]
        rows.append(row)
    return rows, errors


def _page(
    console: Console,
    *,
    errors: list[dict[str, str]] | None = None,
    form: dict[str, Any] | None = None,
    notice: str | None = None,
    status_code: int = 200,
) -> Response:
    current = store.current_settings(session=console.db, operator=console.operator)
    data = current.settings.to_dict()
    values = form or {
        **data,
        "airportsText": airports_text(data["airports"]),
        "warnings": {k: ", ".join(f"{v:g}" for v in vs) for k, vs in data["warningLevels"].items()},
        "riskBandsText": ", ".join(f"{v:g}" for v in data["riskBands"]),
        "note": "",
    }
    presets = [*sorted(model.PRESETS), *(c.name for c in current.settings.calibrated)]
    return console.render(
        "settings.html",
        status_code=status_code,
        current=current,
        data=data,
        values=values,
        presets=presets,
        scales=SCALE_CODES,
        admin=is_admin(console),
        model_version=current.settings.parameters().model_version,
        history=store.settings_history(session=console.db, operator=console.operator),
        errors=errors or [],
        notice=notice,
    )


@router.get("")
def show_settings(console: UserConsole, saved: int | None = None) -> Response:
    notice = f"Saved as settings version {saved}." if saved is not None else None
    return _page(console, notice=notice)


def _level_changes(
    current: OperatorSettings, warnings: dict[str, str], risk_bands: str
) -> dict[str, Any]:
    """The warning levels (a blank field keeps that scale's current levels) and the risk
    bands (blank keeps the current bounds) of the form, as changes to ``current``."""
    levels: dict[str, Any] = {k: list(v) for k, v in current.warning_levels.items()}
    for code, text in warnings.items():
        if text.strip():
            levels[code] = [v for v in text.split(",") if v.strip()]
    changes: dict[str, Any] = {"warningLevels": levels}
    if risk_bands.strip():
        changes["riskBands"] = risk_bands.replace(",", " ").split()
    return changes


@router.post("")
def save_settings(
    console: PostConsole,
    crewPrepMinutes: Annotated[str, Form(max_length=10)] = "",  # noqa: N803
    commuteMinutes: Annotated[str, Form(max_length=10)] = "",  # noqa: N803
    preset: Annotated[str, Form(max_length=100)] = "",
    scale: Annotated[str, Form(max_length=10)] = "",
    kpThreshold: Annotated[str, Form(max_length=10)] = "",  # noqa: N803
    airports: Annotated[str, Form(max_length=200_000)] = "",
    note: Annotated[str, Form(max_length=2000)] = "",
    riskBands: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
    warn_SP: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
    warn_KSS: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
    warn_KP: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
    warn_VD: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
    warn_CRD: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
    warn_PMR: Annotated[str, Form(max_length=200)] = "",  # noqa: N803
) -> Response:
    """Validate and record a new settings version (admins only)."""
    if not is_admin(console):
        raise HTTPException(403, "Only settings admins may change settings.")
    warnings = {
        "SP": warn_SP,
        "KSS": warn_KSS,
        "KP": warn_KP,
        "VD": warn_VD,
        "CRD": warn_CRD,
        "PMR": warn_PMR,
    }
    rows, errors = parse_airports(airports)
    changes: dict[str, Any] = {
        "crewPrepMinutes": crewPrepMinutes,
        "commuteMinutes": commuteMinutes,
        "preset": preset,
        "scale": scale,
        "kpThreshold": kpThreshold,
        "airports": rows,
    }
    current = store.current_settings(session=console.db, operator=console.operator)
    changes.update(_level_changes(current.settings, warnings, riskBands))
    new, errors = _merged(current.settings, changes, errors)
    if new is None:
        texts = {"airportsText": airports, "riskBandsText": riskBands, "note": note}
        form = {**changes, **texts, "warnings": warnings}
        return _page(console, errors=errors, form=form, status_code=400)
    return _record(console, new, note)


def _merged(
    current: OperatorSettings, changes: dict[str, Any], errors: list[dict[str, str]]
) -> tuple[OperatorSettings | None, list[dict[str, str]]]:
    """``current`` with ``changes``, or ``None`` and every error (``errors`` found while
    reading the form, then the settings' own)."""
    try:
        new = merge_settings(current, changes)
    except SettingsError as exc:
        return None, [*errors, *exc.errors]
    return (None, errors) if errors else (new, errors)


def _record(console: Console, new: OperatorSettings, note: str) -> Response:
    """Save ``new`` as the operator's next settings version, then back to the page."""
    assert console.user is not None
    saved = store.save_settings(
        session=console.db,
        operator=console.operator,
        settings=new,
        changed_by=console.user.username,
        note=note.strip(),
    )
    return console.finish(RedirectResponse(f"{PREFIX}/settings?saved={saved.version}", 303))
