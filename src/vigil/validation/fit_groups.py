"""The fit groups of the sleep rules chosen with the validation rows, and their runner.

Each group re-predicts only the scenarios its rows read, with candidate values of its
parameters, through :func:`vigil.scoring.predict.predict_sleep` (the predictor the scoring
path runs), and computes the rows' values with the rows' own compute functions. Those rows
measure sleep only, so no scores are needed; :func:`sleep_runs` builds the same
:class:`~vigil.validation.scenarios.Runs` the report reads (``tests/validation`` checks
that the values agree at the hand-set parameters).

Parameters may be fields of :class:`vigil.model.Parameters` or of
:class:`vigil.model.sleep_parameters.SleepParameters`; the hand-set values are read from
the defaults, so a group always starts from the current source.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vigil import model
from vigil.domain import DateFormat
from vigil.model.sleep_parameters import DEFAULT_SLEEP, SleepParameters
from vigil.roster.parse import parse_request
from vigil.scoring.predict import predict_sleep
from vigil.scoring.report import DutyResult, ScheduleResult, ScoreReport
from vigil.validation import rosters as r
from vigil.validation import scenarios as sc
from vigil.validation.cases import Case
from vigil.validation.fit import FitGroup, standardised
from vigil.validation.scenarios import Runs

#: A row used by a group, with how its residual is formed: two-sided (value - centre) /
#: half-band, or one-sided (distance outside the band, in ``unit`` of the row's measure).
RowSpec = tuple[str, bool, float]

_MODEL_FIELDS = {f.name for f in dataclasses.fields(model.Parameters)}
_SLEEP_FIELDS = {f.name for f in dataclasses.fields(SleepParameters)}


def with_values(
    names: Sequence[str], values: Sequence[float]
) -> tuple[model.Parameters, SleepParameters]:
    """The default parameters with ``names`` set to ``values`` (model or sleep fields)."""
    unknown = [n for n in names if n not in _MODEL_FIELDS | _SLEEP_FIELDS]
    if unknown:
        raise KeyError(f"not a model or sleep parameter: {', '.join(unknown)}")
    params = {n: float(v) for n, v in zip(names, values, strict=True) if n in _MODEL_FIELDS}
    sleep = {n: float(v) for n, v in zip(names, values, strict=True) if n in _SLEEP_FIELDS}
    return (
        dataclasses.replace(model.DEFAULT, **params),  # type: ignore[arg-type]
        dataclasses.replace(DEFAULT_SLEEP, **sleep),  # type: ignore[arg-type]
    )


def hand_set(names: Sequence[str]) -> tuple[float, ...]:
    """Today's values of ``names`` in the default parameters."""
    source = (model.DEFAULT, DEFAULT_SLEEP)
    return tuple(float(getattr(source[0] if n in _MODEL_FIELDS else source[1], n)) for n in names)


def sleep_runs(
    items: Sequence[r.Scenario], params: model.Parameters, sleep_params: SleepParameters
) -> Runs:
    """Predicted sleep of ``items`` as :class:`Runs` (duties and sleep; no scores)."""
    parsed = parse_request(r.roster_text(items), DateFormat.DMY)
    if parsed.errors:
        raise RuntimeError(f"fit scenarios have data errors: {parsed.errors}")
    schedules = list(parsed.schedules)
    episodes = predict_sleep(schedules, params, sleep_params, r.held_beds(items))
    results = tuple(
        ScheduleResult(
            reference=s.reference,
            scores={},
            duties=tuple(DutyResult(d.on_duty, d.off_duty, 0, 0) for d in s.duties),
            sleep=tuple(found),
        )
        for s, found in zip(schedules, episodes, strict=True)
    )
    report = ScoreReport("KSS", params.model_version, results, ())
    return Runs(report, {s.reference: s for s in results})


@functools.lru_cache(maxsize=1)
def _scenarios() -> dict[str, r.Scenario]:
    from vigil.validation.catalog import extra_scenarios

    return {s.name: s for s in sc.scenarios() + extra_scenarios()}


def _cases() -> dict[str, Case]:
    from vigil.validation.catalog import all_cases

    return {c.key: c for c in all_cases()}


def residual_function(
    names: Sequence[str], scenario_names: Sequence[str], rows: Sequence[RowSpec]
) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    """Parameter vector -> standardised residual of each row, from the named scenarios."""
    items = [_scenarios()[n] for n in scenario_names]
    cases = _cases()

    def residuals(x: NDArray[np.float64]) -> NDArray[np.float64]:
        runs = sleep_runs(items, *with_values(names, x.tolist()))
        out = []
        for key, one_sided, unit in rows:
            case = cases[key]
            value = float(case.compute(runs))
            out.append(standardised(value, case.low, case.high, one_sided=one_sided, unit=unit))
        return np.asarray(out, dtype=float)

    return residuals


def group(
    name: str,
    parameters: Sequence[tuple[str, float, float]],
    scenario_names: Sequence[str],
    rows: Sequence[RowSpec],
    loss: str,
) -> FitGroup:
    """A fit group over ``parameters`` ``(name, low, high)`` starting at today's values."""
    names = tuple(p[0] for p in parameters)
    return FitGroup(
        name=name,
        parameters=names,
        initial=hand_set(names),
        bounds=(tuple(p[1] for p in parameters), tuple(p[2] for p in parameters)),
        rows=tuple(row[0] for row in rows),
        loss=loss,
        residuals=residual_function(names, scenario_names, rows),
    )


