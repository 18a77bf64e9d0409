"""Scale-out on a Dask distributed cluster (docs/upload.md).

With ``VIGIL_DASK_SCHEDULER`` set, a roster of more than ``VIGIL_DASK_CHUNK_SIZE``
schedules is split by schedule into parts (:mod:`vigil.worker.split`); each part is
parsed, scored and encoded on the cluster by :func:`vigil.worker.tasks.run_task` (through
:func:`vigil.worker.scorers.run_task_then_release`, as in local scoring processes) and
comes back as bytes ready to store (:class:`vigil.worker.tasks.ChunkOutcome`); outcomes
are joined in schedule order, so the stored blob is byte-identical to local processing.
:meth:`DaskScorer.warm_up` (run by the upload pool when it starts) has each worker import
the scoring stack and load its kernels before the first roster.

The cluster's workers need this package installed (same version: the result carries
``modelVersion``). A task carries its part of the roster text (or, for rosters with
SleepData or ActivityData, pickled parsed schedules).

Security (docs/deployment.md): Dask exchanges pickles, so whoever can talk to
the scheduler can run code on the cluster. :func:`tls_security` builds a
``distributed.security.Security`` with mutual TLS (``VIGIL_DASK_TLS_CA``,
``VIGIL_DASK_TLS_CERT``, ``VIGIL_DASK_TLS_KEY``; ``require_encryption``), so only holders
of a certificate signed by the cluster's CA connect, and the traffic is encrypted. Without
those settings the client uses Dask's own configuration (``distributed.comm.tls.*`` in a
Dask config file or ``DASK_DISTRIBUTED__COMM__TLS__...`` variables).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from vigil.domain import DateFormat
from vigil.worker.scorers import Pending, SplitOutcomes, run_task_then_release
from vigil.worker.split import split_roster
from vigil.worker.tasks import ChunkOutcome, ChunkTask, split_counts, task_of, warm_up

T = TypeVar("T")

__all__ = ["DaskScorer", "tls_security"]

#: chunks in flight per cluster thread: bounds what the submitting worker holds
_IN_FLIGHT_PER_THREAD = 2


def tls_security(ca_file: Path | str, cert_file: Path | str, key_file: Path | str) -> Any:
    """A ``distributed.security.Security`` for a client of a mutual-TLS Dask cluster.

    Parameters
    ----------
    ca_file : path
        PEM certificate(s) of the CA that signed the scheduler's and workers' certificates.
    cert_file, key_file : path
        This client's PEM certificate and private key (signed by a CA the cluster trusts).

    Raises
    ------
    FileNotFoundError
        When one of the files does not exist (said at start, not at the first roster).
    """
    from distributed.security import Security

    for path in (ca_file, cert_file, key_file):
        if not Path(path).is_file():
            raise FileNotFoundError(f"Dask TLS file {path} does not exist")
    return Security(  # type: ignore[no-untyped-call]
        tls_ca_file=str(ca_file),
        tls_client_cert=str(cert_file),
        tls_client_key=str(key_file),
        require_encryption=True,
    )


class DaskScorer:
    """A :class:`vigil.worker.scorers.ChunkScorer` on a ``distributed.Client``.

    Parameters
    ----------
    address : str or distributed.Client
        Scheduler address (``tcp://10.0.0.5:8786``, ``tls://…`` with ``security``) or an
        existing client (tests). The client is created on first use and shared by a
        pool's threads.
    security : distributed.security.Security, optional
        TLS settings for the connection (:func:`tls_security`); ``None`` uses Dask's
        configuration.
    """

    def __init__(self, address: Any, security: Any = None) -> None:
        self._address = address
        self._security = security
        self._client: Any = None if isinstance(address, str) else address
        self._owns_client = isinstance(address, str)
        self._lock = threading.Lock()
        self._closed = False

    def client(self) -> Any:
        with self._lock:
            if self._closed:
                raise RuntimeError("the Dask scorer is closed")
            if self._client is None:
                from distributed import Client

                # distributed leaves Client.__init__ unannotated
                self._client = Client(  # type: ignore[no-untyped-call]
                    self._address, security=self._security, set_as_default=False
                )
            return self._client

    def map(self, tasks: Sequence[ChunkTask]) -> Iterator[ChunkOutcome]:
        return self._run(list(tasks))

    def map_split(
        self, text: str, date_format: DateFormat, size: int, options: ChunkTask
    ) -> SplitOutcomes:
        """Split on the cluster: the text goes to one worker as it is (scattered once),
        a task there splits it (:func:`vigil.worker.split.split_roster`) and builds each
        part's task (:func:`vigil.worker.tasks.task_of`), and the chunk tasks take their
        part from it, worker to worker. Only the crew per part comes back before the
        outcomes: this process never reads the roster's lines."""
        client = self.client()
        whole = client.scatter(text, hash=False)
        split = client.submit(split_roster, whole, date_format, size, pure=False)
        counts: list[int] = client.submit(split_counts, split, pure=False).result()
        parts = [
            client.submit(task_of, split, whole, options, i, pure=False) for i in range(len(counts))
        ]
        del split, whole  # the cluster frees them once the parts' tasks have run
        return counts, self._run(parts)

    def submit(self, fn: Callable[..., T], *args: Any) -> Pending[T]:
        """``fn(*args)`` on the cluster, its large arguments scattered first."""
        client = self.client()
        sent = [client.scatter(a, hash=False) if isinstance(a, bytes) else a for a in args]
        # named by the function's or the callable's class name (not its repr) in the task stream
        name = getattr(fn, "__name__", type(fn).__name__)
        future: Pending[T] = client.submit(fn, *sent, key=f"{name}-{uuid.uuid4().hex}")
        return future

    def _run(self, tasks: list[Any]) -> Iterator[ChunkOutcome]:
        """Chunk tasks (or futures of them) in order, a bounded number in flight."""
        client = self.client()
        threads = sum(client.nthreads().values()) or 1
        window = max(2, threads * _IN_FLIGHT_PER_THREAD)
        pending: list[Any] = []
        submitted = 0
        try:
            while submitted < len(tasks) or pending:
                while submitted < len(tasks) and len(pending) < window:
                    task, tasks[submitted] = tasks[submitted], None
                    pending.append(client.submit(run_task_then_release, task, pure=False))
                    submitted += 1
                future = pending.pop(0)
                result: ChunkOutcome = future.result()
                future.release()
                yield result
        finally:
            for future in pending:
                future.cancel()

    def warm_up(self) -> dict[str, float]:
        """Run :func:`vigil.worker.tasks.warm_up` once on every worker of the cluster now
        (one task pinned to each); returns the seconds each took, by worker address.

        A fresh worker otherwise imports the scoring stack and loads its kernels in its
        first task, which makes the first roster wait as long on N workers as on one
        (scale-out). Workers that join the cluster later warm up in their first
        task.
        """
        client = self.client()
        workers = list(client.nthreads())
        futures = [
            client.submit(warm_up, pure=False, workers=[address], allow_other_workers=False)
            for address in workers
        ]
        seconds: list[float] = client.gather(futures)
        return dict(zip(workers, seconds, strict=True))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._client is not None and self._owns_client:
                self._client.close()
                self._client = None
