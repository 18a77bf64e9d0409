"""The roster list's "deleted" notice cannot be written by a link (finding 8)."""

from __future__ import annotations

import httpx

from conftest import LiveService

from .conftest import ROSTER, csrf_of

LURE = "Session expired - call +1 555 0100 to restore your account"


def test_query_string_text_is_never_shown(alice: httpx.Client) -> None:
    page = alice.get("/console/rosters", params={"deleted": LURE})
    assert page.status_code == 200
    assert "555 0100" not in page.text
    assert 'class="notice"' not in page.text


def test_deleting_shows_the_name_once(service: LiveService, alice: httpx.Client) -> None:
    from vigil.store import uploads

    with service.runtime.sessions.begin() as session:
        token = uploads.create_upload(
            session=session, operator="acme", roster_name="march <b>", roster_text=ROSTER
        ).token
    csrf = csrf_of(alice.get("/console/rosters").text)
    answer = alice.post(
        f"/console/rosters/{token}/delete", data={"csrf_token": csrf}, follow_redirects=False
    )
    assert answer.status_code == 303
    assert answer.headers["location"] == "/console/rosters"  # nothing in the URL
    listed = alice.get("/console/rosters")
    assert "Roster march &lt;b&gt; deleted." in listed.text
    assert "deleted." not in alice.get("/console/rosters").text  # shown once
