"""Load the scoring path's compiled kernels before the first real roster: the one home of
every warm-up (the CLI's background thread, the server before ``/readyz``, each Dask
worker of the upload pool).

Numba loads each kernel from its on-disk cache at its first call in a process. On the
scoring path that costs ~0.6 s of wall time before the first crew member is scored,
most of it for the first kernel (Numba's target context and its registries, which import
``scipy.linalg`` to look for BLAS; then each cached object). ``vigil score`` first reads
and checks the roster (more than a second for an airline's month, much of it in Polars
with the GIL released), so it starts :func:`start` first: the kernels load on the
other core meanwhile, and the scoring that follows finds them loaded.

The thread scores one small built-in roster through :func:`vigil.scoring.service.score`,
so it loads exactly the kernels (and argument types) the real run calls; with SleepData
for every crew member the sleep predictor's kernel is loaded for nothing (in the
background). Loading is serialised by Numba's compiler lock: a kernel the main thread calls
while the thread is loading it waits for that load instead of repeating it.
"""

from __future__ import annotations

import threading
import time

__all__ = ["WARM_ACTIVITY", "WARM_CREW", "WARM_ROSTER", "WARM_SLEEP", "start", "warm_kernels"]

#: The warm-up roster: two duties of one crew member, in UTC. Any valid roster calls every
#: kernel of the predicted-sleep, chunk and risk path, with the argument types of any other.
_ROSTER = """\
C1,03/03/2026,10:00,EGCC,03/03/2026,12:45,LFPG,EGCC,0
C1,04/03/2026,14:40,LFPG,04/03/2026,21:30,EGCC,EGCC,0
"""


def start() -> threading.Thread:
    """Start loading the kernels in a thread; join it before scoring.

    Not a daemon: a command that stops early (a bad option, an unreadable file) exits
    only once the thread is done, never while Numba is halfway through loading a kernel.
    """
    thread = threading.Thread(target=_warm, name="vigil-warm-kernels", daemon=False)
    thread.start()
    return thread


def _warm() -> None:
    from vigil.scoring.service import ScoreRequest, score

    score(ScoreRequest(_ROSTER, risk=True))


#: a small roster for the given-sleep and activity paths (cells split in Python): day and night
#: duties, a long-haul pair across time zones with a layover
WARM_ROSTER = "\r\n".join(
    [
        "W1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0",
        "W1,03/03/2026,21:10,LHR,04/03/2026,07:00,JFK,LHR,2",
        "W1,05/03/2026,18:00,JFK,06/03/2026,07:30,LHR,LHR,2",
        "W1,08/03/2026,23:00,LHR,09/03/2026,06:00,LHR,LHR,0",
        "W2,02/03/2026,07:00,CDG,02/03/2026,15:00,CDG,CDG,1",
    ]
)
#: W1 sleeps the night before its first duty and on its first long-haul duty (in flight)
WARM_SLEEP = (
    {
        "ScheduleName": "W1",
        "SleepStart": "2026-03-01T22:00:00Z",
        "SleepEnd": "2026-03-02T05:00:00Z",
    },
    {
        "ScheduleName": "W1",
        "SleepStart": "2026-03-04T01:00:00Z",
        "SleepEnd": "2026-03-04T03:00:00Z",
    },
)
WARM_ACTIVITY = (
    "Reference,StartDate,StartTime,EndDate,EndTime,Location,ActivityType,TimeReference\r\n"
    "W2,03/03/2026,09:00,03/03/2026,17:00,CDG,SIMULATOR,1"
)
#: crew of the generated warm-up month: enough for the parallel kernels
#: (``service.PARALLEL_MIN_CREW``) and rows for Polars' cell splitter
#: (``cells.POLARS_MIN_LINES``), with the realistic mix (augmented crews, rests)
WARM_CREW = 80


def warm_kernels() -> float:
    """Run every compiled path a request can take, so that Numba loads each kernel (and
    each argument signature) from its cache, or compiles it into ``NUMBA_CACHE_DIR``, and
    Polars its query engine, before ``/readyz`` says ready (the first call after
    ready answers in well under a second). Returns the seconds taken.

    Paths: a generated month of :data:`WARM_CREW` crew of every kind (cells split by Polars,
    parallel kernels, predicted sleep with in-flight rest, risk); the same without risk;
    one crew member (single-threaded kernels); and :data:`WARM_ROSTER` with given sleep
    (main and in flight) and an activity, risk and sleep shown.
    """
    from vigil.domain import DateFormat
    from vigil.roster.synthetic import generate_airline_roster
    from vigil.scoring.service import SCALE_CODES, ScoreRequest, score

    started = time.perf_counter()
    month = generate_airline_roster(WARM_CREW, 28, seed=1)
    others = tuple(s for s in SCALE_CODES if s != "KSS")
    requests = [
        ScoreRequest(month, DateFormat.DMY, risk=True, include_sleep=True, extra_scales=others),
        ScoreRequest(month, DateFormat.DMY, risk=False),
        ScoreRequest(month.split("\r\n", 2)[1], DateFormat.DMY, risk=True),
        ScoreRequest(
            WARM_ROSTER,
            DateFormat.DMY,
            sleep_data=WARM_SLEEP,
            activity_text=WARM_ACTIVITY,
            risk=True,
            include_sleep=True,
        ),
    ]
    for request in requests:
        score(request)
    return time.perf_counter() - started
