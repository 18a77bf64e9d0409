"""vigil.web: the HTTP service (FastAPI), in layers (docs/architecture.md, "Web").

Owns, top to bottom: the surfaces and their app factory (:mod:`.app`, :mod:`.entry`,
:mod:`.server`); the routes (:mod:`.routes`) and the console's pages (:mod:`.console`),
which never import one another; the application layer they call
(:mod:`.operator_context`, :mod:`.stored_results`, :mod:`.calibration_service`),
which resolves the operator's scoring context and calls the services; the middleware
stack, built in one place (:mod:`.middleware`); the runtime a surface builds at start
(:mod:`._runtime`) and its typed per-process state (:mod:`.runtime_state`). The
configuration comes from :mod:`vigil.config`.

Layer 9 of docs/architecture.md. May import: ``auth``, ``calibration``, ``config``,
``contract``, ``datadir``, ``domain``, ``fleet``, ``model``, ``optimise``, ``planner``,
``results``, ``roster``, ``scoring``, ``settings``, ``store``, ``worker``; never a package
of its own layer or above.
"""

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