_TWO_SIDED = "sum of squared (value - band centre) / half-band"
_ONE_SIDED = "sum of squared distances outside the band"


#: A group's definition: name, (parameter, low, high)s, scenarios, rows, stated loss.
GroupSpec = tuple[
    str, tuple[tuple[str, float, float], ...], tuple[str, ...], tuple[RowSpec, ...], str
]


def _specs() -> tuple[GroupSpec, ...]:
    roach = tuple(sc.report_schedule(h) for h in sc.REPORT_HOURS)
    return (
        (
            "early-start bedtime",
            (("early_advance_fraction", 0.3, 1.0), ("early_earliest_body", 18.0, 21.0)),
            roach,
            (
                ("roach2012-0400", False, 1.0),
                ("roach2012-0900", False, 1.0),
                ("roach2012-slope", False, 1.0),
                ("roach2012-monotone", True, 1.0 / 60.0),
            ),
            f"{_TWO_SIDED} (04:00, 09:00 bins, slope), plus the fall beyond 1 min in minutes",
        ),
        (
            "sleep-in rule",
            (("sleep_in_to_body", 2.0, 6.0),),
            ("LATE",),
            (("arsintescu2021-late", False, 1.0),),
            _TWO_SIDED,
        ),
        (
            "nap rule",
            (("nap_after_wake", 1.0, 6.0),),
            ("DAYBREAK",),
            (("roach2016-daytime", True, 1.0),),
            f"{_ONE_SIDED} (sleeps short of 2)",
        ),
        (
            "held bed",
            (("held_bed_gate", 11.72, 16.0),),
            ("FD-CON", "FD-SPL"),
            (("roach2017-fd-consolidated", False, 1.0), ("roach2017-fd-split", False, 1.0)),
            _TWO_SIDED,
        ),
        (
            "layover ramp",
            (("local_ramp", 12.0, 72.0),),
            ("DOHIAH", "ACCHKG"),
            (("holmes2012", True, 0.5), ("darwent2010", True, 0.25)),
            f"{_ONE_SIDED} (in half the Holmes share, in quarter hours for Darwent)",
        ),
    )


def _missing(spec: GroupSpec) -> list[str]:
    """The spec's parameters that are no longer model or sleep fields."""
    return [p for p, _, _ in spec[1] if p not in _MODEL_FIELDS | _SLEEP_FIELDS]


def FIT_GROUPS() -> list[FitGroup]:  # noqa: N802 (the registry name other modules define)
    """The groups of the rules fitted with the rows of :mod:`vigil.validation.cases`
    (a group whose parameters the model no longer has is left out: see :func:`not_fitted`)."""
    return [group(*spec) for spec in _specs() if not _missing(spec)]


def not_fitted() -> dict[str, str]:
    """Parameters tagged fitted that no group fits, and groups left out, with why."""
    from vigil.validation.kinds import defined_names

    names = defined_names()
    out = {k: v for k, v in NOT_FITTED.items() if k in names}
    for spec in _specs():
        missing = _missing(spec)
        if missing:
            out[spec[0]] = f"group left out: {', '.join(missing)} no longer in the model"
    return out


#: Parameters tagged fitted that no group fits, with why.
NOT_FITTED: dict[str, str] = {
    "ACTIGRAPHY_EFFICIENCY": "kept at the published 0.88 (Signal et al. 2013, flight crew's "
    "hotel polysomnography); fitting it to the Roach rows that moved it would use them twice",
    "DEPARTURE_HOUR": "a scenario choice, not a model parameter: fitting the departure to "
    "Gander's figures would tune the test, not the model (averaged over 10:00-22:00 "
    "departures long-range in-flight sleep is 2.38 h)",
    "sleep_in_from_body": "only the window's end is fitted (sleep_in_to_body): the LATE "
    "block's sleeps start near 02:00 body time, inside any start from 21:00, so its start "
    "is not identified",
    "sleep_in_prev_from_body": "the same: no fitted row starts its main sleep near it",
    "habitual_wake_body": "kept at the reference's habitual day (ref §9.4: awake at 07:00 "
    "with S = 13.82), which also anchors the home sleep and every derived gate figure; "
    "arsintescu2021-early chose it among anchors of that day, and refitting it to that one "
    "row (6.75 h) would re-anchor the whole model on one row",
}

#: Where the hand-set [C] parameters are documented.
PARAMETER_FILES: tuple[Path, ...] = (
    Path(model.__file__).with_name("parameters.py"),
    Path(model.__file__).with_name("sleep_parameters.py"),
)
_COMMENT_TAG = re.compile(r"\[C\b[^\]]*\]")


def hand_set_parameters(files: Sequence[Path] = PARAMETER_FILES) -> dict[str, str]:
    """Every [C] parameter without a ``fitted:`` tag -> its comment (value source and why)."""
    from vigil.validation.kinds import definitions

    out: dict[str, str] = {}
    for f in files:
        for name, comment in definitions(f.read_text(encoding="utf-8")):
            fields = _MODEL_FIELDS | _SLEEP_FIELDS
            if name in fields and _COMMENT_TAG.search(comment) and "fitted:" not in comment:
                out[name] = " ".join(comment.split())
    return out


def registered() -> list[FitGroup]:
    """Every fit group: this module's, then those of the ``*_cases`` row modules
    (:func:`vigil.validation.catalog.case_modules`)."""
    from vigil.validation.catalog import case_modules

    out = list(FIT_GROUPS())
    for m in case_modules():
        build = getattr(m, "FIT_GROUPS", None)
        if callable(build) and m.__name__ != __name__:
            out += build()
    return out
