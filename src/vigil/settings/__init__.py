"""vigil.settings: per-operator settings as a pure, validated, versioned record.

Persistence and history live in :mod:`vigil.store.operator_settings`; this package only
knows what a setting is, how it is checked and what scoring takes from it
(docs/settings.md).

Layer 4 of docs/architecture.md. May import: ``domain``, ``model``, ``roster``, ``tz``;
never a package of its own layer or above.
"""

from vigil.settings.record import (
    DEFAULT_SETTINGS,
    AirportEntry,
    CalibratedPreset,
    OperatorSettings,
    SettingsError,
    load_settings,
    merge_settings,
    parse_settings,
)

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
