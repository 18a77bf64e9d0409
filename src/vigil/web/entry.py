"""Process entry points for the ASGI surfaces (contract §0), used by ``vigil serve``.

``vigil serve`` runs :func:`app_from_env` as a uvicorn factory, so every worker process
builds its app from the same environment (``VIGIL_*`` variables, the optional env file
named by ``VIGIL_ENV_FILE``, and ``VIGIL_SURFACE`` choosing the surface).
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from vigil import config
from vigil.config.settings import Settings
from vigil.datadir import use_numba_cache
from vigil.web.app import create_app, create_identity_app, make_surface_app


def create_scoring_app(settings: Settings) -> FastAPI:
    """The scoring surface alone (``{base_url}``): ProcessFatigue, ProcessFatigueRisk.

    It verifies tokens with the identity server's JWKS (``VIGIL_IDENTITY_URL``) and never
    opens the identity database (contract §0).
    """
    from vigil.web.routes import processor

    return make_surface_app(
        settings, title="Vigil scoring", routers=[processor.router], identity=False
    )


def create_upload_app(settings: Settings) -> FastAPI:
    """The upload surface alone (``{upload_url}``): UploadRoster, GetResults, DeleteRoster,
    ListRosters, plus the in-process worker pool. Tokens are verified with the identity
    server's JWKS; it needs the roster database (contract §0, §5).
    """
    from vigil.web.routes import upload

    return make_surface_app(
        settings, title="Vigil upload", routers=[upload.router], identity=False, needs_db=True
    )


#: ``vigil serve --only`` choices; "all" is the embedded default
SURFACES: dict[str, Callable[[Settings], FastAPI]] = {
    "all": create_app,
    "identity": create_identity_app,
    "scoring": create_scoring_app,
    "upload": create_upload_app,
}


def app_from_env() -> FastAPI:
    """Build the surface named by ``VIGIL_SURFACE`` (default ``all``) from the environment."""
    surface = config.surface()
    if surface not in SURFACES:
        raise ValueError(
            f"{config.SURFACE.name} must be one of {', '.join(SURFACES)}, not {surface!r}"
        )
    settings = Settings.from_env(config.env_file())
    # another ASGI server than `vigil serve`: still never cache kernels into the package
    # (a no-op when NUMBA_CACHE_DIR is set, as `vigil` does before Numba is imported)
    use_numba_cache(settings.data_dir)
    return SURFACES[surface](settings)
