"""What each validation row may claim: its kind, and which documented choices it fitted.

A row is an *identity* (an implementation or definition check), *fitted* (used to choose the
parameters or rules named in its ``fits``) or *independent* (never used for any choice). The
headline of ``docs/validation.md`` is the independent rows' pass rate, so a row that chose a
parameter must say so.

A parameter documents that it was fitted by a tag in the provenance bracket of its comment
(the ``#:`` lines above the field, or its trailing comment), e.g. ``[C, fitted:
roach2012-0400, roach2012-0900]`` on ``early_advance_fraction`` in ``model/parameters.py``.
:func:`fitted_tags` reads those tags from the model's and the validation harness's source
(every ``*.py`` file of ``vigil/model`` and ``vigil/validation``), and :func:`problems` checks
rows against them: every row has a kind; a fitted row names at least one parameter, each
defined somewhere in those files; every row a tag names exists, is fitted and names that
parameter; identity and independent rows name none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from vigil.validation.cases import Case

#: Kinds a row may have (see :class:`~vigil.validation.cases.Case`).
KINDS: tuple[str, ...] = ("identity", "fitted", "independent")

_PACKAGE = Path(__file__).resolve().parents[1]  # src/vigil
#: Source folders whose ``*.py`` files may define parameters and carry ``fitted:`` tags.
SOURCE_DIRS: tuple[Path, ...] = (_PACKAGE / "model", _PACKAGE / "validation")

#: A class field (4-space indent) or module constant: ``name[: type] = value``.
_DEFINITION = re.compile(r"^(?:    )?([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)")
_TAG = re.compile(r"\[[^\]]*?\bfitted:\s*([^\]]+)\]")


def source_files(dirs: Iterable[Path] = SOURCE_DIRS) -> list[Path]:
    """The ``*.py`` files scanned for definitions and tags, sorted."""
    return sorted(p for d in dirs for p in d.glob("*.py"))


def definitions(text: str) -> Iterable[tuple[str, str]]:
    """``(name, comment text)`` of each field or constant: the ``#:`` lines just above it
    plus its trailing comment."""
    pending: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:])
            continue
        found = _DEFINITION.match(line)
        if found and not stripped.startswith(("def ", "class ", "return ")):
            trailing = line.split("#", 1)[1] if "#" in line else ""
            yield found.group(1), " ".join([*pending, trailing])
        pending = []


def defined_names(files: Sequence[Path] | None = None) -> set[str]:
    """Names of the fields and module constants defined in the scanned files."""
    files = source_files() if files is None else files
    return {name for f in files for name, _ in definitions(f.read_text(encoding="utf-8"))}


def fitted_tags(files: Sequence[Path] | None = None) -> dict[str, tuple[str, ...]]:
    """Parameter name -> the row keys its ``fitted:`` tag names."""
    files = source_files() if files is None else files
    tags: dict[str, tuple[str, ...]] = {}
    for f in files:
        for name, comment in definitions(f.read_text(encoding="utf-8")):
            match = _TAG.search(comment)
            if match:
                keys = tuple(k.strip() for k in match.group(1).split(",") if k.strip())
                tags[name] = tags.get(name, ()) + keys
    return tags


def problems(
    cases: Sequence[Case], tags: Mapping[str, Sequence[str]], names: set[str]
) -> list[str]:
    """Every way ``cases`` disagree with the documented ``tags`` (empty when they agree).

    Parameters
    ----------
    cases : sequence of Case
        The report's rows.
    tags : mapping
        Parameter -> keys of the rows its ``fitted:`` tag names (:func:`fitted_tags`).
    names : set of str
        Parameters and rules that exist (:func:`defined_names`).
    """
    found: list[str] = []
    by_key = {c.key: c for c in cases}
    for case in cases:
        if case.kind not in KINDS:
            found.append(f"{case.key}: no kind (one of {', '.join(KINDS)})")
        elif case.kind == "fitted":
            if not case.fits:
                found.append(f"{case.key}: fitted, but names no parameter in fits")
            found += [f"{case.key}: fits {n!r}, which is not defined" for n in case.fits
                      if n not in names]  # fmt: skip
        elif case.fits:
            found.append(f"{case.key}: {case.kind} rows fit nothing, but fits {case.fits}")
    for parameter, keys in tags.items():
        for key in keys:
            row = by_key.get(key)
            if row is None:
                found.append(f"{parameter}: tagged fitted to {key!r}, which is not a row")
            elif row.kind != "fitted" or parameter not in row.fits:
                found.append(
                    f"{parameter}: tagged fitted to {key}, but that row is not kind='fitted' "
                    f"with {parameter!r} in fits"
                )
    return found


def counts(cases: Iterable[Case]) -> dict[str, int]:
    """Rows per kind, in :data:`KINDS` order."""
    listed = list(cases)
    return {k: sum(c.kind == k for c in listed) for k in KINDS}
