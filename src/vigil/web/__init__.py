"""HTTP adapters (FastAPI): thin routes over ``auth``, ``store`` and ``scoring``."""

from vigil.config.settings import Settings
from vigil.web.app import create_app, create_identity_app, make_surface_app
from vigil.web.deps import Principal, RequireScope, SessionDep

__all__ = [
    "Principal",
    "RequireScope",
    "SessionDep",
    "Settings",
    "create_app",
    "create_identity_app",
    "make_surface_app",
]
