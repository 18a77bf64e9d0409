"""What a running surface holds; it reaches the database through :mod:`vigil.web.wiring`."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from vigil.auth.credentials import parse_basic
from vigil.auth.errors import InvalidTokenError, OAuthError, TooManyFailuresError
from vigil.auth.grant import ClientCredentialsGrant, ClientRecord
from vigil.auth.keys import KeySet, ensure_key_set
from vigil.auth.ratelimit import FailureLimiter, FailureStore
from vigil.auth.revocation import (
    DOCUMENT_MAX_AGE,
    REVOCATIONS_PATH,
    RevocationChecker,
    RevocationSource,
    revocation_document,
)
from vigil.auth.scopes import ScopeTable
from vigil.auth.tokens import AccessTokenClaims, IssuedToken, issue_access_token
from vigil.auth.verify import TokenVerifier, http_jwks_source
from vigil.config.settings import Settings
from vigil.scoring.warm import WARM_GROUPS, warm_kernels
from vigil.store import repo
from vigil.store.crypto import SecretBox
from vigil.store.db import make_engine, make_session_factory, upgrade
from vigil.store.failures import RedisFailureStore, SqlFailureStore
from vigil.web._source import SOURCE_ADDRESS
from vigil.web.runtime_state import RuntimeState
from vigil.web.wiring import DbKeyStorage, client_lookup

logger = logging.getLogger(__name__)


def revocations_from_db(sessions: sessionmaker[Session], keyring: KeyRing) -> RevocationSource:
    """The revocation document, built from ``api_client`` and the key ring."""

    def build() -> Mapping[str, Any]:
        with sessions() as session:
            states = repo.client_states(session=session)
        return revocation_document(states, (k.kid for k in keyring.key_set().keys))

    return build


class KeyRing:
    """The identity surface's keys, reloaded from storage every ``reload_interval`` s.

    Reloading lets ``vigil keys rotate`` (another process) take effect without a restart.
    A reload that finds the same keys (same ``kid`` and retirement) keeps the key set it
    had, with its parsed keys and its JWKS document; a changed key set carries the
    parsed keys it shares with the old one over, so each PEM is parsed once per process.
    :meth:`jwks_body` is the serialised document the JWKS route sends.
    """

    def __init__(
        self, storage: DbKeyStorage, *, token_lifetime: int, reload_interval: float = 30.0
    ) -> None:
        self._storage = storage
        self._lifetime = token_lifetime
        self._interval = reload_interval
        self._lock = threading.Lock()
        self._loaded_at = float("-inf")
        self._key_set: KeySet | None = None
        self._body: bytes = b""
        #: how many times a key set with different keys was installed (tests, metrics)
        self.changes = 0

    def key_set(self, *, force: bool = False) -> KeySet:
        with self._lock:
            now = time.monotonic()
            if force or self._key_set is None or now - self._loaded_at >= self._interval:
                try:
                    fresh = ensure_key_set(self._storage, token_lifetime=self._lifetime)
                except SQLAlchemyError as exc:
                    if self._key_set is None:
                        raise
                    # database away for a while: keep verifying with the keys already
                    # loaded, so scoring does not depend on the database
                    logger.warning("reloading signing keys failed, using loaded ones: %s", exc)
                else:
                    if self._key_set is None or fresh.state != self._key_set.state:
                        fresh = fresh.reuse_loaded(self._key_set)
                        for key in fresh.keys:
                            key.private_key  # noqa: B018 - parse now, once, not per request
                        self._body = json.dumps(fresh.jwks(), separators=(",", ":")).encode()
                        self._key_set = fresh
                        self.changes += 1
                self._loaded_at = now
            assert self._key_set is not None
            return self._key_set

    def jwks(self) -> Mapping[str, Any]:
        return self.key_set().jwks()

    def jwks_body(self) -> bytes:
        """The JWKS as compact JSON bytes, serialised once per key-set change."""
        self.key_set()
        return self._body

    def fresh_jwks_body(self) -> bytes | None:
        """The JWKS bytes when no reload is due (no I/O: safe on the event loop), else
        ``None`` (call :meth:`jwks_body` in a thread)."""
        if self._key_set is None or time.monotonic() - self._loaded_at >= self._interval:
            return None
        return self._body


@dataclass(frozen=True, slots=True)
class BasicIdentity:
    """Who a Basic-authenticated resource call is (contract §2, seed §5.7)."""

    client_id: str
    operator: str
    scopes: tuple[str, ...]


BasicAuthenticator = Callable[[str, str], BasicIdentity]


@dataclass
class Runtime:
    """Everything a surface needs at request time, built by the lifespan."""

    settings: Settings
    scopes: ScopeTable
    verifier: TokenVerifier
    basic: BasicAuthenticator
    engine: Engine | None = None
    sessions: sessionmaker[Session] | None = None
    box: SecretBox | None = None
    keyring: KeyRing | None = None
    grant: ClientCredentialsGrant | None = None
    limiter: FailureLimiter | None = None
    #: where failed-credential counts live (database or Redis), shared by processes
    failures: FailureStore | None = None
    #: the identity server's revocation document (``/connect/revocations``)
    revocations: RevocationSource | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: what the surface builds once and keeps, one typed field per thing
    state: RuntimeState = field(default_factory=RuntimeState)
    #: set once the scoring kernels are loaded (warm start); ``/readyz`` is 503
    #: until then. Set at once on surfaces that do not score.
    warm: threading.Event = field(default_factory=threading.Event)
    #: no database, or a local SQLite file: reading it never waits on the network, so a
    #: small scoring call may run on the event loop (routes/processor.py). Decided once
    #: here, not per request.
    local_database: bool = field(init=False)

    def __post_init__(self) -> None:
        self.local_database = self.engine is None or self.engine.dialect.name == "sqlite"

    def start_warm_up(self) -> threading.Thread:
        """Load (or compile) the scoring kernels in a background thread; sets :attr:`warm`."""

        def run() -> None:
            try:
                compile_cold_kernels()
                seconds = warm_kernels()
            except Exception:  # a failed warm-up must not stop the service: score cold
                logger.exception("warm start failed; the first scoring call will compile")
            else:
                logger.info("scoring kernels ready in %.1f s (warm start)", seconds)
            finally:
                self.warm.set()

        thread = threading.Thread(target=run, name="vigil-warm-up", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        for close in reversed(self.closers):
            close()


def _in_process_basic(grant: ClientCredentialsGrant) -> BasicAuthenticator:
    def authenticate(authorization: str, needed_scope: str) -> BasicIdentity:
        try:
            credentials = parse_basic(authorization)
            if credentials is None:
                raise InvalidTokenError("unsupported authorization scheme")
            client = grant.authenticate(credentials, SOURCE_ADDRESS.get())
        except TooManyFailuresError:
            raise
        except OAuthError:
            raise InvalidTokenError("the client credentials are invalid") from None
        return BasicIdentity(
            client.client_id, client.operator, grant.scope_table.names(client.scopes)
        )

    return authenticate


def _remote_basic(
    settings: Settings, verifier: TokenVerifier, http: httpx.Client
) -> BasicAuthenticator:
    """Exchange Basic credentials for a token at the identity server (no identity DB)."""
    token_url = f"{settings.identity_url or settings.public_base_url}/connect/token"

    def authenticate(authorization: str, needed_scope: str) -> BasicIdentity:
        response = http.post(
            token_url,
            headers={"Authorization": authorization},
            data={"grant_type": "client_credentials", "scope": needed_scope},
        )
        if response.status_code == 429:
            raise TooManyFailuresError(int(response.headers.get("Retry-After", "60")))
        if response.status_code != 200:
            try:
                error = response.json().get("error")
            except ValueError:
                error = None
            if error == "invalid_scope":
                # authenticated, but without this scope: report as insufficient scope
                return BasicIdentity("", "", ())
            raise InvalidTokenError("the client credentials are invalid")
        claims: AccessTokenClaims = verifier.verify(response.json()["access_token"])
        return BasicIdentity(claims.client_id, claims.operator, claims.scopes)

    return authenticate


def failure_store(settings: Settings, sessions: sessionmaker[Session]) -> FailureStore:
    """Redis when ``VIGIL_REDIS_URL`` is set, else the database (shared by processes)."""
    horizon = max(settings.auth_failure_window, settings.console_failure_window)
    if settings.redis_url:
        return RedisFailureStore(settings.redis_url, horizon=horizon)
    return SqlFailureStore(sessions, horizon=horizon)


def cached_document(source: RevocationSource, max_age: float) -> RevocationSource:
    """``source``, rebuilt at most every ``max_age`` seconds (anonymous readers)."""
    lock = threading.Lock()
    state: dict[str, Any] = {"at": float("-inf"), "doc": None}

    def get() -> Mapping[str, Any]:
        with lock:
            now = time.monotonic()
            if state["doc"] is None or now - state["at"] >= max_age:
                state["doc"] = source()
                state["at"] = now
            doc: Mapping[str, Any] = state["doc"]
            return doc

    return get


def start_runtime(settings: Settings, *, identity: bool, needs_db: bool | None = None) -> Runtime:
    """Build a surface's runtime: engine, migrations, keys, verifier.

    Parameters
    ----------
    settings : Settings
    identity : bool
        This surface issues tokens (needs the identity tables and the signing keys). Then
        tokens are verified in process against the same key ring.
    needs_db : bool, optional
        Open the database even without ``identity`` (the upload surface); default
        ``identity``.
    """
    use_db = identity if needs_db is None else (needs_db or identity)
    closers: list[Callable[[], None]] = []
    engine = sessions = None
    if use_db:
        engine, sessions = _open_database(settings, closers)
    if identity:
        assert engine is not None and sessions is not None
        return _identity_runtime(settings, engine, sessions, closers)
    return _resource_runtime(settings, engine, sessions, closers)


def _open_database(
    settings: Settings, closers: list[Callable[[], None]]
) -> tuple[Engine, sessionmaker[Session]]:
    """The engine (disposed by a closer) and its sessions, migrated first if configured."""
    engine = make_engine(settings.database_url)
    closers.append(engine.dispose)
    if settings.migrate_on_start:
        upgrade(engine)
    return engine, make_session_factory(engine)


def _token_issuer(
    settings: Settings, keyring: KeyRing
) -> Callable[[ClientRecord, tuple[str, ...]], IssuedToken]:
    """Issue a client's access token with the key ring's current key."""
    issuer = settings.effective_issuer

    def issue(client: ClientRecord, granted: tuple[str, ...]) -> IssuedToken:
        return issue_access_token(
            signing_key=keyring.key_set().current,
            issuer=issuer,
            audience=settings.audience,
            client_id=client.client_id,
            operator=client.operator,
            scopes=granted,
            lifetime=settings.token_lifetime,
            client_version=client.version,
        )

    return issue


def _identity_runtime(
    settings: Settings,
    engine: Engine,
    sessions: sessionmaker[Session],
    closers: list[Callable[[], None]],
) -> Runtime:
    """The runtime of a surface that issues tokens: secret box, key ring, failure limits,
    the client-credentials grant, and a verifier that checks tokens against the same keys
    and the revocation document built from the database."""
    scopes = ScopeTable(settings.scope_prefix)
    secret = settings.secret_key.get_secret_value() if settings.secret_key else None
    box = SecretBox.from_config(secret, settings.effective_secret_key_file)
    keyring = KeyRing(DbKeyStorage(sessions, box), token_lifetime=settings.token_lifetime)
    keyring.key_set()
    failures = failure_store(settings, sessions)
    limiter, source_limiter = (
        FailureLimiter(max_failures=most, window=settings.auth_failure_window, store=failures)
        for most in (settings.auth_max_failures, settings.auth_source_max_failures)
    )
    grant = ClientCredentialsGrant(
        query_client=client_lookup(sessions, box),
        scope_table=scopes,
        limiter=limiter,
        issue=_token_issuer(settings, keyring),
        source_limiter=source_limiter,
    )
    revocations = revocations_from_db(sessions, keyring)
    return Runtime(
        settings=settings,
        scopes=scopes,
        verifier=_in_process_verifier(settings, keyring, revocations),
        basic=_in_process_basic(grant),
        engine=engine,
        sessions=sessions,
        box=box,
        keyring=keyring,
        grant=grant,
        limiter=limiter,
        failures=failures,
        revocations=cached_document(revocations, DOCUMENT_MAX_AGE),
        closers=closers,
    )


def _in_process_verifier(
    settings: Settings, keyring: KeyRing, revocations: RevocationSource
) -> TokenVerifier:
    """Verify tokens against the key ring itself and the database's revocation document,
    loaded now: scoring goes on if the database goes away."""
    checker = RevocationChecker(revocations, ttl=settings.revocation_ttl)
    checker.current()
    return TokenVerifier(
        lambda: keyring.key_set(force=True).jwks(),
        issuer=settings.effective_issuer,
        audience=settings.audience,
        cache_ttl=30.0,
        min_refresh_interval=1.0,
        revocations=checker,
    )


def _resource_runtime(
    settings: Settings,
    engine: Engine | None,
    sessions: sessionmaker[Session] | None,
    closers: list[Callable[[], None]],
) -> Runtime:
    """The runtime of a standalone scoring or upload surface: tokens verified with the
    identity server's JWKS and revocation list over HTTP, Basic credentials exchanged
    there."""
    http = httpx.Client(timeout=10.0, follow_redirects=False)
    closers.append(http.close)
    identity_base = settings.identity_url or settings.public_base_url
    verifier = TokenVerifier.from_url(
        settings.jwks_url,
        issuer=settings.effective_issuer,
        audience=settings.audience,
        client=http,
        revocations=RevocationChecker(
            http_jwks_source(
                identity_base + REVOCATIONS_PATH,
                client=http,
                bearer=settings.revocation_secret.get_secret_value()
                if settings.revocation_secret
                else None,
            ),
            ttl=settings.revocation_ttl,
        ),
    )
    return Runtime(
        settings=settings,
        scopes=ScopeTable(settings.scope_prefix),
        verifier=verifier,
        basic=_remote_basic(settings, verifier, http),
        engine=engine,
        sessions=sessions,
        closers=closers,
    )


def kernel_cache_is_cold() -> bool:
    """Whether ``NUMBA_CACHE_DIR`` holds no compiled kernel yet (a first start)."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    return folder is not None and not any(Path(folder).rglob("*.nbi"))


