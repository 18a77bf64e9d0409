"""Pydantic wire models with the seed's PascalCase property names (seed §2, contract §3, §4).

Property names match case-insensitively (``rosterData`` works), as do the values of
``DateFormat`` and ``PreferredScale`` (contract §3). Pydantic stays at the web edge; the
service takes :class:`vigil.scoring.service.ScoreRequest`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vigil.contract import JobStatus
from vigil.fleet.api import RosterSummaryOut


def _fold_keys(data: Any, canonical: dict[str, str]) -> Any:
    """Map property names onto ``canonical`` (lower-case name → name) case-insensitively;
    unknown names pass through."""
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = canonical.get(key.lower(), key) if isinstance(key, str) else key
        out.setdefault(name, value)
    return out


#: contract §3: the values of these properties match case-insensitively too
_FOLDED_VALUES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("DateFormat", str.lower),
    ("PreferredScale", str.upper),
)


@functools.cache
def _wire_names(
    model: type[BaseModel],
) -> tuple[dict[str, str], tuple[tuple[str, Callable[[str], str]], ...]]:
    """A wire model's property names by their lower case, and the value folds it takes;
    once per class (read per record, they were most of a SleepData record's
    validation time)."""
    fields = model.model_fields
    canonical = {name.lower(): name for name in fields}
    return canonical, tuple((name, fold) for name, fold in _FOLDED_VALUES if name in fields)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, str_strip_whitespace=False)

    @model_validator(mode="before")
    @classmethod
    def _case_insensitive(cls, data: Any) -> Any:
        canonical, folds = _wire_names(cls)
        data = _fold_keys(data, canonical)
        if isinstance(data, dict):
            for name, fold in folds:
                value = data.get(name)
                if isinstance(value, str):
                    data[name] = fold(value.strip())
        return data

    @field_validator("*", mode="after")
    @classmethod
    def _valid_unicode(cls, value: Any) -> Any:
        """JSON may escape a lone surrogate (``"\\ud800"``), which no UTF-8 text can hold:
        a request-level problem (400), not a 500 when the response or database encodes it.
        """
        if isinstance(value, str) and not value.isascii():  # ASCII is always valid
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("text is not valid Unicode (lone surrogate)") from None
        return value


class SleepRecordIn(_Wire):
    """One SleepData record (seed §2.3): all three fields mandatory."""

    ScheduleName: str = Field(min_length=1, description="The Reference the sleep belongs to.")
    SleepStart: str = Field(description="UTC date-time, ISO 8601 Zulu form.")
    SleepEnd: str = Field(description="UTC date-time, ISO 8601 Zulu form.")

    def record(self) -> dict[str, str]:
        """The record as the service reads SleepData: ``model_dump()``'s dict, built
        directly (a quarter of its CPU; a test pins the two equal)."""
        return {
            "ScheduleName": self.ScheduleName,
            "SleepStart": self.SleepStart,
            "SleepEnd": self.SleepEnd,
        }


ScaleCode = Literal["SP", "KSS", "KP", "VD", "CRD", "PMR"]


class ScoringRequestIn(_Wire):
    """Scoring request (seed §2.1) of ProcessFatigue and ProcessFatigueRisk."""

    RosterData: str = Field(
        description="CSV text, rows separated by \\r\\n (seed §2.2, contract §3.1).",
        examples=[
            "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
            "HomeBase,TimeReference\r\nP1,01/03/2026,06:00,LHR,01/03/2026,14:30,JFK,LHR,0"
        ],
    )
    SleepData: list[SleepRecordIn] = Field(
        description="Given sleep; an empty array means the service predicts sleep."
    )
    DateFormat: Literal["dmy", "mdy"] = Field(description="dmy = DD/MM/YYYY, mdy = MM/DD/YYYY.")
    PreferredScale: ScaleCode = Field(description="Output scale (seed §2.4).")


class DutyOut(BaseModel):
    """Which slice of ``fatigueScores`` is one duty (contract §4, ours)."""

    onDuty: str
    offDuty: str
    firstInterval: int
    intervalCount: int
    risk: float | None = None
    restIntervals: list[list[int]] | None = Field(
        default=None,
        description="Present only when the duty has any: the intervals when this crew "
        "member is not at work (own in-flight rest, and sleep in the duty, each plus a "
        "20-min wake-up allowance), as [first, count] runs counted from the duty's first "
        "interval. Their scores are unchanged; every per-duty summary leaves them out "
        "(docs/api.md).",
    )
    #: ProcessFatigueRisk: what drives ``risk`` (docs/model.md "Risk"): mean sleepiness,
    #: time-of-day, time-on-duty and break factors, the consecutive-duty multiplier,
    #: working hours, take-off/landing exposure [h] and sleep in the 24 h before [h]
    riskComponents: dict[str, float] | None = None
    riskReasons: list[str] | None = None  #: plain words: night, early start, long duty, ...


class SleepOut(BaseModel):
    """A sleep the scores rest on (contract §4 ``includeSleep``)."""

    start: str
    end: str
    source: Literal["given", "predicted"]
    kind: Literal["main", "nap", "inflight"]
    quality: float


class ScheduleScoresOut(BaseModel):
    """One schedule's scores (seed §2.5, §2.6)."""

    schedule: str
    fatigueScores: list[float]
    riskScores: list[float] | None = None
    duties: list[DutyOut]
    sleep: list[SleepOut] | None = None


