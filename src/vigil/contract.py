"""The contract's numbers and codes, in one place: the score interval, the scale codes,
the decimals of a score, the processing statuses of an upload, and how many crew are
scored together (spec/interface.md, the seed spec).

Every layer may import this module (it imports nothing of Vigil's, nor ``datetime``, so
the model core can too). Values derived from these (the interval as a ``timedelta`` in
:mod:`vigil.domain`, the statuses in the console's JavaScript) are computed from them,
never copied: the console renders :data:`JobStatus` into its pages
(:func:`statuses_json`).
"""

from __future__ import annotations

import enum
import json

__all__ = [
    "ACTIVE",
    "DECIMALS",
    "EXTRA_SCALE_CODES",
    "FINISHED",
    "INTERVAL_HOURS",
    "INTERVAL_MINUTES",
    "INTERVAL_MS",
    "INTERVAL_SECONDS",
    "INTERVALS_PER_HOUR",
    "SCALE_CODES",
    "SCORING_BATCH_CREW",
    "SERVICE_CHUNK_CREW",
    "UPLOAD_TASK_CREW",
    "JobStatus",
    "row_count",
    "statuses_json",
]

# --- the score interval (seed §8, contract §4) ---------------------------------------------

#: every score is the mean over one interval of this many minutes, on the UTC clock grid
INTERVAL_MINUTES = 15
INTERVAL_SECONDS = INTERVAL_MINUTES * 60
INTERVAL_MS = INTERVAL_SECONDS * 1000
INTERVAL_HOURS = INTERVAL_MINUTES / 60
INTERVALS_PER_HOUR = 60 // INTERVAL_MINUTES

# --- scales and decimals (seed §2.4, contract §4) ------------------------------------------

#: the contract's scale codes, in its order
SCALE_CODES: tuple[str, ...] = ("SP", "KSS", "KP", "VD", "CRD", "PMR")
#: Scales ``vigil score`` offers beyond the contract's (docs/model.md): LAPSES, PVT lapses.
EXTRA_SCALE_CODES: tuple[str, ...] = ("LAPSES",)
#: decimals of every reported score
DECIMALS = 3

# --- crew scored together (internal sizes; scores never depend on them) --------------------

#: crew members :func:`vigil.scoring.service.score` simulates together (bounds peak memory)
SERVICE_CHUNK_CREW = 512
#: crew members one upload chunk task holds (the ``dask_chunk_size`` default)
UPLOAD_TASK_CREW = 500
#: crew members simulated together inside an upload chunk task (the per-minute arrays of 64
#: crew-months keep a scoring process small, at no cost in speed)
SCORING_BATCH_CREW = 64


# --- the processing status of an upload (contract §5 ``GetResults&dataKey=status``) -------


class JobStatus(enum.StrEnum):
    """Processing status of an uploaded roster (``GetResults&dataKey=status``)."""

    #: accepted and durably stored, waiting for a worker
    QUEUED = "queued"
    #: claimed by a worker holding a lease
    PROCESSING = "processing"
    #: scored, no data errors (seed §3)
    COMPLETED_SUCCESSFULLY = "completedsuccessfully"
    #: scored, with data errors in the feedback (valid schedules still have scores)
    COMPLETED_WITH_ERRORS = "completedwitherrors"
    #: three attempts ended in server faults; upload again or contact support
    FAILED = "failed"

    @property
    def finished(self) -> bool:
        """Processing has ended (results or a failure are final)."""
        return self in FINISHED

    @property
    def active(self) -> bool:
        """Waiting for or being processed by a worker."""
        return self in ACTIVE


#: statuses after which a roster no longer changes
FINISHED = frozenset(
    {JobStatus.COMPLETED_SUCCESSFULLY, JobStatus.COMPLETED_WITH_ERRORS, JobStatus.FAILED}
)
#: statuses of a roster still in the queue or being scored
ACTIVE = (JobStatus.QUEUED, JobStatus.PROCESSING)


def row_count(roster_text: str) -> int:
    """Physical lines of RosterData, what the synchronous row limit counts (contract §8:
    blank lines and the header included)."""
    if not roster_text:
        return 0
    return roster_text.count("\n") + (0 if roster_text.endswith("\n") else 1)


def statuses_json() -> str:
    """The statuses as the console's JavaScript reads them: ``{"all": [...], "active":
    [...], "finished": [...]}`` (rendered inline into the pages, so the script never
    copies a status string)."""
    return json.dumps(
        {
            "all": [s.value for s in JobStatus],
            "active": [s.value for s in ACTIVE],
            "finished": sorted(s.value for s in FINISHED),
        }
    )