#: seconds a first start's compiling children may take before the server compiles itself
COLD_COMPILE_TIMEOUT = 1800


def compile_cold_kernels() -> None:
    """On a first start, compile the kernels in child processes that write the cache.

    One child per kernel group (:data:`vigil.scoring.warm.WARM_GROUPS`), all at once: the
    groups share no kernel and take about equal compile time, so two cores compile the
    whole scoring path in about the time of its larger half (docs/deployment.md). Numba's
    compiler keeps about 230 MiB in the process that compiles (555 MiB after a cold warm
    start against 326 MiB when loading the same kernels from the cache, measured for the
    memory figure); compiling in short-lived children leaves the server to load the
    kernels from the cache, at its smaller size, for its whole life. A failed or stuck
    child is logged, and the server then compiles what is missing itself.
    """
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if folder is None:
        return
    with _first_start_lock(Path(folder)):  # the other server workers wait, then load
        if kernel_cache_is_cold():
            _compile_in_children()


@contextlib.contextmanager
def _first_start_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (created if missing), so that of the
    ``vigil serve --workers N`` processes starting at once only one compiles."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = open(folder / ".first-start.lock", "a+b")  # closed by the with below
    except OSError:  # a read-only cache (prebuilt image): nothing to guard
        yield
        return
    with lock:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file closes
        yield


