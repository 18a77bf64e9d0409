"""vigil.config: every VIGIL_* variable, its default and its doc line in one module, and
the README's configuration table generated from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vigil import config
from vigil.config import reference
from vigil.config.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: a variable named in prose (``VIGIL_DASK_TLS_CA/CERT/KEY`` names three by their stem)
VARIABLE = re.compile(r"\bVIGIL_[A-Z0-9_]*[A-Z0-9]\b")


def known_variables() -> set[str]:
    return {config.env_name(f) for f in Settings.model_fields} | {
        v.name for v in config.LAUNCH_VARIABLES
    }


def test_the_readme_table_is_the_one_the_module_renders() -> None:
    # scripts/update-config-docs rewrites it; this fails until it has been run
    text = README.read_text(encoding="utf-8")
    assert reference.replace_section(text, reference.markdown_table()) == text


def test_the_table_lists_every_variable_once_with_its_doc() -> None:
    rows = [r for r in reference.markdown_table().splitlines() if r.startswith("| `VIGIL_")]
    names = [r.split("`")[1] for r in rows]
    assert sorted(names) == sorted(known_variables())
    assert all(r.rstrip(" |").split(" | ")[-1] for r in rows)  # no empty meaning
    row = next(r for r in rows if r.startswith("| `VIGIL_MAX_BODY_BYTES`"))
    assert "`10,485,760`" in row and "contract §3" in row


def test_every_setting_has_a_description() -> None:
    assert [n for n, f in Settings.model_fields.items() if not f.description] == []


def test_every_variable_the_documents_name_exists() -> None:
    # a renamed or removed setting may not live on in the docs or the docstrings
    texts = [README, *sorted((ROOT / "docs").rglob("*.md"))]
    texts += sorted((ROOT / "src" / "vigil").rglob("*.py"))
    known = known_variables()
    stems = {name.rsplit("_", 1)[0] for name in known}  # VIGIL_DASK_TLS_CA/CERT/KEY
    unknown = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in texts
        for name in set(VARIABLE.findall(path.read_text(encoding="utf-8")))
        if name not in known and name not in stems
    )
    assert unknown == []


def test_a_section_without_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="markers"):
        reference.replace_section("# no table here\n", "| x |\n")


def test_the_launch_variables_are_read_from_the_mapping_given() -> None:
    environ = {"VIGIL_SURFACE": "upload", "VIGIL_ENV_FILE": "/etc/vigil.env"}
    assert config.surface(environ) == "upload" and config.surface({}) == "all"
    assert config.env_file(environ) == "/etc/vigil.env"
    assert config.env_file({"VIGIL_ENV_FILE": ""}) is None
    assert config.default_data_dir({"VIGIL_DATA_DIR": "~/state"}) == Path("~/state").expanduser()
    assert config.default_data_dir({}).name == "vigil"


def test_serve_hands_its_options_to_the_server_processes() -> None:
    environ = {"VIGIL_PUBLIC_BASE_URL": "https://vigil.example.com"}
    config.pass_to_server_processes(
        environ,
        surface="scoring",
        env_file=Path("/etc/vigil.env"),
        public_base_url="http://127.0.0.1:8000",
        forwarded_allow_ips="10.0.0.1",
    )
    assert environ == {
        "VIGIL_SURFACE": "scoring",
        "VIGIL_ENV_FILE": "/etc/vigil.env",
        "VIGIL_PUBLIC_BASE_URL": "https://vigil.example.com",  # a given one is kept
        "VIGIL_FORWARDED_ALLOW_IPS": "10.0.0.1",
    }
    settings = Settings.from_mapping(environ)
    assert settings.forwarded_allow_ips == "10.0.0.1"
    assert settings.public_base_url == "https://vigil.example.com"
