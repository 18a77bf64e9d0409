"""vigil.model: the fatigue model core (pure NumPy + Numba, no I/O, no datetime).

Three-Process Model of alertness (Åkerstedt & Folkard) with an airline KSS calibration
(Ingre et al. 2014), body-clock re-entrainment, workload, six output scales and per-duty
risk. Time is float64 epoch hours (UTC); see docs/model.md and docs/architecture.md.
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
from .scales import SCALE_INFO, SCALES, ScaleInfo, interval_means
from .simulate import CrewTimeline, ModelState, simulate, simulate_alertness

__all__ = [
    "DEFAULT",
    "INGRE2014_EXP",
    "MODEL_VERSION",
    "PRESETS",
    "SCALES",
    "SCALE_INFO",
    "TPM_DEFAULT",
    "CrewTimeline",
    "ModelState",
    "Parameters",
    "ScaleInfo",
    "advance_phase",
    "alertness",
    "body_clock_time",
    "circadian_process",
    "final_kss",
    "inertia_amplitude",
    "interval_means",
    "kss_exceedance_probability",
    "kss_from_alertness",
    "simulate",
    "simulate_alertness",
    "sleep_inertia",
    "sleep_recovery",
    "steady_state_at_waking",
    "ultradian_process",
    "wake_pressure",
    "wrap_offset",
]
