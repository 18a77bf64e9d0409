"""Alembic environment: runs against the engine handed over by ``vigil.store.db.upgrade``.

``render_as_batch`` is on for SQLite so ``ALTER`` steps work there (contract: migrations
run on SQLite and PostgreSQL). Logging is left to the host application.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine

from vigil.store.db import make_engine
from vigil.store.tables import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = config.attributes.get("engine")
    if not isinstance(engine, Engine):
        engine = make_engine(str(config.get_main_option("sqlalchemy.url")))
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
