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

A first start (an empty cache) compiles the kernels instead of loading them. The compile
is split into :data:`WARM_GROUPS` of about equal compile time with no kernel in common,
so the server compiles them in as many child processes at once
(:func:`vigil.web._runtime.compile_cold_kernels`, docs/deployment.md) and then loads them
all with :func:`warm_kernels`.
"""

from __future__ import annotations

import csv
import io
import threading
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vigil.scoring.request import ScoreRequest

__all__ = [
    "WARM_ACTIVITY",
    "WARM_CREW",
    "WARM_GROUPS",
    "WARM_ROSTER",
    "WARM_SLEEP",
    "start",
    "warm_group",
    "warm_kernels",
]

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
#: first day of the generated warm-up month (``generate_airline_duties``' default)
_MONTH_START = "2026-03-01"

#: The kernel groups a first start compiles side by side, one process each
#: (:func:`warm_group`): the sleep predictor's kernel alone (``sleep``) costs about as much
#: compile time as every other kernel of the scoring path together (``scoring``).
WARM_GROUPS = ("sleep", "scoring")


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
    from vigil.scoring.service import score

    started = time.perf_counter()
    for request in _requests(given_sleep=False):
        score(request)
    return time.perf_counter() - started


def warm_group(group: str) -> float:
    """Compile (or load) one of :data:`WARM_GROUPS` alone; returns the seconds taken.

    Together the groups compile every kernel :func:`warm_kernels` calls, with the same
    argument types, and no kernel is in both, so a first start runs them in parallel
    processes that write the shared ``NUMBA_CACHE_DIR``; :func:`warm_kernels` then only
    loads. ``sleep`` predicts one idle person for two days through
    :func:`vigil.model.sleep.predict_packed` (the kernel's inputs are converted to fixed
    types there, so any roster compiles the same signature). ``scoring`` runs the requests
    of :func:`warm_kernels` with SleepData for every schedule: the given-sleep path never
    calls the predictor, and every later step takes the same types either way.

    Raises
    ------
    ValueError
        ``group`` is not one of :data:`WARM_GROUPS`.
    """
    if group not in WARM_GROUPS:
        raise ValueError(f"unknown kernel group {group!r}: one of {', '.join(WARM_GROUPS)}")
    started = time.perf_counter()
    if group == "sleep":
        _predict_idle_person()
    else:
        from vigil.scoring.service import score

        for request in _requests(given_sleep=True):
            score(request)
    return time.perf_counter() - started


def _requests(*, given_sleep: bool) -> list[ScoreRequest]:
    """The warm-up requests (:func:`warm_kernels`); with ``given_sleep`` every schedule
    has SleepData, so none is predicted."""
    from vigil.domain import DateFormat
    from vigil.roster.synthetic import generate_airline_roster
    from vigil.scoring.service import SCALE_CODES, ScoreRequest

    month = generate_airline_roster(WARM_CREW, 28, seed=1)
    first_line = month.split("\r\n", 2)[1]
    others = tuple(s for s in SCALE_CODES if s != "KSS")
    roster_sleep: tuple[dict[str, str], ...] = WARM_SLEEP
    month_sleep: tuple[dict[str, str], ...] = ()
    line_sleep: tuple[dict[str, str], ...] = ()
    if given_sleep:
        roster_sleep = (*WARM_SLEEP, *_night_before_month(WARM_ROSTER))
        month_sleep = _night_before_month(month)
        line_sleep = _night_before_month(first_line)
    return [
        ScoreRequest(
            month,
            DateFormat.DMY,
            sleep_data=month_sleep,
            risk=True,
            include_sleep=True,
            extra_scales=others,
        ),
        ScoreRequest(month, DateFormat.DMY, sleep_data=month_sleep, risk=False),
        ScoreRequest(first_line, DateFormat.DMY, sleep_data=line_sleep, risk=True),
        ScoreRequest(
            WARM_ROSTER,
            DateFormat.DMY,
            sleep_data=roster_sleep,
            activity_text=WARM_ACTIVITY,
            risk=True,
            include_sleep=True,
        ),
    ]


def _night_before_month(roster: str) -> tuple[dict[str, str], ...]:
    """One SleepData record, the night two days before the warm-up month, for each
    schedule of ``roster`` that has none in :data:`WARM_SLEEP` (a roster with a header
    names its schedules below it; a quoted Reference may hold a comma)."""
    rows = list(csv.reader(io.StringIO(roster)))
    if rows and rows[0] and rows[0][0] == "Reference":
        rows = rows[1:]
    given = {record["ScheduleName"] for record in WARM_SLEEP}
    names = dict.fromkeys(row[0].strip() for row in rows if row and row[0] not in given)
    night = datetime.fromisoformat(_MONTH_START) - timedelta(days=2)
    start, end = night.replace(hour=22), night.replace(hour=22) + timedelta(hours=7)
    iso = "%Y-%m-%dT%H:%M:%SZ"
    return tuple(
        {"ScheduleName": n, "SleepStart": start.strftime(iso), "SleepEnd": end.strftime(iso)}
        for n in names
    )


def _predict_idle_person() -> None:
    """Predict the sleep of one person without duties over two days: compiles (or loads)
    the sleep predictor's kernel and nothing else of the scoring path."""
    import numpy as np

    from vigil.model.sleep import PackedSleepInput, predict_packed

    none, no_ptr = np.empty(0), np.zeros(2, np.int64)
    predict_packed(
        PackedSleepInput(
            start=np.zeros(1),
            end=np.full(1, 48.0),
            s_start=np.full(1, 14.0),
            phase_start=np.zeros(1),
            zone_ptr=np.array([0, 1], np.int64),
            zone_time=np.zeros(1),
            zone_offset=np.zeros(1),
            busy_ptr=no_ptr,
            busy_start=none,
            busy_end=none,
            busy_lead=none,
            busy_lag=none,
            busy_away=none,
            busy_nap=none,
            window_ptr=no_ptr,
            window_start=none,
            window_end=none,
            window_kind=np.empty(0, np.int64),
            window_quality=none,
        )
    )
