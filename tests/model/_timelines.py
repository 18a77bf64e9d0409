"""A two-crew :class:`~vigil.model.CrewTimeline` shared by the kernel-variant tests: sleeps
of different quality, NaN padding, and zone changes inside and outside each sleep."""

from __future__ import annotations

import numpy as np

from vigil.model import CrewTimeline


def two_crew() -> CrewTimeline:
    """Two crew members, warm-up starts 100 h and 130 h (epoch hours)."""
    return CrewTimeline(
        start=np.array([100.0, 130.0]),
        s_start=[13.82, 13.82],
        phase_start=[1.0, -5.0],
        sleep_start=[[110.0, 140.0, np.nan], [135.0, 160.0, 190.0]],
        sleep_end=[[118.0, 147.0, np.nan], [142.0, 166.0, 197.0]],
        sleep_quality=[[1.0, 0.8, np.nan], [1.0, 1.0, 0.6]],
        zone_time=[[90.0, 125.0, 170.0], [0.0, 150.0, np.nan]],
        zone_offset=[[1.0, -5.0, 8.0], [-5.0, 9.5, np.nan]],
    )
