"""An operator's settings as one immutable, validated record.

SAFE-style per-operator settings: the defaults a blank CrewPrepTime or DutyCommuteTime
takes, the default preset and scale, warning levels per scale and the KP threshold, an
airports table that overrides or extends ``airportsdata`` for this operator only, and
the calibrated presets the operator has adopted (:mod:`vigil.calibration`).

The record is data: :meth:`OperatorSettings.to_json` gives canonical bytes (sorted keys),
:func:`parse_settings` reads them back, validating every field and naming each offending
property. Version 0 is :data:`DEFAULT_SETTINGS`, today's behaviour exactly: scores under
it are the golden baseline's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from vigil import model, tz
from vigil.domain import Airport
from vigil.model.parameters import replace_kp_threshold
from vigil.roster.columns import BY_LOWER_NAME
from vigil.settings.bands import DEFAULT_BOUNDS

__all__ = [
    "DEFAULT_SETTINGS",
    "AirportEntry",
    "CalibratedPreset",
    "OperatorSettings",
    "SettingsError",
    "load_settings",
    "merge_settings",
    "parse_settings",
]

#: the scales, in the contract's order (the model's own table)
_SCALES = tuple(model.SCALE_INFO)

#: longest preparation or commute time accepted as a default [min] (a day)
MAX_DEFAULT_MINUTES = 1440


class SettingsError(ValueError):
    """Settings that do not validate; ``errors`` names each property (problem+json style)."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e['property']}: {e['message']}" for e in errors))


@dataclass(frozen=True, slots=True)
class AirportEntry:
    """One row of the operator's airports table: a code the public lists lack or get wrong."""

    code: str  #: 3 or 4 characters, ASCII letters and digits, upper case
    name: str
    tz: str  #: IANA time zone name, validated against the installed database
    lat: float | None = None  #: [deg] north positive
    lon: float | None = None  #: [deg] east positive

    def airport(self) -> Airport:
        """The :class:`vigil.domain.Airport` a roster code resolves to."""
        icao = self.code if len(self.code) == 4 else ""
        iata = self.code if len(self.code) == 3 else ""
        return Airport(code=self.code, tz=self.tz, icao=icao, iata=iata, name=self.name)


@dataclass(frozen=True, slots=True)
class CalibratedPreset:
    """A named, versioned preset fitted to the operator's own crews (docs/calibration.md).

    Observed KSS ≈ ``intercept + slope · predicted KSS`` on ``base``; folded into the KSS
    transform of the model (``kss_intercept``/``kss_slope``, reference §2.5), so every
    scale derived from KSS follows.
    """

    name: str
    base: str
    intercept: float
    slope: float
    n: int  #: observations the fit used
    source: str  #: where it came from (observation set token and date)

    def parameters(self) -> model.Parameters:
        """The base preset with the fitted KSS transform."""
        p = model.PRESETS[self.base]
        return replace(
            p,
            name=self.name,
            kss_intercept=self.intercept + self.slope * p.kss_intercept,
            kss_slope=self.slope * p.kss_slope,
        )


def _default_warnings() -> dict[str, tuple[float, ...]]:
    return {code: model.SCALE_INFO[code].warnings for code in _SCALES}


