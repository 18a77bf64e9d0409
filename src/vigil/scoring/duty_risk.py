"""Per-duty risk R_d = H_d / H_ref over a laid-out chunk of crew (reference §8).

The hazard of each duty comes from :func:`vigil.model.risk.hazard_terms` and
:func:`~vigil.model.risk.hazard_sum`, the two halves of
:func:`~vigil.model.risk.duties_hazard` that :func:`vigil.model.reference_hazard` uses for
the reference duty, with exposure, time on duty, sector counts, cumulative night/early
multipliers and the cabin-crew factor taken from the :class:`~vigil.scoring.layout.Layout`
and the simulated body clock.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
import numpy.typing as npt

from vigil import model
from vigil.contract import INTERVAL_HOURS
from vigil.model import risk
from vigil.model.simulate import body_clock_phase
from vigil.scoring.grid import FloatArray
from vigil.scoring.layout import Layout
from vigil.scoring.request import DECIMALS

__all__ = ["duty_risks"]

_CREW_STRIDE = 1.0e6  #: [h] offset separating crew rows when searching sorted episodes


@nb.njit(cache=True)
def _exposed(
    crew: npt.NDArray[np.int64],
    start: FloatArray,
    duty: npt.NDArray[np.int64],
    position: npt.NDArray[np.int64],
    off: FloatArray,
    sleep_start: FloatArray,
    sleep_end: FloatArray,
    rest_start: FloatArray,
    rest_end: FloatArray,
    inflight: npt.NDArray[np.bool_],
    out: npt.NDArray[np.bool_],
) -> None:
    """Whether the midpoint of interval ``t`` (from ``start[t]`` to the next point or to
    its duty's ``off``, whichever is first) counts in the exposure: outside the sleeps of
    crew member ``crew[t]`` and outside the in-flight rest of duty ``duty[t]``; written to
    ``out[duty[t], position[t]]``.

    Sleeps are ``(n_crew, m)`` sorted, non-overlapping, NaN-padded on the right. Instants
    are compared offset by ``crew * _CREW_STRIDE``, as the one sorted search of every
    crew's episodes that this replaces did, so edge cases round alike.
    """
    n_ep = np.zeros(sleep_start.shape[0], np.int64)
    for c in range(sleep_start.shape[0]):
        while n_ep[c] < sleep_start.shape[1] and math.isfinite(sleep_start[c, n_ep[c]]):
            n_ep[c] += 1
    for t in range(start.shape[0]):
        d = duty[t]
        a, b = start[t] + INTERVAL_HOURS, off[d]
        end = a if a <= b or math.isnan(a) else b  # np.minimum: NaN if either is
        c, m = crew[t], (start[t] + end) / 2
        query = m + c * _CREW_STRIDE
        asleep = False
        row, e = c, -1
        for j in range(n_ep[c]):  # the last episode starting at or before the midpoint
            if sleep_start[c, j] + c * _CREW_STRIDE <= query:
                e = j
            else:
                break
        if e < 0:  # none: the sorted search fell back to an earlier crew's last episode
            row = c - 1
            while row >= 0 and n_ep[row] == 0:
                row -= 1
            e = n_ep[row] - 1 if row >= 0 else -1
        if e >= 0:
            asleep = query < sleep_end[row, e] + row * _CREW_STRIDE
        resting = False
        for r in range(rest_start.shape[1]):
            if inflight[d, r] and m >= rest_start[d, r] and m < rest_end[d, r]:
                resting = True
        out[d, position[t]] = not (asleep or resting)


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
    included = np.zeros((n_duty, width), dtype=bool)
    _exposed(
        layout.interval_crew,
        layout.start,
        d,
        k,
        layout.off,
        np.ascontiguousarray(timeline.sleep_start),
        np.ascontiguousarray(timeline.sleep_end),
        np.ascontiguousarray(layout.rest_start),
        np.ascontiguousarray(layout.rest_end),
        np.ascontiguousarray(layout.inflight),
        included,
    )
    # body clock at report and off duty: phase from the same simulation, two points a duty
    slots = int(layout.slot.max()) + 1
    points = np.full((layout.n_crew, 2 * slots), np.nan)
    points[layout.crew, 2 * layout.slot] = layout.on
    points[layout.crew, 2 * layout.slot + 1] = layout.off - 1e-6
    phase = body_clock_phase(timeline, points, params)
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
    terms = risk.hazard_terms(
        kss, layout.on, layout.off, layout.sectors, params, cabin_crew=layout.cabin
    )
    # cumulative fatigue over a run of nights or earlies: no recovery within the run (§8)
    factor_rows = np.full(crew_shape, np.nan)
    factor_rows[layout.crew, layout.slot] = risk.terms_fatigue_factor(terms, included)
    multiplier = multiplier * risk.run_fatigue_floor(factor_rows, kind_rows, positions)
    hazard = risk.hazard_sum(terms, included, multiplier[layout.crew, layout.slot])
    return model.duty_risk(hazard, params).round(DECIMALS)
