"""Pinned public surface of vigil.model (STYLE §3.11) and its layering."""

from __future__ import annotations

import ast
from pathlib import Path

import vigil.model as model


def test_all_is_pinned_and_importable() -> None:
    assert len(model.__all__) == len(set(model.__all__))
    for name in model.__all__:
        assert hasattr(model, name), name
    core = {"Parameters", "PRESETS", "DEFAULT", "TPM_DEFAULT", "CrewTimeline", "simulate",
            "SCALES", "SCALE_INFO", "wake_pressure", "sleep_recovery", "circadian_process",
            "ultradian_process", "sleep_inertia", "advance_phase", "kss_from_alertness",
            "final_kss", "kss_exceedance_probability", "interval_means",
            "duty_components"}  # fmt: skip
    assert core <= set(model.__all__)
    assert model.PRESETS["tpm_default"].model_version == "1.6.0+tpm_default"


def test_model_imports_only_numpy_numba_stdlib() -> None:
    # docs/architecture.md: model never imports datetime, zoneinfo or vigil.domain; of
    # Vigil's own, only the contract module (plain numbers, below every package)
    banned = {"datetime", "zoneinfo", "vigil"}
    for path in Path(model.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for n in names:
                if n == "vigil.contract":  # the contract's numbers (interval, decimals), layer 0
                    continue
                assert n.split(".")[0] not in banned, f"{path.name} imports {n}"
