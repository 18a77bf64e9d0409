"""vigil.model: the fatigue model core (pure NumPy + Numba, no I/O, no datetime).

Three-Process Model of alertness (Åkerstedt & Folkard) with an airline KSS calibration
(Ingre et al. 2014), body-clock re-entrainment, workload, six output scales and per-duty
risk. Time is float64 epoch hours (UTC); see docs/model.md and docs/architecture.md.

Layer 2 of docs/architecture.md. May import: ``contract``; never a package of its own layer
or above.
"""

from .alertness import alertness, final_kss, kss_exceedance_probability, kss_from_alertness
from .circadian import (
    advance_phase,
    body_clock_time,
    circadian_process,
    ultradian_process,
    wrap_offset,
)
from .homeostatic import sleep_recovery, steady_state_at_waking, wake_pressure
from .inertia import inertia_amplitude, sleep_inertia
from .parameters import DEFAULT, INGRE2014_EXP, MODEL_VERSION, PRESETS, TPM_DEFAULT, Parameters
from .risk import (
    EARLY,
    NIGHT,
    OTHER,
    classify_duty,
    cumulative_multiplier,
    duty_components,
    duty_risk,
    duty_risk_exposure,
    minute_midpoints,
    nearest_point_counts,
    reference_hazard,
)
from .scales import SCALE_INFO, SCALES, WARNING_KSS, ScaleInfo, interval_means, warning_level
from .simulate import CrewTimeline, ModelState, simulate, simulate_alertness
from .workload import (
    equivalent_sectors,
    flight_period,
    sector_times,
    sectors_started,
    workload_kss,
    workload_kss_fast,
    workload_multiplier,
)

__all__ = [
    "DEFAULT",
    "EARLY",
    "INGRE2014_EXP",
    "MODEL_VERSION",
    "NIGHT",
    "OTHER",
    "PRESETS",
    "SCALES",
    "SCALE_INFO",
    "WARNING_KSS",
    "TPM_DEFAULT",
    "CrewTimeline",
    "ModelState",
    "Parameters",
    "ScaleInfo",
    "advance_phase",
    "alertness",
    "body_clock_time",
    "circadian_process",
    "classify_duty",
    "cumulative_multiplier",
    "duty_components",
    "duty_risk",
    "duty_risk_exposure",
    "equivalent_sectors",
    "final_kss",
    "flight_period",
    "inertia_amplitude",
    "interval_means",
    "kss_exceedance_probability",
    "kss_from_alertness",
    "minute_midpoints",
    "nearest_point_counts",
    "reference_hazard",
    "sector_times",
    "sectors_started",
    "simulate",
    "simulate_alertness",
    "sleep_inertia",
    "sleep_recovery",
    "steady_state_at_waking",
    "ultradian_process",
    "wake_pressure",
    "warning_level",
    "workload_kss",
    "workload_kss_fast",
    "workload_multiplier",
    "wrap_offset",
]
