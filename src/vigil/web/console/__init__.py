"""The operator console (contract §6): server-rendered pages at ``/console``.

Mounted through ``vigil.web.console.routes:router`` in ``EMBEDDED_ROUTERS``. See
docs/console.md.
"""
