"""The processing status of an uploaded roster: one enum for the store, the worker, the
routes and the console (contract §5 ``GetResults&dataKey=status``)."""

from __future__ import annotations

import enum

__all__ = ["JobStatus"]


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
