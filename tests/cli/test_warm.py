"""``vigil score`` loads the scoring kernels on a background thread (vigil.scoring.warm).

The check runs in a fresh interpreter, where no kernel has been loaded yet.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROSTER = "P1,02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0\r\n"


def test_score_loads_the_scoring_kernels_on_its_warm_up_thread(tmp_path: Path) -> None:
    """``vigil score`` loads Numba's kernels on a background thread while it reads the
    roster (vigil.scoring.warm): by the time the command scores, the main thread finds
    every kernel loaded and loads none itself."""
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    child = """
import json, sys, threading
from numba.core import caching
from typer.testing import CliRunner
from vigil.cli import create_app
loaded = []
load = caching.Cache.load_overload
def record(self, sig, ctx):
    loaded.append(threading.current_thread().name)
    return load(self, sig, ctx)
caching.Cache.load_overload = record
result = CliRunner().invoke(create_app(), sys.argv[1:])
print(json.dumps({"exit": result.exit_code, "loaded": loaded}))
"""
    done = subprocess.run(
        [sys.executable, "-c", child, "score", str(roster), "--risk", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["exit"] == 0
    assert len(report["loaded"]) >= 10  # the sleep, chunk and risk kernels
    assert set(report["loaded"]) == {"vigil-warm-kernels"}
