"""One schedule's stored sleep, without decoding the whole roster's (issue 16: chart ≤ 0.5 s).

:func:`vigil.worker.stored_sleep.decode_sleep` builds episodes for every Reference
(hundreds of thousands of objects at airline size); a chart needs one schedule's, which
:func:`vigil.worker.stored_sleep.schedule_sleep` decodes from the one segment holding it.
"""

from __future__ import annotations

from vigil.worker.stored_sleep import schedule_sleep

__all__ = ["schedule_sleep"]