@dataclass(frozen=True, slots=True)
class OperatorSettings:
    """Every operator setting (docs/settings.md); the defaults are today's behaviour."""

    crew_prep_minutes: int = 60  #: blank CrewPrepTime (contract §3.1)
    commute_minutes: int = 60  #: blank DutyCommuteTime (contract §3.1)
    preset: str = "ingre2014_5c"
    scale: str = "KSS"  #: used when a request names no PreferredScale
    kp_threshold: int = 8  #: KP = P(KSS >= threshold), 7 or 8 (reference §2.6)
    warning_levels: Mapping[str, tuple[float, ...]] = field(default_factory=_default_warnings)
    #: upper relative-risk bounds of the standard, elevated and high bands (ascending);
    #: the defaults are 1, 2 and 3 KSS units of the crash hazard (:mod:`vigil.settings.bands`)
    risk_bands: tuple[float, float, float] = DEFAULT_BOUNDS
    airports: tuple[AirportEntry, ...] = ()
    calibrated: tuple[CalibratedPreset, ...] = ()

    # -------------------------------------------------------------- what scoring needs

    def parameters(self) -> model.Parameters:
        """The model parameters these settings score with.

        The chosen preset (built in or calibrated), with the KP threshold applied; a
        non-default threshold is named in the preset (``…+kp7``), so ``modelVersion``
        says so. Default settings give ``model.PRESETS["ingre2014_5c"]`` itself.
        """
        own = {c.name: c for c in self.calibrated}
        params = own[self.preset].parameters() if self.preset in own else model.PRESETS[self.preset]
        if self.kp_threshold != 8:
            params = replace_kp_threshold(params, self.kp_threshold)
            params = replace(params, name=f"{params.name}+kp{self.kp_threshold}")
        return params

    def airport_table(self) -> dict[str, Airport]:
        """Code → airport, for :func:`vigil.roster.parse_request`'s ``airports``."""
        return {a.code: a.airport() for a in self.airports}

    def blank_defaults(self) -> dict[str, int]:
        """Column → value of a blank cell, only where it differs from the contract's."""
        out: dict[str, int] = {}
        for column, value in (
            ("CrewPrepTime", self.crew_prep_minutes),
            ("DutyCommuteTime", self.commute_minutes),
        ):
            if value != BY_LOWER_NAME[column.lower()].default:
                out[column] = value
        return out

    def calibrated_from(
        self, intercept: float, slope: float, *, name: str, n: int, source: str
    ) -> CalibratedPreset:
        """A preset from a fit made on scores computed under these settings.

        When these settings already use a calibrated preset, the new fit is composed with
        it (``a₂ + b₂·(a₁ + b₁·K) ``), so the new preset is again relative to a built-in one.
        """
        own = {c.name: c for c in self.calibrated}
        if self.preset in own:
            first = own[self.preset]
            return CalibratedPreset(
                name,
                first.base,
                intercept + slope * first.intercept,
                slope * first.slope,
                n,
                source,
            )
        return CalibratedPreset(name, self.preset, intercept, slope, n, source)

    def next_calibrated_name(self, operator: str) -> str:
        """``<operator>-kss-v<k>``: names are never reused, so a name is a version."""
        slug = "".join(ch if ch.isalnum() else "-" for ch in operator.lower()).strip("-")
        return f"{slug or 'operator'}-kss-v{len(self.calibrated) + 1}"

    # ------------------------------------------------------------------- serialising

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the API's ``settings`` and the stored form)."""
        return {
            "crewPrepMinutes": self.crew_prep_minutes,
            "commuteMinutes": self.commute_minutes,
            "preset": self.preset,
            "scale": self.scale,
            "kpThreshold": self.kp_threshold,
            "warningLevels": {k: list(v) for k, v in sorted(self.warning_levels.items())},
            "riskBands": list(self.risk_bands),
            "airports": [
                {"code": a.code, "name": a.name, "tz": a.tz, "lat": a.lat, "lon": a.lon}
                for a in self.airports
            ],
            "calibratedPresets": [
                {
                    "name": c.name,
                    "base": c.base,
                    "intercept": c.intercept,
                    "slope": c.slope,
                    "n": c.n,
                    "source": c.source,
                }
                for c in self.calibrated
            ],
        }

    def to_json(self) -> bytes:
        """Canonical UTF-8 JSON (sorted keys): equal settings give equal bytes."""
        return orjson.dumps(self.to_dict(), option=orjson.OPT_SORT_KEYS)


DEFAULT_SETTINGS = OperatorSettings()


# ----------------------------------------------------------------------- validation


class _Collector:
    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []

    def add(self, prop: str, message: str) -> None:
        self.errors.append({"property": prop, "message": message})


