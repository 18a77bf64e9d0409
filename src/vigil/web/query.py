"""Whole numbers from query strings, checked before any conversion.

``str.isdigit`` accepts ``²`` and ``str.isdecimal`` Arabic-Indic digits, ``int`` refuses
texts over 4,300 digits, and a database integer holds at most 2⁶³ − 1: each was a 500
for some query string. :func:`whole_number` accepts ASCII digits only, at most 18 of them
(below 2⁶³), so a caller can answer anything else with a 400 naming the parameter.
"""

from __future__ import annotations

import re

__all__ = ["MAX_DIGITS", "whole_number"]

#: digits a query number may have: 10¹⁸ − 1 < 2⁶³ − 1 (SQL BIGINT), far above any count
MAX_DIGITS = 18
_WHOLE = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")


def whole_number(text: str, *, least: int = 0) -> int | None:
    """``text`` (spaces around it ignored) as a whole number of at least ``least``, or
    ``None`` when it is not one: not ASCII digits, too many digits, or too small."""
    stripped = text.strip(" ")
    if _WHOLE.fullmatch(stripped) is None:
        return None
    number = int(stripped)
    return number if number >= least else None