class ScoresOut(BaseModel):
    """The contract §4 envelope shared by ProcessFatigue and ProcessFatigueRisk."""

    scale: ScaleCode
    modelVersion: str
    settingsVersion: int | None = Field(
        default=None, description="The operator settings version the scores used (0: defaults)."
    )
    scheduleScores: list[ScheduleScoresOut]
    errors: list[str] = Field(description="Data errors, 'row|schedule|message' (seed §7.1).")


# --- answers of the other operations (exact schemas a client generator can use) ---

RosterStatus = Literal[
    JobStatus.QUEUED,
    JobStatus.PROCESSING,
    JobStatus.COMPLETED_SUCCESSFULLY,
    JobStatus.COMPLETED_WITH_ERRORS,
    JobStatus.FAILED,
]


class ProblemFieldOut(BaseModel):
    """One offending property of a 400 answer."""

    property: str = Field(description="Property or query parameter, e.g. `RosterData`.")
    message: str


class ProblemOut(BaseModel):
    """An RFC 9457 problem (`application/problem+json`); further members may follow, such
    as `rosterToken` and `rosterStatus` on a 409 from GetResults."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="`about:blank` unless stated.")
    title: str
    status: int
    detail: str | None = None
    errors: list[ProblemFieldOut] | None = Field(
        default=None, description="Each offending property (400 answers)."
    )


class TokenOut(BaseModel):
    """An access token (RFC 6749 §5.1)."""

    access_token: str
    token_type: Literal["Bearer"]
    expires_in: int = Field(description="Lifetime in seconds.")
    scope: str = Field(description="The granted scopes, space-separated.")


class OAuthErrorOut(BaseModel):
    """A token endpoint error (RFC 6749 §5.2)."""

    error: str = Field(description="e.g. `invalid_client`, `invalid_scope`.")
    error_description: str | None = None


class UploadAcceptedOut(BaseModel):
    """UploadRoster's answer: the roster is stored and queued."""

    rosterToken: str = Field(description="Names this roster in GetResults and DeleteRoster.")
    rosterName: str


class ProgressOut(BaseModel):
    """How far processing has got, in crew (schedules)."""

    crewDone: int = Field(description="Crew whose scores are computed.")
    crewTotal: int = Field(description="Crew to score; 0 until the roster has been read.")


class RosterStatusOut(BaseModel):
    """GetResults `dataKey=status`."""

    rosterToken: str
    status: RosterStatus
    submittedAt: str = Field(description="UTC, ISO 8601.")
    updatedAt: str = Field(description="UTC, ISO 8601.")
    progress: ProgressOut


class FeedbackOut(BaseModel):
    """GetResults `dataKey=feedback`: the roster's data errors."""

    rosterToken: str
    status: RosterStatus
    errors: list[str] = Field(description="Data errors, `row|schedule|message`.")
    detail: str | None = Field(default=None, description="Why processing failed (`failed`).")


class RosterListItemOut(BaseModel):
    """One roster in ListRosters."""

    rosterToken: str
    rosterName: str
    status: RosterStatus
    submittedAt: str
    updatedAt: str


class RosterListOut(BaseModel):
    """ListRosters: the operator's rosters, newest first."""

    rosters: list[RosterListItemOut]


class ScheduleSleepOut(BaseModel):
    """One schedule's sleep in GetResults `dataKey=sleep`."""

    schedule: str
    sleep: list[SleepOut]


class SleepResultsOut(BaseModel):
    """GetResults `dataKey=sleep`: the sleep each schedule's scores rest on, given or
    predicted (in-flight rest included), as ProcessFatigueRisk's `includeSleep` gives it."""

    rosterToken: str
    modelVersion: str
    scheduleSleep: list[ScheduleSleepOut]


#: GetResults' 200 answer by ``dataKey``: status, feedback, scores (alias results), sleep,
#: summary
GetResultsOut = RosterStatusOut | FeedbackOut | ScoresOut | SleepResultsOut | RosterSummaryOut
