"""Shared fixtures and markers."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
import pytest
from fastapi import APIRouter

from vigil.datadir import numba_cache_dir, prune_kernel_caches

# no test writes to the real user data directory (state outside the checkout, by
# default ~/.local/share/vigil): unless a test names VIGIL_DATA_DIR, state lands here
# and Numba's cache is kept between runs in the user cache directory, never in the package
# (one folder per version of the kernels' source: vigil.datadir.kernels_key)
if "NUMBA_CACHE_DIR" not in os.environ:
    _TEST_CACHE = numba_cache_dir(Path(platformdirs.user_cache_dir("vigil")) / "tests")
    prune_kernel_caches(_TEST_CACHE)
    os.environ["NUMBA_CACHE_DIR"] = str(_TEST_CACHE)
os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp(prefix="vigil-test-xdg-"))

from vigil.auth.scopes import ScopeKind  # noqa: E402
from vigil.web.deps import Principal, RequireScope  # noqa: E402

DATA_DIR = Path(__file__).parent / "data"


# --- identity / store fixtures -------------------------------------------------


#: the integration PostgreSQL server (127.0.0.1:5432, database ``test``)
PG_SERVER_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite file database for one test."""
    return f"sqlite:///{tmp_path / 'vigil.db'}"


def pg_admin() -> Any:
    """An autocommit admin connection to the test PostgreSQL server.

    Skips the calling test, with the reason, only when the server is unreachable;
    psycopg is a dev dependency, so its absence fails instead.
    """
    import psycopg

    try:
        return psycopg.connect(
            PG_SERVER_URL.replace("+psycopg", ""), connect_timeout=3, autocommit=True
        )
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL at 127.0.0.1:5432/test is unreachable: {exc}")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A uniquely named schema on the test PostgreSQL server, dropped afterwards.

    The URL sets ``search_path`` to the schema, so tables (and ``alembic_version``) land
    there. Skips only when the server is unreachable.
    """
    admin = pg_admin()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield f"{PG_SERVER_URL}?options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", pytest.param("pg", marks=pytest.mark.integration)])
def db_url(request: pytest.FixtureRequest) -> str:
    """Each store/token test runs on SQLite and (marked ``integration``) PostgreSQL."""
    return str(request.getfixturevalue(f"{request.param}_url"))


@contextmanager
def run_server(app: Any, sock: socket.socket) -> Iterator[None]:
    """Serve ``app`` with uvicorn on an already bound loopback socket, in a thread."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    try:
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start (see the log above)")
            time.sleep(0.01)
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def bind_loopback() -> tuple[socket.socket, str]:
    """A listening socket on 127.0.0.1 with a free port, and its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


@dataclass
class LiveService:
    """A running app: its base URL, the app and (identity surfaces) its runtime."""

    base_url: str
    app: Any
    settings: Any

    @property
    def runtime(self) -> Any:
        return self.app.state.vigil

    def create_client(
        self,
        *,
        operator: str = "acme",
        scopes: str = "fatigue risk upload",
        secret: str | None = None,
        client_id: str | None = None,
    ) -> tuple[str, str]:
        """Register a client through the repository; returns ``(client_id, secret)``."""
        from vigil.store import repo

        with self.runtime.sessions.begin() as session:
            client, plain = repo.create_api_client(
                session=session,
                box=self.runtime.box,
                operator=operator,
                scopes=scopes,
                secret=secret,
                client_id=client_id,
            )
            return client.client_id, plain


def _probe_endpoint(kind: ScopeKind) -> Any:
    required = RequireScope(kind)

    def endpoint(principal: Principal = required) -> dict[str, Any]:
        return {
            "client_id": principal.client_id,
            "operator": principal.operator,
            "scopes": sorted(principal.scopes),
            "via": principal.via,
        }

    return endpoint


def probe_router() -> APIRouter:
    """Routes ``/probe/{kind}`` guarded by ``RequireScope(kind)``, echoing the Principal."""
    router = APIRouter()
    for kind in ScopeKind:
        router.add_api_route(f"/probe/{kind.value}", _probe_endpoint(kind), methods=["GET"])
    return router


@contextmanager
def live_service(
    tmp_path: Path,
    database_url: str | None,
    *,
    identity: bool = True,
    routers: Sequence[Any] = (),
    **overrides: Any,
) -> Iterator[LiveService]:
    """Build settings for a free loopback port, then serve a surface app there."""
    from vigil.config.settings import Settings
    from vigil.web.app import IDENTITY_ROUTERS, make_surface_app

    sock, base = bind_loopback()
    values: dict[str, Any] = {
        "public_base_url": base,
        "data_dir": str(tmp_path),
        "auth_failure_delay": 0,
        "warm_start": False,  # tests of the warm start set it
    }
    if database_url is not None:
        values["database_url"] = database_url
    values.update(overrides)
    settings = Settings.from_mapping(values)
    all_routers = [*(IDENTITY_ROUTERS if identity else ()), *routers]
    app = make_surface_app(settings, title="test", routers=all_routers, identity=identity)
    with run_server(app, sock):
        yield LiveService(base, app, settings)


@pytest.fixture
def identity(tmp_path: Path, db_url: str) -> Iterator[LiveService]:
    """The identity surface plus probe routes, on SQLite and PostgreSQL."""
    with live_service(tmp_path, db_url, routers=[probe_router()]) as service:
        yield service


@pytest.fixture
def identity_sqlite(tmp_path: Path, sqlite_url: str) -> Iterator[LiveService]:
    """The identity surface plus probe routes, SQLite only (for tests not about storage)."""
    with live_service(tmp_path, sqlite_url, routers=[probe_router()]) as service:
        yield service


@pytest.fixture
def embedded_service(tmp_path: Path) -> Iterator[LiveService]:
    """The embedded app (identity, scoring, upload with an in-thread worker, console), SQLite."""
    from vigil.web.app import EMBEDDED_ROUTERS, _load_router

    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    routers = [_load_router(spec) for spec in EMBEDDED_ROUTERS]
    with live_service(
        tmp_path, url, routers=routers, worker_processes=0, worker_poll_interval=0.2
    ) as live:
        yield live
