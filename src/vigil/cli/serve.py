"""``vigil serve``: run the service (contract §0, §7).

With no flags it serves every surface on ``http://127.0.0.1:8000`` with SQLite in the
data directory (``VIGIL_DATA_DIR``, default the user data directory, never the working
directory) and, on first start, creates and prints a bootstrap API client of the operator
``default`` holding all three scopes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from vigil.config import pass_to_server_processes

if TYPE_CHECKING:
    from vigil.config.settings import Settings


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to the CLI."""
    app.command("serve")(serve_command)


def _bootstrap(settings: Settings, operator: str) -> tuple[str, str] | None:
    """Create the first API client if the database has none; returns (id, secret)."""
    from vigil.store import repo
    from vigil.store.crypto import SecretBox
    from vigil.store.db import make_engine, make_session_factory, upgrade

    engine = make_engine(settings.database_url)
    try:
        upgrade(engine)
        secret = settings.secret_key.get_secret_value() if settings.secret_key else None
        box = SecretBox.from_config(secret, settings.effective_secret_key_file)
        with make_session_factory(engine).begin() as session:
            created = repo.ensure_bootstrap_client(
                session=session, box=box, operator=operator, scopes="fatigue risk upload"
            )
            if created is None:
                return None
            client, plain = created
            return client.client_id, plain
    finally:
        engine.dispose()


def serve_command(
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes.")] = 1,
    only: Annotated[
        str,
        typer.Option("--only", help="Serve one surface alone: identity, scoring or upload."),
    ] = "all",
    env_file: Annotated[
        Path | None, typer.Option("--env-file", help="File of VIGIL_* settings.")
    ] = None,
    bootstrap_operator: Annotated[
        str, typer.Option("--bootstrap-operator", help="Operator of the first-start client.")
    ] = "default",
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            help="Reverse proxies (comma-separated IPs or networks, * for any) whose "
            "X-Forwarded-For names the client; default VIGIL_FORWARDED_ALLOW_IPS, else none.",
        ),
    ] = None,
) -> None:
    """Serve Vigil: identity, scoring and upload surfaces (all on one port by default)."""
    from vigil.config.settings import Settings
    from vigil.web.entry import SURFACES

    if only not in SURFACES:
        raise typer.BadParameter(f"one of {', '.join(s for s in SURFACES if s != 'all')}")
    if env_file is not None and not env_file.is_file():
        raise typer.BadParameter(f"{env_file} does not exist", param_hint="--env-file")
    pass_to_server_processes(
        os.environ,
        surface=only,
        env_file=env_file,
        public_base_url=f"http://{host}:{port}",
        forwarded_allow_ips=forwarded_allow_ips,
    )
    settings = Settings.from_env(env_file)
    _use_data_dir(settings)
    if only in ("all", "identity"):
        _first_start_client(settings, bootstrap_operator)
    typer.echo(f"Data directory: {settings.data_dir}")
    typer.echo(f"Serving {only} on http://{host}:{port} (docs at /docs)")
    _run_server(settings, host=host, port=port, workers=workers)


def _run_server(settings: Settings, *, host: str, port: int, workers: int) -> None:
    """Run uvicorn; each worker process builds its app from the environment
    (``vigil.web.entry.app_from_env``)."""
    import uvicorn

    from vigil.web.server import uvicorn_options

    uvicorn.run(
        "vigil.web.entry:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_config=log_config(),
        access_log=False,  # ours (vigil.access) never logs query strings or credentials
        proxy_headers=trusted_proxies(settings.forwarded_allow_ips) is not None,
        forwarded_allow_ips=trusted_proxies(settings.forwarded_allow_ips),
        timeout_graceful_shutdown=30,
        **uvicorn_options(settings),  # header/body timeouts, sizes, keep-alive, concurrency
    )


def _first_start_client(settings: Settings, operator: str) -> None:
    """Create the first API client when the database has none, and print its secret once;
    exit 1 when the secret box cannot be opened (e.g. a key file others can read)."""
    from vigil.store.crypto import SecretBoxError

    try:
        created = _bootstrap(settings, operator)
    except SecretBoxError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
    if created is None:
        return
    client_id, secret = created
    typer.echo(f"First start: created an API client of operator {operator!r} holding every scope.")
    typer.echo(f"  client_id:     {client_id}")
    typer.echo(f"  client_secret: {secret}")
    typer.echo(f"  token URL:     {settings.public_base_url}/connect/token")
    typer.echo("Keep the secret safe; `vigil client list` and the console show clients.")


def trusted_proxies(allow_ips: str | None) -> str | None:
    """uvicorn's ``forwarded_allow_ips``, or ``None`` for no proxy (``proxy_headers`` off).

    ``X-Forwarded-For`` (and ``-Proto``) are trusted from ``allow_ips`` only and ignored
    altogether when none are named, so a client that reaches the server directly cannot
    choose the address its failures count against.
    """
    if not allow_ips or not allow_ips.strip():
        return None
    return allow_ips.strip()


def _use_data_dir(settings: Settings) -> None:
    """Create the data directory (0700) and keep Numba's cache in it.

    ``vigil``'s entry point already pointed ``NUMBA_CACHE_DIR`` at the default data
    directory; an env file may have moved the data directory since, so follow it unless
    the variable was set by the user.
    """
    from vigil.config import default_data_dir
    from vigil.datadir import numba_cache_dir, prune_kernel_caches

    settings.ensure_data_dir()
    current = os.environ.get("NUMBA_CACHE_DIR")
    if current is None or current == str(numba_cache_dir(default_data_dir())):
        cache = numba_cache_dir(settings.data_dir)
        prune_kernel_caches(cache)
        os.environ["NUMBA_CACHE_DIR"] = str(cache)


def log_config() -> dict[str, object]:
    """Uvicorn's logging configuration plus the ``vigil`` loggers at INFO."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["vigil"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config
