"""A small typed Python client of the Vigil API, on httpx.

>>> from vigil.client import VigilClient
>>> with VigilClient("http://127.0.0.1:8000", CLIENT_ID, CLIENT_SECRET) as vigil:  # doctest: +SKIP
...     scores = vigil.score(roster_csv, risk=True)
...     token = vigil.upload(big_roster_csv, name="2026-03")
...     vigil.wait(token, progress=print)
...     with open("scores.json", "wb") as out:
...         for chunk in vigil.stream_results(token):
...             out.write(chunk)

Tokens are cached and reused until shortly before they expire; responses are compressed
(zstd, br or gzip) on the wire and decoded by httpx. Errors raise :class:`VigilError`
with the server's problem document.

Layer 2 of docs/architecture.md. May import: ``contract``; never a package of its own layer
or above.
"""

from vigil.client._client import RosterStatus, Upload, VigilClient, VigilError

__all__ = ["RosterStatus", "Upload", "VigilClient", "VigilError"]
