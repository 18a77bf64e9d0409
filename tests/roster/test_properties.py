"""Property tests: valid generated rosters parse cleanly; mutated rosters never raise.

Ground truth comes from :mod:`vigil.roster.synthetic`, which builds every duty in UTC
before writing it in one of the three TimeReferences.
"""

from __future__ import annotations

import random
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vigil.roster import parse_request
from vigil.roster.synthetic import generate_duties, render_roster

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def valid_rosters(draw: st.DrawFn):
    n_crew = draw(st.integers(1, 4))
    n_days = draw(st.integers(1, 21))
    seed = draw(st.integers(0, 2**31))
    full = draw(st.booleans())
    duties = generate_duties(n_crew, n_days, seed)
    if not full:  # 9-column rows cannot carry rest periods
        duties = [d for d in duties if d.first_rest is None]
    if draw(st.booleans()):
        random.Random(seed).shuffle(duties)  # any row order
    options = {
        "date_format": draw(st.sampled_from(["dmy", "mdy"])),
        "header": draw(st.booleans()),
        "full": full,
        "pad": draw(st.booleans()),
        "newline": draw(st.sampled_from(["\r\n", "\n"])),
    }
    return duties, render_roster(duties, **options), options["date_format"]


@_SETTINGS
@given(valid_rosters())
def test_generated_valid_rosters_parse_without_errors(case) -> None:
    duties, text, date_format = case
    parsed = parse_request(text, date_format)
    assert parsed.errors == ()
    assert parsed.duty_count == len(duties)
    assert parsed.interval_count == sum(d.interval_count for d in duties)
    by_ref: dict[str, list] = {}
    for duty in duties:
        by_ref.setdefault(duty.reference, []).append(duty)
    for schedule in parsed.schedules:
        expected = sorted((d.on_duty, d.off_duty) for d in by_ref[schedule.reference])
        assert [(d.on_duty, d.off_duty) for d in schedule.duties] == expected


_GARBAGE = st.text(
    alphabet=st.sampled_from(list(',"|/:\r\n\x00 \t;0123456789aZ') + ["é", "١", "\u2028", "😀"]),
    min_size=1,
    max_size=6,
)


@st.composite
def mutated_rosters(draw: st.DrawFn):
    seed = draw(st.integers(0, 2**31))
    text = render_roster(generate_duties(2, 5, seed), full=draw(st.booleans()))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "swap", "duplicate"]))
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 5)) :]
        elif kind == "insert":
            text = text[:at] + draw(_GARBAGE) + text[at:]
        else:
            lines = text.split("\r\n")
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "duplicate":
                lines.insert(i, lines[i])
            else:
                fields = lines[i].split(",")
                a, b = draw(st.integers(0, len(fields) - 1)), draw(st.integers(0, len(fields) - 1))
                fields[a], fields[b] = fields[b], fields[a]
                lines[i] = ",".join(fields)
            text = "\r\n".join(lines)
    return text


@_SETTINGS
@given(mutated_rosters(), st.sampled_from(["dmy", "mdy"]))
def test_mutated_rosters_never_raise_and_errors_are_well_formed(
    text: str, date_format: str
) -> None:
    parsed = parse_request(text, date_format)
    n_lines = text.count("\n") + 1
    failed = {e.reference for e in parsed.errors}
    for error in parsed.errors:
        assert 1 <= error.row <= n_lines
    for line in parsed.error_strings():
        row, schedule, message = line.split("|", 2)
        assert row.isdigit() and "|" not in message and message
    for schedule in parsed.schedules:
        assert schedule.reference not in failed
        ons = [d.on_duty for d in schedule.duties]
        assert ons == sorted(ons)
        for duty in schedule.duties:
            assert timedelta(0) < duty.duration <= timedelta(hours=30)
    # every readable data row is either a duty of a kept schedule, or its schedule failed
    kept = sum(len(s.duties) for s in parsed.schedules)
    assert kept <= parsed.rows


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["dmy", "mdy"]))
def test_arbitrary_text_never_raises(text: str, date_format: str) -> None:
    parsed = parse_request(text, date_format, activity_text=text)
    assert all(e.message for e in parsed.errors)
