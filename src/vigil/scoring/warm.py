"""Load the scoring path's compiled kernels in a background thread.

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

__all__ = ["start"]

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
