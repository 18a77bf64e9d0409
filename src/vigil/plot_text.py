"""Matplotlib draws every string as plain text: tenant names are never markup.

By default matplotlib reads text between two ``$`` as mathtext (and, with ``text.usetex``,
hands it to TeX), so a roster name, Reference, Fleet, Rank or observation-set name such
as ``$\\frac{$`` made a PDF export fail, and a valid formula would be drawn as one.
Vigil's own labels use no mathtext, so every module that draws calls :func:`plain_text`
once before drawing: new ``Text`` objects then take ``parse_math=False`` from
``rcParams`` (set once for the process, never per figure, so drawing threads do not race
on a temporary ``rc_context``).
"""

from __future__ import annotations

__all__ = ["plain_text"]


def plain_text() -> None:
    """Turn mathtext and TeX off for every text matplotlib draws in this process."""
    import matplotlib

    matplotlib.rcParams["text.parse_math"] = False
    matplotlib.rcParams["text.usetex"] = False
