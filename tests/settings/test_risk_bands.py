"""Risk band bounds in the operator settings record."""

from __future__ import annotations

import math
from pathlib import Path

import orjson
import pytest

from vigil.settings import DEFAULT_SETTINGS, SettingsError, load_settings, parse_settings
from vigil.settings.bands import DEFAULT_BOUNDS, RISK_BANDS, bands_from


def test_default_bounds_are_the_stated_relative_risks() -> None:
    # a night over a morning shift (Folkard & Tucker 2003: 1.30), twice, three times
    assert DEFAULT_SETTINGS.risk_bands == DEFAULT_BOUNDS == (1.3, 2.0, 3.0)
    assert [b.words for b in RISK_BANDS] == ["acceptable", "monitor", "mitigate", "redesign"]
    assert all(b.action for b in RISK_BANDS)
    assert bands_from(DEFAULT_BOUNDS) == RISK_BANDS


def test_own_bounds_round_trip_and_older_records_default() -> None:
    own = parse_settings({"riskBands": "1.5, 3, 6"})
    assert own.risk_bands == (1.5, 3.0, 6.0)
    assert load_settings(own.to_json()).risk_bands == (1.5, 3.0, 6.0)
    old = orjson.loads(DEFAULT_SETTINGS.to_json())
    del old["riskBands"]  # a version stored before the field existed
    assert load_settings(orjson.dumps(old)).risk_bands == DEFAULT_BOUNDS
    bands = bands_from(own.risk_bands)
    assert [b.lower for b in bands] == [0.0, 1.5, 3.0, 6.0] and math.isinf(bands[-1].upper)
    assert bands[1].kss_units == pytest.approx(math.log(1.5) / math.log(1.72), abs=0.01)


@pytest.mark.parametrize(
    ("value", "prop", "words"),
    [
        ([1, 2], "riskBands", "give 3 bounds"),
        ([2, 1, 3], "riskBands", "strictly ascending"),
        ([1, 1, 3], "riskBands", "strictly ascending"),
        ([0, 1, 2], "riskBands", "positive"),
        (["x", 1, 2], "riskBands[0]", "must be a number"),
        ([1, 2, 1e9], "riskBands[2]", "must be from 0 to 100"),
    ],
)
def test_bad_bounds_name_the_field(value: object, prop: str, words: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse_settings({"riskBands": value})
    assert [e["property"] for e in caught.value.errors] == [prop]
    assert words in caught.value.errors[0]["message"]


def test_cli_sets_and_shows_risk_bands(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vigil.cli import create_app
    from vigil.store import repo
    from vigil.store.db import make_engine, make_session_factory, upgrade

    url = f"sqlite:///{tmp_path / 'vigil.db'}"
    engine = make_engine(url)
    upgrade(engine)
    with make_session_factory(engine).begin() as session:
        repo.get_or_create_operator(session=session, name="acme")
    engine.dispose()
    cli = ["settings", "set", "--operator", "acme", "--database-url", url]
    bad = CliRunner().invoke(create_app(), [*cli, "riskBands=3,2,5"])
    assert bad.exit_code == 2 and "riskBands: bounds must be positive and strictly" in bad.output
    good = CliRunner().invoke(create_app(), [*cli, "riskBands=1.5,3,5"])
    assert good.exit_code == 0 and "settings version 1" in good.output
    shown = CliRunner().invoke(
        create_app(), ["settings", "show", "--operator", "acme", "--database-url", url]
    )
    assert "riskBands          1.5, 3, 5" in shown.output
