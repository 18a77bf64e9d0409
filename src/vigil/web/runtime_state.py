"""What a running surface builds once and keeps for its life, one typed field per thing.

:class:`RuntimeState` is ``Runtime.state`` (:mod:`vigil.web._runtime`). Each field has
one owner, the module that reads it, which fills it on first use where it depends on
the surface's settings (a console-less surface never builds the sign-in limits, so a
setting only the console checks cannot stop it):

=================== =========================================== ======================
field               what                                        owner
=================== =========================================== ======================
discovery           the discovery document as compact JSON      routes/discovery.py
revocations         the last revocation document and its JSON   routes/discovery.py
operator_settings   each operator's last read settings version  operator_context.py
scoring_gate        the per-operator bound on pooled scoring    routes/processor.py
sign_in_guard       the console's sign-in limits                console/routes.py
console_key         the console cookie's signing key            console/_web.py
calibration_reports calibration reports, bounded by ratings     calibration_service.py
whatif_references   each recent roster's References             console/whatif.py
upload_pool         the in-process upload worker pool, if any   routes/upload.py
optimise_engines    base-roster engines of the optimisation API routes/optimise.py
roster_views        each recent roster's trips and hot spots    console/roster_views.py
duty_explorer       each recent roster's explorer columns       console/explorer_cache.py
export_tables       each recent roster's decoded export table   console/rosters.py
=================== =========================================== ======================

Everything here is per process: the values are rebuilt (or re-read) after a restart, and
every field that could change elsewhere (settings, revocations) is checked against its
source before use by its owner.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from vigil.auth.gate import WorkGate
from vigil.auth.ratelimit import FailureLimiter
from vigil.calibration import CalibrationReport
from vigil.store.operator_settings import SettingsVersion
from vigil.web._build_cache import BuildCache
from vigil.web._operator_gate import OperatorGate
from vigil.web._report_cache import ReportCache

if TYPE_CHECKING:
    from vigil.optimise import Engine

__all__ = [
    "KEPT_ENGINES",
    "REFERENCE_CACHE_SIZE",
    "REPORT_CACHE_RATINGS",
    "REPORT_CACHE_RATINGS_PER_OPERATOR",
    "PoolHandle",
    "RecentMap",
    "RuntimeState",
    "SettingsMarker",
    "SignInGuard",
]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: ratings (matched or not) of the calibration reports kept in memory, per operator and in
#: all, per process (observation sets and rosters never change): vigil.web._report_cache
REPORT_CACHE_RATINGS_PER_OPERATOR = 100_000
REPORT_CACHE_RATINGS = 400_000

#: uploads whose References each server process keeps (ours)
REFERENCE_CACHE_SIZE = 32
#: base-roster engines of the optimisation route kept per process (each holds a roster's
#: cached model state)
KEPT_ENGINES = 4

#: what tells one stored settings version from another: the current row's
#: ``(id, version, changed_at)`` as the driver returns them, ``None`` for version 0, or
#: ``(None,)`` for a read that must be repeated (vigil.store.operator_settings.current_head)
SettingsMarker = tuple[Any, ...] | None


class RecentMap(Generic[K, V]):
    """The ``size`` most recently used ``key → value`` pairs (thread-safe)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._known: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._known.get(key)
            if found is not None:
                self._known.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._known[key] = value
            self._known.move_to_end(key)
            while len(self._known) > self.size:
                self._known.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._known)


class PoolHandle(Protocol):
    """What the web side calls on the upload worker pool (vigil.worker.run.WorkerPool)."""

    def wake(self) -> None:
        """Look for queued rosters now instead of at the next poll."""


@dataclass(frozen=True, slots=True)
class SignInGuard:
    """The console's sign-in limits, one per runtime (docs/hardening.md).

    ``pair`` counts failures per source address and username, ``source`` per source
    address (any username); both share the runtime's failure store, so every server
    process sees the same counts. ``gate`` bounds the argon2 checks running at once.
    """

    pair: FailureLimiter
    source: FailureLimiter
    gate: WorkGate


def _report_cache() -> ReportCache[CalibrationReport]:
    return ReportCache(per_operator=REPORT_CACHE_RATINGS_PER_OPERATOR, total=REPORT_CACHE_RATINGS)


@dataclass(slots=True)
class RuntimeState:
    """The things a surface keeps per process (table in the module docstring)."""

    #: the discovery document as compact JSON (it changes only on restart)
    discovery: bytes | None = None
    #: the last revocation document served and its compact JSON (serialised once per
    #: rebuilt document)
    revocations: tuple[Mapping[str, Any], bytes] | None = None
    #: per operator, the marker of the settings version last read and its parsed record
    #: (also what scores while the database is away)
    operator_settings: dict[str, tuple[SettingsMarker, SettingsVersion]] = field(
        default_factory=dict
    )
    #: the per-operator gate of synchronous scoring in the thread pool (first use)
    scoring_gate: OperatorGate | None = None
    #: the console's sign-in limits (first use)
    sign_in_guard: SignInGuard | None = None
    #: the console cookie's signing key, derived from the secret key (first use)
    console_key: bytes | None = None
    #: calibration reports, weighed by their ratings
    calibration_reports: ReportCache[CalibrationReport] = field(default_factory=_report_cache)
    #: each recent roster's References, by roster token (a token's rows never change: a
    #: replaced roster gets a new token); read only after the operator-scoped look-up of
    #: the upload, so it answers nothing across operators
    whatif_references: RecentMap[str, frozenset[str]] = field(
        default_factory=lambda: RecentMap(REFERENCE_CACHE_SIZE)
    )
    #: the upload worker pool this surface runs (started and stopped by the upload
    #: router's lifespan), ``None`` when it runs none
    upload_pool: PoolHandle | None = None
    #: base-roster engines of the optimisation route, by operator, settings version, date
    #: format, roster digest and costs
    optimise_engines: RecentMap[tuple[object, ...], Engine] = field(
        default_factory=lambda: RecentMap(KEPT_ENGINES)
    )
    #: the console's per-roster views (duty table, trips, hot spots), weighed in duties
    #: (vigil.web.console.roster_views, which sits above this module and narrows the type)
    roster_views: ReportCache[Any] | None = None
    #: the duty explorer's filter columns per roster (vigil.web.console.explorer_cache,
    #: which sits above this module and narrows the type)
    duty_explorer: BuildCache[Any] | None = None
    #: each recent roster's decoded scores and duty table for its exports, by roster token
    #: and scale (vigil.web.console.rosters: the CSV, XLSX and PDF of one roster are asked
    #: for one after another; about 45 MiB each at 10,000 crew, so two are kept)
    export_tables: RecentMap[tuple[str, str], tuple[Any, Any]] = field(
        default_factory=lambda: RecentMap(2)
    )
