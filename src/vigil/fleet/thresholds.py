"""The warning levels and risk bands a roster is shown with.

An operator may set its own warning level per scale and its own risk band bounds
(:class:`vigil.settings.OperatorSettings`, docs/settings.md). A roster is shown with the
settings version it was scored with (``store.operator_settings.roster_settings_version``),
recorded in its stored summary, so the chart, dashboard and exports of one roster agree
and do not change when the settings change later. Version 0 (the built-in defaults) is
today's behaviour exactly: the warning level is KSS 7 mapped to the scale
(:func:`vigil.model.warning_level`, unrounded) and the bands are 1.72^k
(:data:`vigil.settings.bands.RISK_BANDS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vigil.model import SCALE_INFO, warning_level
from vigil.settings.bands import DEFAULT_BOUNDS, RISK_BANDS, RiskBand, bands_from

__all__ = ["DEFAULT_THRESHOLDS", "Thresholds"]


def _default_levels() -> dict[str, tuple[float, ...]]:
    return {code: info.warnings for code, info in SCALE_INFO.items()}


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Warning levels per scale and risk band bounds, from one settings version."""

    version: int = 0  #: the operator settings version they come from (0: built in)
    levels: Mapping[str, tuple[float, ...]] = field(default_factory=_default_levels)
    bounds: tuple[float, float, float] = DEFAULT_BOUNDS

    @classmethod
    def from_settings(cls, settings: Any, version: int) -> Thresholds:
        """From a :class:`vigil.settings.OperatorSettings` (duck-typed: no import cycle)."""
        levels = {**_default_levels(), **dict(settings.warning_levels)}
        return cls(version, levels, tuple(settings.risk_bands))

    @property
    def bands(self) -> tuple[RiskBand, ...]:
        """The four risk bands."""
        return RISK_BANDS if self.bounds == DEFAULT_BOUNDS else bands_from(self.bounds)

    def warnings(self, scale: str) -> tuple[float, ...]:
        """The scale's warning levels as shown (ascending)."""
        return tuple(self.levels.get(scale, SCALE_INFO[scale].warnings))

    def level(self, scale: str) -> float:
        """The level "time at or above warning" counts from: the lowest of the scale's
        levels; the exact KSS 7 mapping when they are the built-in ones."""
        shown = self.warnings(scale)
        if not shown or shown == SCALE_INFO[scale].warnings:
            return warning_level(scale)
        return shown[0]

    @property
    def is_default(self) -> bool:
        return self.bounds == DEFAULT_BOUNDS and all(
            self.warnings(code) == info.warnings for code, info in SCALE_INFO.items()
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "levels": {k: list(v) for k, v in sorted(self.levels.items())},
            "bounds": list(self.bounds),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Thresholds:
        if not data:
            return DEFAULT_THRESHOLDS
        levels = {str(k): tuple(float(x) for x in v) for k, v in data["levels"].items()}
        a, b, c = (float(x) for x in data["bounds"])
        return cls(int(data["version"]), levels, (a, b, c))


DEFAULT_THRESHOLDS = Thresholds()
