"""The airport tables of :mod:`vigil.tz` are those of ``airportsdata``.

:func:`vigil.tz._tables` reads the airport file once and re-keys it for IATA and FAA
LID; the library's own loader, reading the file for each key, is the reference.
"""

from __future__ import annotations

import airportsdata

from vigil import tz


def test_iata_and_lid_tables_match_the_librarys_own_loader() -> None:
    icao, iata, lid = tz._tables()
    assert icao == airportsdata.load("ICAO")
    for mine, key in ((iata, "IATA"), (lid, "LID")):
        reference = airportsdata.load(key)
        assert mine == reference
        assert list(mine) == list(reference)  # same order, so the same row wins
