"""The risk bands have one definition: every place that states them agrees with it."""

from __future__ import annotations

import re
from pathlib import Path

import typer
from typer.testing import CliRunner

from vigil.cli import settings as settings_cli
from vigil.settings.bands import ACTIONS, DEFAULT_BOUNDS, RISK_BANDS, bands_from
from vigil.settings.record import OperatorSettings

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "src" / "vigil" / "web" / "console" / "templates"


def _numbers(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.findall(r"\d+(?:\.\d+)?", text))


def test_settings_default_is_the_definition() -> None:
    assert OperatorSettings().risk_bands == DEFAULT_BOUNDS
    assert tuple(b.upper for b in RISK_BANDS[:3]) == DEFAULT_BOUNDS


def test_console_templates_state_the_definition() -> None:
    for name in ("settings.html", "_dashboard.html"):
        text = (TEMPLATES / name).read_text()
        found = re.search(r'data-testid="builtin-bands">([^<]*)<', text)
        assert found is not None, name
        assert _numbers(found.group(1)) == DEFAULT_BOUNDS, name


def test_docs_state_the_definition() -> None:
    api = (ROOT / "docs" / "api.md").read_text()
    found = re.search(r"<!-- bands -->(.*?)<!-- /bands -->", api, re.S)
    assert found is not None
    numbers = _numbers(found.group(1))
    assert numbers[0] == DEFAULT_BOUNDS[0] and numbers[-1] == DEFAULT_BOUNDS[-1]
    assert set(DEFAULT_BOUNDS) <= set(numbers)
    settings = (ROOT / "docs" / "settings.md").read_text()
    row = next(line for line in settings.splitlines() if line.startswith("| `riskBands`"))
    assert _numbers(row.split("|")[2]) == DEFAULT_BOUNDS
    for doc in ("console.md", "model.md"):
        text = (ROOT / "docs" / doc).read_text()
        rows = re.findall(r"^\| (?:< |≥ )?([\d.]+)(?:–([\d.]+))? \| (\w+) \|", text, re.M)
        words = [w for *_, w in rows if w in {a[1] for a in ACTIONS}]
        assert words == [a[1] for a in ACTIONS], doc
        bounds = sorted({float(v) for r in rows if r[2] in words for v in r[:2] if v})
        assert tuple(bounds) == DEFAULT_BOUNDS, doc


def test_cli_prints_the_definition() -> None:
    app = typer.Typer()
    settings_cli.register(app)
    result = CliRunner().invoke(app, ["settings", "bands"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert [line.split()[0] for line in lines] == [a[1] for a in ACTIONS]
    assert [a[2] in line for a, line in zip(ACTIONS, lines, strict=True)] == [True] * 4
    numbers = sorted({n for line in lines for n in _numbers(line.split(None, 1)[1][:16])})
    assert tuple(numbers) == DEFAULT_BOUNDS


def test_operators_keep_their_own_bands() -> None:
    own = bands_from((1.5, 3.0, 5.0))
    assert [b.upper for b in own[:3]] == [1.5, 3.0, 5.0]
    assert [b.action for b in own] == [b.action for b in RISK_BANDS]
    assert OperatorSettings(risk_bands=(1.5, 3.0, 5.0)).risk_bands == (1.5, 3.0, 5.0)
