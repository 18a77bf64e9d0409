"""What a caller asks the scoring service for, and the checks on it (seed §2.1, contract §3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from vigil import model
from vigil.contract import DECIMALS, EXTRA_SCALE_CODES, SCALE_CODES
from vigil.domain import Airport, DateFormat

__all__ = [
    "DECIMALS",
    "EXTRA_SCALE_CODES",
    "SCALE_CODES",
    "ScoreRequest",
    "ScoringError",
    "resolve_preset",
    "resolve_scale",
]


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
    #: operator settings: parameters replacing ``preset``, the operator's
    #: airports table, blank-cell defaults, and the settings version the response names
    #: (0: the built-in defaults, which is what a request without the others uses)
    parameters: model.Parameters | None = None
    airports: Mapping[str, Airport] | None = None
    blank_defaults: Mapping[str, int] | None = None
    settings_version: int | None = 0
    #: held times in bed, reference -> (start, end) instants: laboratory protocols of the
    #: validation report only (not in the contract; :func:`vigil.scoring.plan.with_held_beds`)
    held_beds: Mapping[str, Sequence[tuple[datetime, datetime]]] | None = None


def resolve_preset(name: str) -> model.Parameters:
    """The named parameter preset (reference §2.5), or :class:`ScoringError`."""
    try:
        return model.PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(model.PRESETS))
        raise ScoringError(f"unknown preset {name!r}; known presets: {known}") from None


def resolve_scale(code: str, *, extra: bool = False) -> str:
    """Canonical scale code (case-insensitive, seed §2.4), or :class:`ScoringError`.

    ``extra``: also accept :data:`EXTRA_SCALE_CODES` (the command line; the API's
    PreferredScale is the contract's list only).
    """
    known = SCALE_CODES + EXTRA_SCALE_CODES if extra else SCALE_CODES
    upper = code.strip().upper()
    if upper not in known:
        raise ScoringError(f"unknown scale {code!r}; one of {', '.join(known)}")
    return upper
