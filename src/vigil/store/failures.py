"""Failed-credential counters shared by every server process.

Two :class:`vigil.auth.ratelimit.FailureStore` implementations:

:class:`SqlFailureStore`
    The default: one ``auth_failure`` row per failure and key, in the service's own
    database, so ``vigil serve --workers N`` and several hosts on one PostgreSQL share
    the counts. Rows older than the longest window are deleted every
    :data:`PURGE_EVERY` additions.
:class:`RedisFailureStore`
    When ``VIGIL_REDIS_URL`` is set: one sorted set per key (member: a unique ID, score:
    the instant), trimmed and given an expiry on every addition. While Redis cannot be
    reached the counts go to process memory (a warning is logged): sign-ins and token
    requests keep working, throttled per process, instead of failing with 500.

Keys arrive already hashed (:func:`vigil.auth.ratelimit.hashed`).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session, sessionmaker

from vigil.auth.ratelimit import MemoryFailureStore
from vigil.store.tables import AuthFailure

logger = logging.getLogger(__name__)

#: delete expired rows after this many additions (per process)
PURGE_EVERY = 200


class SqlFailureStore:
    """Failures in the ``auth_failure`` table.

    Parameters
    ----------
    sessions : sessionmaker
        The service's sessions.
    horizon : float
        The longest window any limiter uses [s]; older rows are purged.
    """

    def __init__(self, sessions: sessionmaker[Session], *, horizon: float) -> None:
        self._sessions = sessions
        self._horizon = horizon
        self._adds = 0
        self._lock = threading.Lock()

    def add(self, keys: Sequence[str], at: float) -> None:
        if not keys:
            return
        with self._lock:
            self._adds += 1
            purge = self._adds % PURGE_EVERY == 0
        with self._sessions.begin() as session:
            session.execute(insert(AuthFailure), [{"key": key, "at": at} for key in keys])
            if purge:
                session.execute(delete(AuthFailure).where(AuthFailure.at <= at - self._horizon))

    def recent(self, key: str, since: float, limit: int) -> list[float]:
        with self._sessions() as session:
            rows = session.scalars(
                select(AuthFailure.at)
                .where(AuthFailure.key == key, AuthFailure.at > since)
                .order_by(AuthFailure.at.desc())
                .limit(limit)
            )
            return [float(t) for t in rows]


class RedisFailureStore:
    """Failures in Redis sorted sets (``vigil:authfail:<key>``).

    Parameters
    ----------
    url : str
        ``redis://host:port/db`` (``rediss://`` for TLS).
    horizon : float
        The longest window any limiter uses [s]: entries older are trimmed and a key
        expires this long after its last failure.
    client : redis.Redis, optional
        An existing client (tests).
    """

    PREFIX = "vigil:authfail:"
    #: seconds between two "Redis unreachable" warnings
    WARN_EVERY = 60.0

    def __init__(self, url: str, *, horizon: float, client: Any = None) -> None:
        import redis

        if client is None:
            client = redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
        self._redis = client
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        self._horizon = horizon
        self._fallback = MemoryFailureStore(horizon=horizon)
        self._warned_at = float("-inf")

    def _unreachable(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at >= self.WARN_EVERY:
            self._warned_at = now
            logger.warning("Redis unreachable, counting failures in memory: %s", exc)

    def add(self, keys: Sequence[str], at: float) -> None:
        pipe = self._redis.pipeline(transaction=False)
        ttl = max(1, int(self._horizon) + 1)
        for key in keys:
            name = self.PREFIX + key
            pipe.zadd(name, {f"{at:.6f}:{secrets.token_hex(4)}": at})
            pipe.zremrangebyscore(name, "-inf", at - self._horizon)
            pipe.expire(name, ttl)
        try:
            pipe.execute()
        except self._errors as exc:
            self._unreachable(exc)
            self._fallback.add(keys, at)

    def recent(self, key: str, since: float, limit: int) -> list[float]:
        try:
            rows = self._redis.zrevrangebyscore(
                self.PREFIX + key, "+inf", f"({since}", start=0, num=limit, withscores=True
            )
        except self._errors as exc:
            self._unreachable(exc)
            return self._fallback.recent(key, since, limit)
        return [float(score) for _member, score in rows]
