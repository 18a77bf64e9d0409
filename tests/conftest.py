"""Shared fixtures and markers."""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).parent / "data"
