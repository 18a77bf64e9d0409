"""Service configuration (STYLE §3.10): built by the entry point and passed down.

Every field reads from ``VIGIL_<NAME>`` (e.g. ``VIGIL_DATABASE_URL``) and optionally an
env file. Nothing here runs at import time. Tests build settings from an explicit
mapping with :meth:`Settings.from_mapping`, which ignores the process environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from vigil import datadir
from vigil.datadir import ENV_PREFIX, default_data_dir


class Settings(BaseSettings):
    """All settings, with their defaults (contract §0, §1, §3, §8)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", frozen=True, case_sensitive=False
    )

    #: SQLAlchemy URL; ``postgresql://...`` uses psycopg 3; default
    #: ``sqlite:///{data_dir}/vigil.db``
    database_url: str = ""
    #: ``{op}`` in scope names (contract §8)
    scope_prefix: str = Field(default="svc", pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,30}$")
    #: access-token lifetime [s] (contract §1; ours: at most one day)
    token_lifetime: int = Field(default=3600, ge=60, le=86_400)
    #: ``aud`` of issued tokens, checked by the resource surfaces
    audience: str = "vigil"
    #: where clients reach this deployment
    public_base_url: str = "http://127.0.0.1:8000"
    #: ``iss``; default: ``public_base_url`` without a trailing slash
    issuer: str | None = None
    #: identity server base URL for a standalone scoring/upload surface (JWKS over HTTP);
    #: ``None`` means the identity surface runs in the same process
    identity_url: str | None = None
    #: Fernet key(s) for secrets at rest (comma-separated; first encrypts)
    secret_key: SecretStr | None = None
    #: key file used when ``secret_key`` is unset; default ``{data_dir}/secret.key``
    secret_key_file: Path | None = None
    #: directory for local state: SQLite database, key file, Numba cache; default
    #: the platform's user data directory (``~/.local/share/vigil`` on Linux)
    data_dir: Path = Field(default_factory=default_data_dir)
    #: largest request body [bytes] (contract §3: 10 MiB)
    max_body_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    #: largest UploadRoster body [bytes] (ours: bulk rosters, e.g. 10,000 crew x 28 days
    #: is 16 MiB of JSON; contract §3's 10 MiB is for synchronous calls)
    max_upload_bytes: int = Field(default=128 * 1024 * 1024, ge=1024)
    #: connection limits of ``vigil serve`` (docs/deployment.md): largest request
    #: head [bytes] (431 beyond), time for a whole request head [s] (408 beyond), body
    #: progress window [s] and least body rate over it [bytes/s] (408 and close below),
    #: idle keep-alive [s], most concurrent connections/requests per process (503 beyond),
    #: listen backlog
    max_header_bytes: int = Field(default=64 * 1024, ge=1024)
    header_timeout: float = Field(default=10.0, gt=0)
    body_timeout: float = Field(default=10.0, gt=0)
    body_min_rate: int = Field(default=1024, ge=0)
    keep_alive_timeout: int = Field(default=5, ge=1)
    limit_concurrency: int = Field(default=1024, ge=1)
    backlog: int = Field(default=2048, ge=1)
    #: addresses of reverse proxies whose ``X-Forwarded-For`` gives the client's address
    #: (uvicorn's ``forwarded_allow_ips``: comma-separated IPs or networks, ``*`` for any;
    #: unset: the TCP peer is the client, forwarding headers are ignored). Failure limits
    #: count per client address, so behind a proxy this must name the proxy
    #: (docs/deployment.md), or every client shares the proxy's allowance
    forwarded_allow_ips: str | None = None
    #: smallest response body compressed when the client accepts zstd, br or gzip [bytes]
    compress_min_bytes: int = Field(default=1024, ge=0)
    #: most roster rows on a synchronous scoring call (contract §3)
    sync_row_limit: int = Field(default=50_000, ge=1)
    #: most simulated crew-days on a synchronous scoring call (413 beyond): bounds one
    #: call's CPU whatever its rows say (vigil.scoring.cost); 50,000 rows of monthly
    #: rosters are about 80,000
    sync_max_crew_days: float = Field(default=100_000, gt=0)
    #: synchronous scoring calls one operator may have running in the thread pool at once,
    #: per process, and waiting for one of those places (429 beyond)
    scoring_concurrency_per_operator: int = Field(default=2, ge=1)
    scoring_queue_per_operator: int = Field(default=64, ge=0)
    #: calibration (docs/calibration.md): ratings one observation set may hold (a report's
    #: cost and memory grow with them; 400 beyond) and sets one operator may store (409)
    max_observation_ratings: int = Field(default=50_000, ge=1)
    max_observation_sets_per_operator: int = Field(default=100, ge=1)
    #: brute-force protection (contract §8)
    auth_max_failures: int = Field(default=10, ge=1)
    auth_failure_window: float = Field(default=300.0, gt=0)
    #: delay added per recent failure before answering a failed token request [s] (ours)
    auth_failure_delay: float = Field(default=0.1, ge=0)
    #: failed client authentications from one source address (any client ID) inside
    #: ``auth_failure_window`` before that address is refused
    auth_source_max_failures: int = Field(default=100, ge=1)
    #: failed console sign-ins per source address and username, and per source address,
    #: inside ``console_failure_window`` before that address is refused
    console_max_failures: int = Field(default=10, ge=1)
    console_source_max_failures: int = Field(default=20, ge=1)
    console_failure_window: float = Field(default=300.0, gt=0)
    #: password checks (argon2id, ~64 MiB and ~0.25 s each) running at once per process;
    #: ``None``: one per CPU core
    argon2_concurrency: int | None = Field(default=None, ge=1)
    #: sign-ins allowed to wait for a password-check slot; more answer 503
    argon2_queue: int = Field(default=4, ge=0)
    #: longest wait for a password-check slot before 503 [s]
    argon2_wait: float = Field(default=2.0, gt=0)
    #: how long a verifier uses one revocation list [s]; revocation reaches every
    #: surface within this plus 5 s (docs/identity.md)
    revocation_ttl: float = Field(default=15.0, gt=0, le=55)
    #: shared secret that opens ``/connect/revocations``: standalone scoring and upload
    #: surfaces send it as a bearer token; unset on the identity server: the list is not
    #: served over HTTP (the embedded server reads it from its database). The list tells
    #: which clients were rotated or disabled, so only the token verifiers may read it
    revocation_secret: SecretStr | None = None
    #: Redis for the failure counters shared by processes and hosts (``redis://…``);
    #: unset: the database holds them
    redis_url: str | None = None
    #: run Alembic migrations at start
    migrate_on_start: bool = True
    #: load the scoring kernels at start, before ``/readyz`` answers 200
    warm_start: bool = True
    #: upload path (docs/upload.md): Dask scheduler address (``tcp://host:8786``);
    #: unset means every roster is scored on this machine
    dask_scheduler: str | None = None
    #: most rosters one operator may have queued or processing; more → 429; 0: no
    #: limit. With fair claims (docs/upload.md) this bounds the queue one tenant can build
    max_queued_per_operator: int = Field(default=500, ge=0)
    #: mutual TLS to the Dask scheduler (docs/deployment.md): CA, client certificate
    #: and key (PEM files; all three, with a ``tls://`` scheduler address); unset: Dask's config
    dask_tls_ca: Path | None = None
    dask_tls_cert: Path | None = None
    dask_tls_key: Path | None = None
    #: schedules per chunk when a roster is split for processes or Dask (ours)
    dask_chunk_size: int = Field(default=500, ge=1)
    #: delete finished rosters this many days after they finished; 0 keeps them (ours:
    #: 90 days, a quarter's look-back, docs/upload.md "Retention")
    retention_days: int = Field(default=90, ge=0)
    #: threads claiming uploaded rosters inside the server process; 0: no in-process pool
    worker_threads: int = Field(default=1, ge=0)
    #: local scoring processes per worker; ``None``: one per CPU; 0: score in the thread
    worker_processes: int | None = Field(default=None, ge=0)
    #: a worker's lease on a roster [s] (contract §8: 60), renewed every third of it
    lease_seconds: float = Field(default=60.0, gt=0)
    #: how often an idle worker looks for queued rosters [s]
    worker_poll_interval: float = Field(default=1.0, gt=0)

    @field_validator("public_base_url", "identity_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @model_validator(mode="after")
    def _default_database(self) -> Settings:
        if not self.database_url:
            object.__setattr__(self, "database_url", f"sqlite:///{self.data_dir / 'vigil.db'}")
        return self

    def ensure_data_dir(self) -> Path:
        """Create the data directory (owner-only, 0700) if missing; returns it."""
        return datadir.ensure_data_dir(self.data_dir)

    @property
    def effective_issuer(self) -> str:
        """The ``iss`` value, byte-identical in tokens and discovery (contract §1)."""
        return self.issuer or self.public_base_url

    @property
    def effective_secret_key_file(self) -> Path:
        return self.secret_key_file or self.data_dir / "secret.key"

    @property
    def jwks_url(self) -> str:
        """Where a standalone resource surface fetches the identity server's keys."""
        base = self.identity_url or self.public_base_url
        return f"{base}/.well-known/openid-configuration/jwks"

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Settings:
        """Settings from ``values`` only (keys with or without ``VIGIL_``, any case)."""
        clean = {}
        for key, value in values.items():
            name = key.upper().removeprefix(ENV_PREFIX).lower()
            clean[name] = value
        return _ExplicitSettings(**clean)

    @classmethod
    def from_env(cls, env_file: str | Path | None = None) -> Settings:
        """Settings from the process environment and, if given, an env file."""
        return cls(_env_file=env_file)  # type: ignore[call-arg]


class _ExplicitSettings(Settings):
    """Settings read from init arguments only (no environment, no env file)."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)
