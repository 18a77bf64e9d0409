"""Per-duty risk R_d = H_d / H_ref over a laid-out chunk of crew (reference §8).

The hazard of each duty comes from :func:`vigil.model.risk.duties_hazard`, the function
:func:`vigil.model.reference_hazard` uses for the reference duty, with exposure, time on
duty, sector counts, cumulative night/early multipliers and the cabin-crew factor taken
from the :class:`~vigil.scoring.layout.Layout` and the simulated body clock.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.model import risk
from vigil.scoring.grid import FloatArray
from vigil.scoring.layout import Layout
from vigil.scoring.request import DECIMALS

__all__ = ["duty_risks"]

_CREW_STRIDE = 1.0e6  #: [h] offset separating crew rows when searching sorted episodes


def _inside(
    crew: npt.NDArray[np.int64], t: FloatArray, start: FloatArray, end: FloatArray
) -> npt.NDArray[np.bool_]:
    """Whether instant ``t[k]`` of crew ``crew[k]`` lies in one of that crew's episodes.

    ``start``/``end`` are ``(n_crew, m)`` sorted, non-overlapping, NaN-padded.
    """
    rows = np.broadcast_to(np.arange(start.shape[0])[:, None], start.shape)
    valid = np.isfinite(start)
    keys = (start + rows * _CREW_STRIDE)[valid]
    ends = (end + rows * _CREW_STRIDE)[valid]
    if keys.size == 0:
        return np.zeros(t.shape, dtype=bool)
    query = t + crew * _CREW_STRIDE
    idx = np.searchsorted(keys, query, side="right") - 1
    safe = np.maximum(idx, 0)
    return (idx >= 0) & (query < ends[safe])


def duty_risks(
    layout: Layout,
    timeline: model.CrewTimeline,
    kss_by_interval: FloatArray,
    params: model.Parameters,
) -> FloatArray:
    """R_d = H_d / H_ref for every duty of the chunk (reference §8).

    An interval is left out of the exposure sum when its midpoint lies in the person's
    own in-flight rest or in one of their sleeps (a split-duty break counts as duty only
    while awake, §7). Night/early classification uses body-clock report and off times,
    ``t + phi(t)`` from the simulated body clock.
    """
    n_duty = layout.on.size
    if n_duty == 0:
        return np.empty(0)
    width = int(layout.count.max())
    d, k = layout.duty, layout.position
    kss = np.full((n_duty, width), np.nan)
    kss[d, k] = kss_by_interval
    _hours, lengths = risk.interval_geometry(layout.on, layout.off, layout.count, width)
    mid = (layout.start + np.minimum(layout.start + 0.25, layout.off[d])) / 2
    asleep = _inside(
        layout.interval_crew,
        mid,
        np.asarray(timeline.sleep_start),
        np.asarray(timeline.sleep_end),
    )
    rs, re = layout.rest_start[d], layout.rest_end[d]
    resting = ((mid[:, None] >= rs) & (mid[:, None] < re) & layout.inflight[d]).any(axis=1)
    included = np.zeros((n_duty, width), dtype=bool)
    included[d, k] = ~(asleep | resting)
    # body clock at report and off duty: phase from the same simulation, two points a duty
    slots = int(layout.slot.max()) + 1
    points = np.full((layout.n_crew, 2 * slots), np.nan)
    points[layout.crew, 2 * layout.slot] = layout.on
    points[layout.crew, 2 * layout.slot + 1] = layout.off - 1e-6
    phase = model.simulate(timeline, points, params).phase
    report_body = layout.on + phase[layout.crew, 2 * layout.slot]
    off_body = layout.off + phase[layout.crew, 2 * layout.slot + 1]
    kinds = model.classify_duty(report_body, off_body, params)
    crew_shape = (layout.n_crew, slots)
    report_rows = np.full(crew_shape, np.nan)
    off_rows = np.full(crew_shape, np.nan)
    kind_rows = np.zeros(crew_shape, dtype=np.int64)
    report_rows[layout.crew, layout.slot] = layout.on
    off_rows[layout.crew, layout.slot] = layout.off
    kind_rows[layout.crew, layout.slot] = kinds
    positions = risk.run_positions(report_rows, off_rows, kind_rows, params)
    multiplier = model.cumulative_multiplier(
        report_rows, off_rows, kind_rows, params, position=positions
    )
    # cumulative fatigue over a run of nights or earlies: no recovery within the run (§8)
    factor_rows = np.full(crew_shape, np.nan)
    factor_rows[layout.crew, layout.slot] = risk.fatigue_factor(kss, included, lengths, params)
    multiplier = multiplier * risk.run_fatigue_floor(factor_rows, kind_rows, positions)
    hazard = risk.duties_hazard(
        kss,
        layout.on,
        layout.off,
        layout.sectors,
        included,
        multiplier[layout.crew, layout.slot],
        params,
        cabin_crew=layout.cabin,
    )
    return np.round(model.duty_risk(hazard, params), DECIMALS)
