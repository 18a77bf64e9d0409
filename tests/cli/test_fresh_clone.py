"""A fresh clone, ``scripts/serve``, then ``git status``: no untracked state.

The quick start installs into ``.venv`` (ignored) and keeps the database, the secret key
and the Numba cache in the data directory, outside the checkout; here the data directory
is the platform default under a temporary ``XDG_DATA_HOME``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from live_server import free_port, wait_ready

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_scripts_serve_leaves_a_fresh_clone_clean(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    data_home = tmp_path / "xdg-data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIGIL_", "NUMBA_"))}
    env.update(XDG_DATA_HOME=str(data_home), PYTHONUNBUFFERED="1")
    env.pop("VIRTUAL_ENV", None)
    port = free_port()
    process = subprocess.Popen(
        ["scripts/serve", "--port", str(port)],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 600  # a new .venv installs from the pip cache first
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            assert line, "scripts/serve ended:\n" + "".join(output)
            output.append(line)
            if "Application startup complete" in line:
                break
        # the kernels compile into the data directory before /readyz says ready
        wait_ready(f"http://127.0.0.1:{port}", process, timeout=180)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.communicate(timeout=60)
    text = "".join(output)
    data_dir = data_home / "vigil"
    assert f"Data directory: {data_dir}" in text
    assert "operator 'default'" in text and "client_secret:" in text
    assert (data_dir / "vigil.db").is_file() and (data_dir / "secret.key").is_file()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=clone, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert status.stdout == "", status.stdout
    # nothing ignored either but the virtual environment, build metadata and bytecode
    ignored = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"],
        cwd=clone, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    kept = {line.removeprefix("!! ").strip() for line in ignored if line.startswith("!!")}
    kept = {path for path in kept if not path.endswith("__pycache__/")}
    assert kept <= {".venv/", "src/vigil_fatigue.egg-info/"}, kept
