"""Helpers shared by the model tests."""

from __future__ import annotations

import numpy as np

from vigil.model import CrewTimeline

DAY0 = 20_000 * 24.0  #: a UTC midnight in epoch hours (2024-10-04T00:00Z)


def one_person(
    sleeps: list[tuple[float, float]],
    *,
    start: float = DAY0 + 7.0,
    s_start: float = 13.82,
    phase: float = 0.0,
    quality: list[float] | None = None,
    zones: list[tuple[float, float]] | None = None,
) -> CrewTimeline:
    """A one-row timeline; sleeps as (start, end) epoch hours."""
    ss = np.array([[a for a, _ in sleeps]]) if sleeps else np.full((1, 1), np.nan)
    se = np.array([[b for _, b in sleeps]]) if sleeps else np.full((1, 1), np.nan)
    q = np.array([quality]) if quality is not None else np.where(np.isnan(ss), np.nan, 1.0)
    zones = zones or [(start - 1.0, phase)]
    return CrewTimeline(
        start=[start],
        s_start=[s_start],
        phase_start=[phase],
        sleep_start=ss,
        sleep_end=se,
        sleep_quality=q,
        zone_time=[[z for z, _ in zones]],
        zone_offset=[[o for _, o in zones]],
    )


def habitual(days: int, *, onset: float = 23.0, length: float = 8.0) -> list[tuple[float, float]]:
    """Nightly sleeps from DAY0 + onset, ``days`` of them."""
    return [(DAY0 + onset + 24.0 * k, DAY0 + onset + 24.0 * k + length) for k in range(days)]
