"""Roster summaries stored beside the next roster, not before it.

A roster's dashboard figures (:class:`vigil.fleet.stored.SummaryBuild`: about 2.5 CPU-s
for an airline month) are built where its chunk tasks ran, a scoring process or the Dask
cluster (:meth:`vigil.worker.run.Worker._start_summary`), not in the worker's thread, whose
time is the serial share of the scale-out (without scoring processes, by the thread that
waits for them). Waiting for them there would still hold the next queued roster back, so
a :class:`Summariser` waits for each build on one thread of its own and stores its bytes:
the worker claims the next roster at once and the summary overlaps that roster's chunk
tasks.

With no roster queued, the worker waits for the summary and stores it with the roster's
result instead (:meth:`vigil.worker.run.Worker._store`): it delays no one then, and the
roster reads as finished with its dashboard ready.

Nothing is lost when a summary never runs (the pool stopped first, the process died): a
dashboard opened on a roster without one builds it then (:func:`vigil.fleet.stored.ensure`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["Summariser"]

logger = logging.getLogger(__name__)


class Summariser:
    """Runs summary stores (waiting for their builds) one at a time, in order, on a thread
    of its own."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="vigil-summary")

    def submit(self, build: Callable[[], None], what: str) -> None:
        """Queue ``build``; a failure is logged with ``what`` (it never reaches the roster).

        After :meth:`close` (a worker that outlived the pool's stop timeout finished its
        roster) the build is dropped like the queued ones: built on first view.
        """

        def run() -> None:
            try:
                build()
            except Exception:  # noqa: BLE001 - derived data: rebuilt on first view
                logger.exception("building the summary of %s failed", what)

        try:
            self._executor.submit(run)
        except RuntimeError:  # the executor is shut down: the pool has stopped
            logger.info("summary of %s left to its first view (the pool has stopped)", what)

    def drain(self) -> None:
        """Wait until every summary queued so far is built (one thread, in order: they are
        once a marker queued after them has run)."""
        self._executor.submit(lambda: None).result()

    def close(self) -> None:
        """Finish the summary being built and drop the queued ones (built on first view)."""
        self._executor.shutdown(wait=True, cancel_futures=True)