def _compile_in_children() -> None:
    """Compile every :data:`~vigil.scoring.warm.WARM_GROUPS` group in a child of its own,
    all at once, and wait for them."""
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        # stderr to files, not pipes: a child writing much while another is awaited
        # must never block on a full pipe
        logs = [stack.enter_context(tempfile.TemporaryFile()) for _ in WARM_GROUPS]
        children = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    f"from vigil.scoring.warm import warm_group; warm_group({g!r})",
                ],
                env=os.environ.copy(),
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
            for g, log in zip(WARM_GROUPS, logs, strict=True)
        ]
        deadline = started + COLD_COMPILE_TIMEOUT
        failed = [_finish_child(c, log, deadline) for c, log in zip(children, logs, strict=True)]
    if not any(failed):
        logger.info(
            "scoring kernels compiled in %.1f s (first start, %d processes)",
            time.perf_counter() - started,
            len(children),
        )


def _finish_child(child: subprocess.Popen[bytes], log: IO[bytes], deadline: float) -> bool:
    """Wait for a compiling child until ``deadline`` (``time.perf_counter``); ``True``
    when it failed or was stopped there (never leave ``/readyz`` waiting on a stuck one).
    ``log`` is the file holding the child's stderr."""
    try:
        child.wait(timeout=max(deadline - time.perf_counter(), 0.0))
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        logger.warning("compiling the kernels in a child took over %d s", COLD_COMPILE_TIMEOUT)
        return True
    if child.returncode != 0:
        log.seek(0)
        tail = log.read()[-2000:].decode(errors="replace")
        logger.warning("compiling the kernels in a child failed: %s", tail)
        return True
    return False


def check_ready(runtime: Runtime) -> list[str]:
    """Problems that make the surface not ready (contract §0 ``/readyz``); empty when ready."""
    problems: list[str] = []
    if not runtime.warm.is_set():
        problems.append("scoring kernels loading (warm start)")
    if runtime.engine is not None:
        try:
            with runtime.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception:  # noqa: BLE001 - any failure means not ready
            problems.append("database unreachable")
    try:
        if runtime.keyring is not None:
            runtime.keyring.key_set()
        elif not runtime.verifier.keys():
            problems.append("no token verification keys")
    except Exception:  # noqa: BLE001
        problems.append("key material unavailable")
    return problems
