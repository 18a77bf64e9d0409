"""Simulated crew ratings with known truth, for tests and the demo (docs/calibration.md).

A rating is drawn as ``clip(round(m + bias + ε), low, high)`` where ``m`` is a model's
prediction for a random 15-minute interval of a duty (contract §4), ``ε ~ N(0, noise_sd²)``
independent, ``round`` to the nearest whole point (ratings are integers) and the clip to
the scale (KSS 1–9, SP 1–7). The model may be the service's own (then the fit must find
``bias``) or another preset (then the report must find the model miscalibrated).
"""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import numpy as np

from vigil.calibration.observations import INSTRUMENTS
from vigil.domain import INTERVAL, DateFormat
from vigil.scoring.context import DEFAULT_CONTEXT, ScoringContext
from vigil.scoring.service import score

__all__ = ["simulate_observations"]


def simulate_observations(
    roster_text: str,
    date_format: DateFormat = DateFormat.DMY,
    *,
    seed: int,
    bias: float = 0.0,
    noise_sd: float = 1.0,
    per_duty: int = 3,
    instrument: str = "KSS",
    context: ScoringContext = DEFAULT_CONTEXT,
) -> str:
    """An observations CSV (``Reference,Timestamp,Instrument,Value``) for ``roster_text``.

    Parameters
    ----------
    seed : int
        NumPy ``default_rng`` seed: the same arguments give the same file.
    bias : float
        Added to every prediction before noise [scale points].
    noise_sd : float
        SD of the Gaussian noise [scale points].
    per_duty : int
        Ratings per duty, at distinct random intervals (fewer if the duty is shorter).
    context : ScoringContext, optional
        The *generating* model's context, e.g. ``DEFAULT_CONTEXT.with_preset("tpm_default")``.
    """
    rng = np.random.default_rng(seed)
    low, high = INSTRUMENTS[instrument]
    report = score(context.request(roster_text, date_format=date_format, scale=instrument))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["Reference", "Timestamp", "Instrument", "Value"])
    for result in report.schedules:
        scores = result.scores[instrument]
        for duty in result.duties:
            k = min(per_duty, duty.interval_count)
            picks = np.sort(rng.choice(duty.interval_count, size=k, replace=False))
            for i in picks.tolist():
                start = duty.on_duty + i * INTERVAL
                span = min(INTERVAL, duty.off_duty - start)
                at = start + timedelta(seconds=int(rng.integers(0, int(span.total_seconds()))))
                value = float(scores[duty.first_interval + i]) + bias + rng.normal(0.0, noise_sd)
                rating = int(np.clip(np.rint(value), low, high))
                writer.writerow([result.reference, f"{at:%Y-%m-%dT%H:%M:%SZ}", instrument, rating])
    return out.getvalue()
