"""vigil.worker: the upload worker (contract §5, §8; docs/upload.md).

Owns: claiming queued rosters with a lease, fairly across operators (:mod:`.jobs`),
cutting a roster into chunk tasks (:mod:`.split`, :mod:`.tasks`), scoring them inline, in
processes or on Dask (:mod:`.scorers`, :mod:`.dask`), storing the results through
:mod:`vigil.results` and :mod:`vigil.store` (:mod:`.roster_job`), the pool and its loop
(:mod:`.run`), and the summariser thread (:mod:`.summaries`, handed fleet's summary
function by the service: the worker never imports fleet).

Layer 8 of docs/architecture.md. May import: ``config``, ``contract``, ``domain``,
``gc_pause``, ``results``, ``roster``, ``scoring``, ``store``; never a package of its own
layer or above.
"""
