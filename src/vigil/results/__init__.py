"""vigil.results: the stored results of an uploaded roster, as bytes and back.

It owns the storage formats and their readers and writers: the scores blob
(:mod:`~vigil.results.compact`, the index and float32 matrix; :mod:`~vigil.results.frames`,
the chunk tasks' compressed frames joined without decoding), the sleep segment
(:mod:`~vigil.results.stored_sleep`) and the route facts (:mod:`~vigil.results.routes`).
The upload worker writes them and fleet, the routes and the console read them; neither
the worker nor fleet imports the other.

Layer 6 of docs/architecture.md. May import: ``contract``, ``domain``, ``model``,
``roster``, ``scoring``; never a package of its own layer or above.
"""
