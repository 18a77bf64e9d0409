"""The operator scoring context: everything an operator's settings change in a score.

One :class:`ScoringContext` is resolved per request (from the operator, the settings
version, the preset, the airports table and the blank-cell defaults) and every surface
scores through it: the scoring API, the upload chunks, the console's what-if and try-it,
the rest planner, calibration and the CLI. A caller never assembles these options by hand,
so no surface can score under other settings than the ones it names (``settingsVersion``;
docs/settings.md).

The context is data (frozen, picklable: chunk tasks carry it to worker processes). It is
built from a settings version by :meth:`ScoringContext.of_settings`; :data:`DEFAULT_CONTEXT`
is the built-in defaults, settings version 0, which is what the golden baseline scores under.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from vigil import model
from vigil.domain import Airport, DateFormat
from vigil.roster import ParsedRoster, parse_request
from vigil.scoring.request import ScoreRequest, resolve_preset
from vigil.settings import OperatorSettings

__all__ = ["DEFAULT_CONTEXT", "DEFAULT_PRESET", "ScoringContext"]

#: the built-in preset (reference §2.5): what settings version 0 scores with
DEFAULT_PRESET = "ingre2014_5c"


@dataclass(frozen=True, slots=True)
class ScoringContext:
    """The model parameters, airports and blank-cell defaults of one operator's settings
    version, and that version's number (the ``settingsVersion`` every answer names)."""

    parameters: model.Parameters
    #: the operator's airports table (code → airport), consulted before the public tables
    airports: Mapping[str, Airport] | None = None
    #: value of a blank cell per optional whole-number column, where it is not the contract's
    blank_defaults: Mapping[str, int] | None = None
    #: the settings version scored under (0: the built-in defaults; ``None``: none named)
    settings_version: int | None = 0

    @classmethod
    def of_settings(cls, settings: OperatorSettings, version: int) -> ScoringContext:
        """The context of an operator's ``settings``, recorded as ``version``."""
        return cls(
            parameters=settings.parameters(),
            airports=settings.airport_table() or None,
            blank_defaults=settings.blank_defaults() or None,
            settings_version=version,
        )

    @classmethod
    def of(cls, request: ScoreRequest) -> ScoringContext:
        """The context a request scores under (its ``parameters``, else its ``preset``)."""
        return cls(
            parameters=request.parameters or resolve_preset(request.preset),
            airports=dict(request.airports) if request.airports else None,
            blank_defaults=dict(request.blank_defaults) if request.blank_defaults else None,
            settings_version=request.settings_version,
        )

    def with_preset(self, name: str) -> ScoringContext:
        """This context with a built-in preset instead of the settings' own (an explicit
        ``--preset`` or ``Preset``); airports and blank defaults stay the operator's.

        Raises :class:`~vigil.scoring.request.ScoringError` for an unknown preset.
        """
        return replace(self, parameters=resolve_preset(name))

    def request(self, roster_text: str, **options: Any) -> ScoreRequest:
        """A :class:`ScoreRequest` of ``roster_text`` scored under this context; ``options``
        are the request's own fields (scale, sleep data, risk, ...)."""
        return ScoreRequest(
            roster_text=roster_text,
            parameters=self.parameters,
            airports=self.airports,
            blank_defaults=self.blank_defaults,
            settings_version=self.settings_version,
            **options,
        )

    def parse(
        self,
        roster_text: str,
        date_format: DateFormat | str,
        *,
        sleep_data: Sequence[Mapping[str, object]] = (),
        activity_text: str = "",
    ) -> ParsedRoster:
        """The roster read as the scorer reads it under this context (the operator's
        airports and blank defaults)."""
        return parse_request(
            roster_text,
            date_format,
            sleep_data=sleep_data,
            activity_text=activity_text,
            airports=self.airports,
            blank_defaults=self.blank_defaults,
        )


#: the built-in defaults (settings version 0)
DEFAULT_CONTEXT = ScoringContext(resolve_preset(DEFAULT_PRESET))
