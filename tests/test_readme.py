"""The README is all a new user reads: its links and paths stay inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_relative_link_names_a_file_of_the_repository() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)", README)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert local, "the README links to its docs"
    for target in local:
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT), f"{target} leaves the repository"
        assert path.exists(), f"{target} does not exist"


def test_no_path_points_outside_the_checkout() -> None:
    assert "../" not in README
