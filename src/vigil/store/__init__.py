"""vigil.store: persistence (SQLAlchemy 2 typed ORM, Alembic migrations); knows no HTTP.

Owns: the tables (:mod:`.tables`) and every SQL statement: uploads and their queue
(:mod:`.uploads`), stored results' rows (:mod:`.results`), operator settings versions
(:mod:`.operator_settings`), identity (:mod:`.repo`), the hazard log (:mod:`.hazards`),
the failure counters (:mod:`.failures`, database or Redis) and secrets at rest
(:mod:`.crypto`).

Layer 7 of docs/architecture.md. May import: ``auth``, ``contract``, ``scoring``,
``settings``; never a package of its own layer or above.
"""

from vigil.store.crypto import SecretBox
from vigil.store.db import Base, make_engine, make_session_factory, upgrade

__all__ = ["Base", "SecretBox", "make_engine", "make_session_factory", "upgrade"]
