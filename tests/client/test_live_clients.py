"""Clients of a real ``vigil serve``: ``vigil.client``, and a client generated
from the served ``/openapi.json`` by openapi-python-client, each getting a token, scoring,
uploading and fetching results."""

from __future__ import annotations

import json
import os
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from live_server import ROSTER, Server, bootstrap_credentials, free_port, start, stop
from vigil.client import RosterStatus, VigilClient, VigilError

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str, str]]:
    workdir = tmp_path_factory.mktemp("serve")
    running = start(workdir, free_port())
    try:
        client_id, secret = bootstrap_credentials(running.output)
        yield running, client_id, secret
    finally:
        stop(running)


def test_vigil_client_scores_uploads_waits_and_streams(server: tuple[Server, str, str]) -> None:
    running, client_id, secret = server
    seen: list[RosterStatus] = []
    with VigilClient(running.base, client_id, secret) as vigil:
        scored = vigil.score(ROSTER, risk=True, scale="KP")
        assert scored["scale"] == "KP" and scored["errors"] == []
        assert {s["schedule"] for s in scored["scheduleScores"]} == {"P1", "P2"}
        upload = vigil.upload(ROSTER, name="march", scale="KP")
        assert upload.roster_name == "march"
        final = vigil.wait(upload.roster_token, timeout=300, poll=0.1, progress=seen.append)
        assert final["status"] == "completedsuccessfully"
        assert seen and seen[-1] == final  # the callback saw every status read, to the end
        streamed = b"".join(vigil.stream_results(upload.roster_token, chunk_size=64))
        assert json.loads(streamed) == vigil.results(upload.roster_token)
        assert json.loads(streamed)["scheduleScores"] == scored["scheduleScores"]
        assert final["progress"] == {"crewDone": 2, "crewTotal": 2}
        page = vigil.results(upload.roster_token, offset=1, limit=1, include_sleep=True)
        assert [s["schedule"] for s in page["scheduleScores"]] == ["P2"]
        assert page["scheduleScores"][0]["sleep"]  # predicted sleep, stored by the worker
        sleep = vigil.sleep(upload.roster_token, schedules=["P2"])
        assert sleep["scheduleSleep"] == [
            {"schedule": "P2", "sleep": page["scheduleScores"][0]["sleep"]}
        ]
        assert [r["rosterName"] for r in vigil.list_rosters()] == ["march"]
        assert vigil.tokens_fetched == 1  # one token served every call above
        vigil.delete(upload.roster_token)
        with pytest.raises(VigilError) as missing:
            vigil.status(upload.roster_token)
        assert missing.value.status == 404
        assert missing.value.document["title"] == "Unknown roster token"


def test_vigil_client_bad_secret_is_a_clear_error(server: tuple[Server, str, str]) -> None:
    running, client_id, _ = server
    with VigilClient(running.base, client_id, "wrong") as vigil, pytest.raises(VigilError) as bad:
        vigil.score(ROSTER)
    assert bad.value.status == 401 and bad.value.document["error"] == "invalid_client"


@pytest.fixture(scope="module")
def generator(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """openapi-python-client in a virtual environment of its own, from the pinned
    ``codegen-requirements.txt`` (it needs typer<0.28; the CLI uses a newer typer)."""
    home = tmp_path_factory.mktemp("codegen")
    venv.create(home / "venv", with_pip=True)
    python = home / "venv" / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-r", str(HERE / "codegen-requirements.txt")],
        check=True, timeout=600,
    )  # fmt: skip
    return python


GENERATED_USE = """
import json, sys
from vigil_api import AuthenticatedClient, Client
from vigil_api.api.identity import token
from vigil_api.api.scoring import process_fatigue_risk
from vigil_api.api.upload import get_results, upload_roster
from vigil_api.models import (
    ProblemOut, RosterStatusOut, ScoresOut, ScoringRequestIn, TokenBody, UploadRosterIn,
)
from vigil_api.models.token_body_grant_type import TokenBodyGrantType
import time

base, client_id, secret, roster = sys.argv[1:5]
with Client(base_url=base, httpx_args={"auth": (client_id, secret)}) as anonymous:
    grant = TokenBody(grant_type=TokenBodyGrantType.CLIENT_CREDENTIALS)
    issued = token.sync(client=anonymous, body=grant)
api = AuthenticatedClient(base_url=base, token=issued.access_token, timeout=120)
scored = process_fatigue_risk.sync(client=api, body=ScoringRequestIn.from_dict(
    {"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}))
assert isinstance(scored, ScoresOut), scored
up = upload_roster.sync(client=api, body=UploadRosterIn(roster_data=roster))
for _ in range(3000):
    status = get_results.sync(client=api, roster_token=up.roster_token, data_key="status")
    assert isinstance(status, RosterStatusOut), status
    if status.status.value not in ("queued", "processing"):
        break
    time.sleep(0.1)
results = get_results.sync(client=api, roster_token=up.roster_token, data_key="scores")
unknown = get_results.sync(client=api, roster_token="no-such-token", data_key="status")
print(json.dumps({
    "token_type": getattr(issued.token_type, "value", issued.token_type),
    "scored": scored.to_dict(),
    "status": status.status.value,
    "results_type": type(results).__name__,
    "results": results.to_dict(),
    "unknown": [type(unknown).__name__, unknown.status],
}))
"""


def test_generated_client_gets_a_token_scores_uploads_and_fetches(
    server: tuple[Server, str, str], generator: Path, tmp_path: Path
) -> None:
    import httpx

    running, client_id, secret = server
    (tmp_path / "openapi.json").write_text(httpx.get(f"{running.base}/openapi.json").text)
    env = {**os.environ, "PATH": f"{generator.parent}{os.pathsep}{os.environ['PATH']}"}
    made = subprocess.run(
        [str(generator.parent / "openapi-python-client"), "generate", "--meta", "none",
         "--path", "openapi.json", "--output-path", "vigil_api"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr  # every schema was understood
    (tmp_path / "use.py").write_text(GENERATED_USE)
    used = subprocess.run(
        [str(generator), "use.py", running.base, client_id, secret, ROSTER],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert used.returncode == 0, used.stderr
    out = json.loads(used.stdout)
    assert out["token_type"] == "Bearer"
    assert out["status"] == "completedsuccessfully"
    assert out["results_type"] == "ScoresOut"
    assert out["results"]["scheduleScores"] == out["scored"]["scheduleScores"]
    assert out["unknown"] == ["ProblemOut", 404]
