"""Every validation row says what it may claim, and agrees with the parameters' own tags.

A parameter chosen with a row carries ``fitted: <row keys>`` in the provenance bracket of its
comment (model/parameters.py, model/sleep_parameters.py, validation/scenarios.py, ...); the
row must then be ``kind="fitted"`` naming that parameter, or the report's independent pass
rate would count the fit as evidence.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from vigil.validation import kinds
from vigil.validation.cases import Case
from vigil.validation.catalog import all_cases


def _row(key: str, kind: str | None, fits: tuple[str, ...] = ()) -> Case:
    base = all_cases()[0]
    return replace(base, key=key, kind=kind, fits=fits)  # type: ignore[arg-type]


def test_every_row_has_a_kind_and_agrees_with_the_tags() -> None:
    assert kinds.problems(all_cases(), kinds.fitted_tags(), kinds.defined_names()) == []


def test_a_row_without_a_kind_is_a_problem() -> None:
    found = kinds.problems([_row("x", None)], {}, set())
    assert found == ["x: no kind (one of identity, fitted, independent)"]


def test_a_tagged_parameter_whose_row_is_not_marked_fitted_is_a_problem() -> None:
    cases = [_row("a", "independent"), _row("b", "fitted", ("other",))]
    found = kinds.problems(cases, {"p": ("a", "b", "c")}, {"p", "other"})
    assert len(found) == 3
    assert found[0].startswith("p: tagged fitted to a, but that row is not kind='fitted'")
    assert found[1].startswith("p: tagged fitted to b, but that row is not kind='fitted'")
    assert found[2] == "p: tagged fitted to 'c', which is not a row"


def test_a_fitted_row_naming_an_unknown_parameter_is_a_problem() -> None:
    found = kinds.problems([_row("a", "fitted", ("nonesuch",))], {}, {"p"})
    assert found == ["a: fits 'nonesuch', which is not defined"]
    assert kinds.problems([_row("a", "fitted")], {}, set()) == [
        "a: fitted, but names no parameter in fits"
    ]
    assert kinds.problems([_row("a", "identity", ("p",))], {}, {"p"}) == [
        "a: identity rows fit nothing, but fits ('p',)"
    ]


def test_tags_and_definitions_are_read_from_comments(tmp_path: Path) -> None:
    source = tmp_path / "params.py"
    source.write_text(
        "class P:\n"
        "    #: the advance [C, fitted: row-a, row-b]\n"
        "    advance: float = 0.65\n"
        "    plain: float = 1.0  # [h] no tag [C]\n"
        "    trailing: float = 2.0  # [h] [C, fitted: row-c]\n"
        "CONSTANT = 3  # [P]\n",
        encoding="utf-8",
    )
    assert kinds.fitted_tags([source]) == {"advance": ("row-a", "row-b"), "trailing": ("row-c",)}
    assert kinds.defined_names([source]) == {"advance", "plain", "trailing", "CONSTANT"}


def test_the_documented_fits_are_found() -> None:
    # the tags this report relies on are present in the model's source
    tags = kinds.fitted_tags()
    assert "roach2012-0400" in tags["early_advance_fraction"]
    assert "holmes2012" in tags["local_ramp"]
    assert "roach2016-daytime" in tags["nap_after_wake"]


def test_counts_follow_the_kinds() -> None:
    cases = [_row("a", "fitted", ("p",)), _row("b", "independent"), _row("c", "independent")]
    assert kinds.counts(cases) == {"identity": 0, "fitted": 1, "independent": 2}
    assert sum(kinds.counts(all_cases()).values()) == len(all_cases())