def _int(c: _Collector, data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = data.get(key, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        c.add(key, f"must be a whole number from {lo} to {hi}, got {value!r}")
        return default
    return value


def _float(c: _Collector, prop: str, value: Any, lo: float, hi: float) -> float | None:
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        c.add(prop, f"must be a number, got {value!r}")
        return None
    if not math.isfinite(number) or not lo <= number <= hi:
        c.add(prop, f"must be from {lo:g} to {hi:g}, got {value!r}")
        return None
    return number


def _airports(c: _Collector, rows: Any) -> tuple[AirportEntry, ...]:
    if not isinstance(rows, list):
        c.add("airports", "must be a list of {code, name, tz, lat, lon}")
        return ()
    out: list[AirportEntry] = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        where = f"airports[{i}]"
        if not isinstance(row, Mapping):
            c.add(where, "must be an object {code, name, tz, lat, lon}")
            continue
        code = str(row.get("code") or "").strip().upper()
        if not (code.isascii() and code.isalnum() and len(code) in (3, 4)):
            c.add(f"{where}.code", f"must be 3 or 4 ASCII letters or digits, got {code!r}")
            continue
        if code in seen:
            c.add(f"{where}.code", f"{code} is listed twice")
            continue
        seen.add(code)
        zone = str(row.get("tz") or "").strip()
        if not tz.is_valid_zone(zone):
            c.add(
                f"{where}.tz",
                f"{zone!r} is not an IANA time zone name (e.g. Europe/London, America/New_York)",
            )
            continue
        name = str(row.get("name") or "").strip()[:200]
        lat = _float(c, f"{where}.lat", row.get("lat"), -90.0, 90.0)
        lon = _float(c, f"{where}.lon", row.get("lon"), -180.0, 180.0)
        out.append(AirportEntry(code, name or code, zone, lat, lon))
    return tuple(out)


def _warnings(c: _Collector, data: Any) -> dict[str, tuple[float, ...]]:
    levels = _default_warnings()
    if data is None:
        return levels
    if not isinstance(data, Mapping):
        c.add("warningLevels", "must map a scale code to a list of levels")
        return levels
    for key, values in data.items():
        code = str(key).upper()
        if code not in _SCALES:
            c.add(f"warningLevels.{key}", f"unknown scale; one of {', '.join(_SCALES)}")
            continue
        info = model.SCALE_INFO[code]
        raw = values if isinstance(values, list) else [values]
        parsed = [_float(c, f"warningLevels.{code}", v, info.low, info.high) for v in raw]
        numbers = sorted(v for v in parsed if v is not None)
        if len(numbers) == len(raw) and numbers:
            levels[code] = tuple(numbers)
        elif not raw:
            c.add(f"warningLevels.{code}", "give at least one level")
    return levels


#: highest risk bound accepted (R = 1.72^k: 100 is ~8.5 KSS units, beyond the scale)
MAX_RISK_BOUND = 100.0


def _risk_bands(c: _Collector, data: Any) -> tuple[float, float, float]:
    if data is None:
        return DEFAULT_BOUNDS
    raw = data if isinstance(data, list) else str(data).replace(",", " ").split()
    if len(raw) != 3:
        c.add("riskBands", f"give 3 bounds (standard/elevated/high upper R), got {len(raw)}")
        return DEFAULT_BOUNDS
    parsed = [_float(c, f"riskBands[{i}]", v, 0.0, MAX_RISK_BOUND) for i, v in enumerate(raw)]
    if any(v is None for v in parsed):
        if not any(e["property"].startswith("riskBands[") for e in c.errors):
            c.add("riskBands", "each bound must be a number")
        return DEFAULT_BOUNDS
    a, b, d = (float(v) for v in parsed if v is not None)
    if not 0 < a < b < d:
        c.add(
            "riskBands", f"bounds must be positive and strictly ascending, got {a:g}, {b:g}, {d:g}"
        )
        return DEFAULT_BOUNDS
    return (a, b, d)


def _calibrated(c: _Collector, rows: Any) -> tuple[CalibratedPreset, ...]:
    if rows is None:
        return ()
    if not isinstance(rows, list):
        c.add("calibratedPresets", "must be a list")
        return ()
    out: list[CalibratedPreset] = []
    for i, row in enumerate(rows):
        where = f"calibratedPresets[{i}]"
        try:
            preset = CalibratedPreset(
                name=str(row["name"]),
                base=str(row["base"]),
                intercept=float(row["intercept"]),
                slope=float(row["slope"]),
                n=int(row["n"]),
                source=str(row.get("source", "")),
            )
        except (KeyError, TypeError, ValueError):
            c.add(where, "needs name, base, intercept, slope and n")
            continue
        if preset.base not in model.PRESETS:
            c.add(f"{where}.base", f"unknown preset {preset.base!r}")
        elif preset.name in model.PRESETS or not preset.name:
            c.add(f"{where}.name", "must be new, not a built-in preset name")
        elif not (math.isfinite(preset.slope) and preset.slope > 0):
            c.add(f"{where}.slope", "must be positive")
        else:
            out.append(preset)
    return tuple(out)


def parse_settings(data: Mapping[str, Any]) -> OperatorSettings:
    """Validate settings data (the form of :meth:`OperatorSettings.to_dict`).

    Missing keys take the defaults. Raises :class:`SettingsError` naming every bad
    property, e.g. ``airports[0].tz``.
    """
    c = _Collector()
    unknown = sorted(set(data) - set(DEFAULT_SETTINGS.to_dict()))
    for key in unknown:
        c.add(key, "unknown setting")
    d = DEFAULT_SETTINGS
    prep = _int(c, data, "crewPrepMinutes", d.crew_prep_minutes, 0, MAX_DEFAULT_MINUTES)
    commute = _int(c, data, "commuteMinutes", d.commute_minutes, 0, MAX_DEFAULT_MINUTES)
    kp = _int(c, data, "kpThreshold", d.kp_threshold, 7, 8)
    scale = str(data.get("scale", d.scale)).strip().upper()
    if scale not in _SCALES:
        c.add("scale", f"must be one of {', '.join(_SCALES)}")
        scale = d.scale
    calibrated = _calibrated(c, data.get("calibratedPresets"))
    preset = str(data.get("preset", d.preset)).strip()
    if preset not in model.PRESETS and preset not in {p.name for p in calibrated}:
        known = ", ".join([*sorted(model.PRESETS), *(p.name for p in calibrated)])
        c.add("preset", f"unknown preset {preset!r}; one of {known}")
        preset = d.preset
    settings = OperatorSettings(
        crew_prep_minutes=prep,
        commute_minutes=commute,
        preset=preset,
        scale=scale,
        kp_threshold=kp,
        warning_levels=_warnings(c, data.get("warningLevels")),
        risk_bands=_risk_bands(c, data.get("riskBands")),
        airports=_airports(c, data.get("airports", [])),
        calibrated=calibrated,
    )
    if c.errors:
        raise SettingsError(c.errors)
    return settings


def merge_settings(current: OperatorSettings, changes: Mapping[str, Any]) -> OperatorSettings:
    """``current`` with the given keys replaced, validated as a whole."""
    data = current.to_dict()
    data.update(changes)
    return parse_settings(data)


def load_settings(raw: str | bytes) -> OperatorSettings:
    """Stored JSON back to a record (:meth:`OperatorSettings.to_json`'s inverse)."""
    return parse_settings(orjson.loads(raw))
