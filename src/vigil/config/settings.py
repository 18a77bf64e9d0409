"""The service's settings (STYLE §3.10): built by the entry point and passed down.

Every field reads from ``VIGIL_<NAME>`` (e.g. ``VIGIL_DATABASE_URL``) and optionally an
env file; each field's ``description`` is its line in the README's configuration
table (:mod:`vigil.config.reference`). Nothing here runs at import time. Tests build
settings from an explicit mapping with :meth:`Settings.from_mapping`, which ignores the
process environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from vigil import datadir
from vigil.config import ENV_PREFIX, default_data_dir

__all__ = ["Settings"]


class Settings(BaseSettings):
    """All settings, with their defaults (contract §0, §1, §3, §8)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", frozen=True, case_sensitive=False
    )

    # --- storage and identity --------------------------------------------------------------
    database_url: str = Field(
        default="",
        description="SQLAlchemy URL; `postgresql://...` uses psycopg 3; empty: "
        "`sqlite:///{data_dir}/vigil.db`",
    )
    data_dir: Path = Field(
        default_factory=default_data_dir,
        description="local state: database, secret key, Numba cache (`numba-cache/`; "
        "`NUMBA_CACHE_DIR` overrides), created 0700",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Fernet key(s) for secrets at rest (comma-separated; the first encrypts)",
    )
    secret_key_file: Path | None = Field(
        default=None,
        description="key file used when `secret_key` is unset (created, mode 0600); default "
        "`{data_dir}/secret.key`",
    )
    migrate_on_start: bool = Field(default=True, description="run Alembic migrations at start")
    scope_prefix: str = Field(
        default="svc",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,30}$",
        description="`{op}` in scope names `{op}_fast_safe_api`, `{op}_fast_safe_risk_api`, "
        "`{op}_safe_upload_api` (contract §8)",
    )
    token_lifetime: int = Field(
        default=3600,
        ge=60,
        le=86_400,
        description="access-token lifetime [s] (contract §1; ours: at most one day)",
    )
    audience: str = Field(
        default="vigil", description="`aud` of issued tokens, checked by the resource surfaces"
    )
    public_base_url: str = Field(
        default="http://127.0.0.1:8000",
        description="where clients reach the service, and the tokens' `iss`; `vigil serve` "
        "sets `http://HOST:PORT` when unset",
    )
    issuer: str | None = Field(
        default=None, description="`iss`; default: `public_base_url` without a trailing slash"
    )
    identity_url: str | None = Field(
        default=None,
        description="identity server base URL for a standalone scoring/upload surface (JWKS "
        "over HTTP); unset: the identity server runs in the same process",
    )
    revocation_ttl: float = Field(
        default=15.0,
        gt=0,
        le=55,
        description="how long a verifier uses one revocation list [s]; revocation reaches "
        "every surface within this plus 5 s (docs/identity.md)",
    )
    revocation_secret: SecretStr | None = Field(
        default=None,
        description="shared secret that opens `/connect/revocations` (the list of rotated "
        "or disabled clients): standalone scoring and upload surfaces send it as a bearer "
        "token; unset on the identity server: the list is not served over HTTP",
    )
    redis_url: str | None = Field(
        default=None,
        description="Redis for the failure counters shared by processes and hosts "
        "(`redis://…`, `pip install 'vigil-fatigue[redis]'`); unset: the database holds them",
    )
    warm_start: bool = Field(
        default=True,
        description="load the scoring kernels at start; `/readyz` is 503 until done",
    )

    # --- request limits ----------------------------------------------------------------------
    max_body_bytes: int = Field(
        default=10 * 1024 * 1024,
        ge=1024,
        description="largest request body [bytes] (contract §3: 10 MiB); 413 beyond",
    )
    max_upload_bytes: int = Field(
        default=128 * 1024 * 1024,
        ge=1024,
        description="largest UploadRoster body [bytes] (ours: 10,000 crew x 28 days is 16 MiB "
        "of JSON); the console's upload form takes this plus 1 MiB",
    )
    max_header_bytes: int = Field(
        default=64 * 1024,
        ge=1024,
        description="largest request head [bytes] (`vigil serve`); 431 beyond",
    )
    header_timeout: float = Field(
        default=10.0, gt=0, description="time for a whole request head [s]; 408 beyond"
    )
    body_timeout: float = Field(
        default=10.0, gt=0, description="window over which a body must progress [s]"
    )
    body_min_rate: int = Field(
        default=1024,
        ge=0,
        description="least body rate over `body_timeout` [bytes/s]; 408 and close below",
    )
    keep_alive_timeout: int = Field(default=5, ge=1, description="idle keep-alive [s]")
    limit_concurrency: int = Field(
        default=1024,
        ge=1,
        description="most concurrent connections and requests per process; 503 beyond",
    )
    backlog: int = Field(default=2048, ge=1, description="listen backlog of `vigil serve`")
    forwarded_allow_ips: str | None = Field(
        default=None,
        description="reverse proxies whose `X-Forwarded-For` names the client (comma-separated "
        "IPs or networks, `*` for any; `vigil serve --forwarded-allow-ips`); unset: the TCP "
        "peer is the client. Failure limits count per client address, so behind a proxy this "
        "must name the proxy",
    )
    compress_min_bytes: int = Field(
        default=1024,
        ge=0,
        description="smallest response body compressed when the client accepts zstd, br or "
        "gzip [bytes]",
    )

    # --- synchronous scoring -----------------------------------------------------------------
    sync_row_limit: int = Field(
        default=50_000,
        ge=1,
        description="most roster rows on a synchronous scoring call; 413 beyond (use the "
        "upload API)",
    )
    sync_max_crew_days: float = Field(
        default=100_000,
        gt=0,
        description="most simulated crew-days on a synchronous scoring call (413 beyond): "
        "bounds one call's CPU whatever its rows say; 50,000 rows of monthly rosters are "
        "about 80,000",
    )
    scoring_concurrency_per_operator: int = Field(
        default=2,
        ge=1,
        description="synchronous scoring calls one operator may have running in the thread "
        "pool at once, per process",
    )
    scoring_queue_per_operator: int = Field(
        default=64,
        ge=0,
        description="synchronous scoring calls one operator may have waiting for a place, "
        "per process; 429 beyond",
    )

    # --- calibration -------------------------------------------------------------------------
    max_observation_ratings: int = Field(
        default=50_000, ge=1, description="ratings one observation set may hold; 400 beyond"
    )
    max_observation_sets_per_operator: int = Field(
        default=100, ge=1, description="observation sets one operator may store; 409 beyond"
    )

    # --- brute-force protection (contract §8) --------------------------------------------------
    auth_max_failures: int = Field(
        default=10,
        ge=1,
        description="failed client authentications per source address and client ID inside "
        "`auth_failure_window` before that address gets 429 + `Retry-After` (the owner "
        "elsewhere is never refused)",
    )
    auth_failure_window: float = Field(
        default=300.0, gt=0, description="window of the client failure counts [s]"
    )
    auth_failure_delay: float = Field(
        default=0.1,
        ge=0,
        description="seconds added to a failed token answer per recent failure of that "
        "client ID (at most 2 s)",
    )
    auth_source_max_failures: int = Field(
        default=100,
        ge=1,
        description="failed client authentications from one source address (any client ID) "
        "inside `auth_failure_window` before that address is refused",
    )
    console_max_failures: int = Field(
        default=10,
        ge=1,
        description="failed console sign-ins per source address and username inside "
        "`console_failure_window` before that pair is refused",
    )
    console_source_max_failures: int = Field(
        default=20,
        ge=1,
        description="failed console sign-ins per source address (any username) inside "
        "`console_failure_window` before that address is refused",
    )
    console_failure_window: float = Field(
        default=300.0, gt=0, description="window of the console's failure counts [s]"
    )
    argon2_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="password checks (argon2id, ~64 MiB and ~0.25 s each) running at once "
        "per process; unset: one per CPU core",
    )
    argon2_queue: int = Field(
        default=4,
        ge=0,
        description="sign-ins allowed to wait for a password-check slot; more answer 503",
    )
    argon2_wait: float = Field(
        default=2.0, gt=0, description="longest wait for a password-check slot before 503 [s]"
    )

    # --- uploads and the worker (docs/upload.md) ---------------------------------------------
    max_queued_per_operator: int = Field(
        default=500,
        ge=0,
        description="rosters one operator may have queued or processing (429 beyond); 0: no limit",
    )
    retention_days: int = Field(
        default=90,
        ge=0,
        description="delete finished rosters this many days after they finished; 0 keeps "
        'them (docs/upload.md "Retention")',
    )
    worker_threads: int = Field(
        default=1,
        ge=0,
        description="threads claiming uploaded rosters inside the server process; 0: no "
        "in-process pool (run `vigil worker`)",
    )
    worker_processes: int | None = Field(
        default=None,
        ge=0,
        description="local scoring processes per worker; unset: one per CPU; 0: score in "
        "the claiming thread",
    )
    lease_seconds: float = Field(
        default=60.0,
        gt=0,
        description="a worker's lease on a roster [s] (contract §8: 60), renewed every third of it",
    )
    worker_poll_interval: float = Field(
        default=1.0, gt=0, description="how often an idle worker looks for queued rosters [s]"
    )
    dask_scheduler: str | None = Field(
        default=None,
        description="Dask scheduler address (`tcp://host:8786`, `tls://…`); unset: every "
        "roster is scored on this machine",
    )
    dask_chunk_size: int = Field(
        default=500,
        ge=1,
        description="schedules per chunk when a roster is split for processes or Dask",
    )
    dask_tls_ca: Path | None = Field(
        default=None,
        description="mutual TLS to the Dask scheduler: the CA's certificate (PEM; all three "
        "`dask_tls_*` with a `tls://` address); unset: Dask's own configuration",
    )
    dask_tls_cert: Path | None = Field(
        default=None, description="mutual TLS to Dask: this worker's client certificate (PEM)"
    )
    dask_tls_key: Path | None = Field(
        default=None, description="mutual TLS to Dask: this worker's private key (PEM)"
    )

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
