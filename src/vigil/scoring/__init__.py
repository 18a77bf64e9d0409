"""vigil.scoring: the one path from a request to scores (contract §3, §4).

Owns: the scoring request and its options (:mod:`.request`), the operator's scoring
context (:mod:`.context`: parameters, airports, blank-cell defaults, settings version),
planning duties and sleep into model arrays (:mod:`.plan`, :mod:`.predict`,
:mod:`.grid`), the service that runs the model (:mod:`.service`), per-duty risk
(:mod:`.duty_risk`), the response builder (:mod:`.report`) and the kernels' warm-up.

Layer 5 of docs/architecture.md. May import: ``contract``, ``domain``, ``model``,
``roster``, ``settings``, ``tz``; never a package of its own layer or above.
"""
