"""Body-size limits: 10 MiB-style for synchronous calls, a larger one for bulk uploads."""

from __future__ import annotations

from pathlib import Path

import httpx

from vigil.web.routes import processor, upload

ROW = "P{i},02/03/2026,06:00,LHR,02/03/2026,14:30,LHR,LHR,0"


def test_upload_takes_bodies_over_the_synchronous_limit(tmp_path: Path, sqlite_url: str) -> None:
    from conftest import live_service

    roster = "\r\n".join(ROW.format(i=i) for i in range(200))  # ~10 KiB
    limits = {"max_body_bytes": 4096, "max_upload_bytes": 65536, "worker_threads": 0}
    with live_service(
        tmp_path, sqlite_url, routers=[processor.router, upload.router], **limits
    ) as svc:
        client_id, secret = svc.create_client(scopes="fatigue upload")
        auth = (client_id, secret)
        body = {"RosterData": roster, "SleepData": [], "DateFormat": "dmy", "PreferredScale": "KSS"}
        scored = httpx.post(f"{svc.base_url}/api/Processor/ProcessFatigue", json=body, auth=auth)
        assert scored.status_code == 413
        assert "4096 bytes" in scored.json()["detail"]
        uploaded = httpx.post(
            f"{svc.base_url}/api/UploadRoster", json={"RosterData": roster}, auth=auth
        )
        assert uploaded.status_code == 200, uploaded.text
        assert uploaded.json()["rosterToken"]
        huge = httpx.post(
            f"{svc.base_url}/api/UploadRoster", json={"RosterData": roster * 8}, auth=auth
        )
        assert huge.status_code == 413
        assert "65536 bytes" in huge.json()["detail"]
