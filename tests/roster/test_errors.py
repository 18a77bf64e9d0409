"""The one ``row|schedule|message`` formatter (seed §7.1, contract §3.2, §4, §5.1, §8)."""

from __future__ import annotations

import string

import pytest

from vigil.roster import TEMPLATES, RowError, Source, format_error
from vigil.roster.errors import make_error


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (RowError(3, "P1", "x", "Bad"), "3|P1|Bad"),
        (RowError(1, "", "unknown-column", "Unknown column 'Foo'"), "1||Unknown column 'Foo'"),
        (RowError(0, "P1", "x", "Bad", Source.SLEEP), "SleepData[0]|P1|Bad"),
        (RowError(7, "P1", "x", "Bad", Source.ACTIVITY), "ActivityData:7|P1|Bad"),
        (RowError(2, "A|B", "x", "Value 'A|B'"), "2|A/B|Value 'A/B'"),
    ],
)
def test_format_error(error: RowError, text: str) -> None:
    assert format_error(error) == text == str(error)


def test_every_template_is_filled_by_its_own_fields() -> None:
    for code, template in TEMPLATES.items():
        names = {f[1] for f in string.Formatter().parse(template) if f[1]}
        error = make_error(code, 1, "P1", **{n: f"<{n}>" for n in names})
        assert "{" not in error.message and error.code == code
