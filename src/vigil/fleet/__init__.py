"""Fleet view: where the fatigue is in a whole roster.

Pure figures from a roster's stored scores (:mod:`vigil.results.compact`) and its text,
parsed once: the per-duty table (:mod:`.table`), the dashboard summary (:mod:`.summary`),
evidence-based risk bands (:mod:`.bands`), the stored summary (:mod:`.stored`) and the
CSV / XLSX / PDF reports (:mod:`.export_csv`, :mod:`.export_xlsx`, :mod:`.export_pdf`).
Nothing here imports the web layer.

Layer 8 of docs/architecture.md. May import: ``contract``, ``domain``, ``model``,
``plot_text``, ``results``, ``roster``, ``scoring``, ``settings``, ``store``, ``tz``; never
a package of its own layer or above.
"""
