"""The chart and table display choices remembered per console user
(``console_user.preferences_json``): time axis and airport codes, shared by the roster
pages and the duty explorer."""

from __future__ import annotations

import json

from vigil.web.console._web import Console

__all__ = ["PREFERENCE_CHOICES", "preferences"]

#: chart display choices remembered per user (``console_user.preferences_json``)
PREFERENCE_CHOICES = {"time": ("utc", "home"), "airports": ("iata", "icao")}


def preferences(console: Console) -> dict[str, str]:
    """The user's chart options, defaults filled in (UTC, IATA)."""
    try:
        stored = json.loads(console.user.preferences_json or "{}") if console.user else {}
    except ValueError:
        stored = {}
    out = {k: v[0] for k, v in PREFERENCE_CHOICES.items()}
    for key, allowed in PREFERENCE_CHOICES.items():
        if isinstance(stored, dict) and stored.get(key) in allowed:
            out[key] = stored[key]
    return out
