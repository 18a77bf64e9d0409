"""vigil.calibration: the model against an operator's own crews (docs/calibration.md).

Pure: :mod:`.observations` reads the CSV files, :mod:`.report` scores the roster and
compares, :mod:`.fit` fits operator KSS coefficients, :mod:`.verdict` says the result
and what adopting does in plain words, :mod:`.simulate` makes ratings with a known truth,
:mod:`.plots` draws the plot and the PDF. The web layer stores and serves.

Layer 6 of docs/architecture.md. May import: ``domain``, ``plot_text``, ``roster``, ``scoring``,
``tz``; never a package of its own layer or above.
"""

from vigil.calibration.fit import MIN_CREW, MIN_OBSERVATIONS, Fit, fit_kss
from vigil.calibration.observations import (
    Observation,
    ObservationsError,
    SleepPeriod,
    parse_observations,
    parse_sleep_periods,
)
from vigil.calibration.report import CalibrationReport, build_report
from vigil.calibration.simulate import simulate_observations

__all__ = [
    "MIN_CREW",
    "MIN_OBSERVATIONS",
    "CalibrationReport",
    "Fit",
    "Observation",
    "ObservationsError",
    "SleepPeriod",
    "build_report",
    "fit_kss",
    "parse_observations",
    "parse_sleep_periods",
    "simulate_observations",
]
