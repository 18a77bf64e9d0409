"""A roster is shown with the warning levels and risk bands of the settings version it was
scored with: dashboard, chart and exports, and later changes leave it be."""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime
from typing import Any

import httpx
from openpyxl import load_workbook

from conftest import LiveService

from .conftest import ROSTER
from .test_fleet_pages import upload_and_wait


def save(service: LiveService, operator: str, changes: dict[str, Any]) -> int:
    """Change ``operator``'s settings through the store; the new version."""
    from vigil.settings import merge_settings
    from vigil.store import operator_settings as store

    with service.runtime.sessions.begin() as session:
        current = store.current_settings(session=session, operator=operator)
        new = merge_settings(current.settings, changes)
        saved = store.save_settings(
            session=session, operator=operator, settings=new, changed_by="t"
        )
        return saved.version


def _band_counts(page: str) -> dict[str, str]:
    table = page.split('data-testid="bands"')[1].split("</table>")[0]
    rows = re.findall(
        r'<tr data-band="([^"]+)">.*?<td>([^<]*)</td>\s*(?:<td class="small">[^<]*</td>)?'
        r"\s*<td>([\d,]+)</td>",
        table,
        re.S,
    )
    return {band: span for band, span, _count in rows}


def test_operator_bands_and_level_follow_the_scoring_version(
    service: LiveService, alice: httpx.Client
) -> None:
    before = upload_and_wait(alice, ROSTER, "builtin")
    version = save(service, "acme", {"riskBands": [0.5, 0.9, 1.2], "warningLevels": {"KSS": [5]}})
    assert version == 1
    own = upload_and_wait(alice, ROSTER, "own")
    save(service, "acme", {"riskBands": [3, 4, 5]})  # version 2: neither roster changes

    page = alice.get(f"/console/rosters/{before}").text
    assert 'data-settings-version="0"' in page and "Built-in warning levels" in page
    assert _band_counts(page)["standard"].strip() == "0.0–1.3"
    assert "(= KSS 7)" in page

    page = alice.get(f"/console/rosters/{own}").text
    assert 'data-settings-version="1"' in page and "operator's own" in page
    assert _band_counts(page)["elevated"].strip() == "0.5–0.9"
    assert re.search(r'data-testid="levels-in-force">5</span>', page)
    assert "warning level 5.0" in page and "(= KSS 7)" not in page

    first = re.search(r'<tr data-schedule="([^"]+)" data-risk', page).group(1)
    chart = alice.get(f"/console/rosters/{own}/chart", params={"schedule": first}).text
    assert 'data-settings-version="1"' in chart and "redesign R ≥ 1.2" in chart
    assert re.search(r'"warnings":\s*\[5(\.0)?\]', chart)

    sheet = load_workbook(io.BytesIO(alice.get(f"/console/rosters/{own}/export.xlsx").content))
    summary = {r[0].value: r[1].value for r in sheet["Summary"].iter_rows()}
    assert summary["Warning level"] == 5.0
    assert "Duties redesign (R ≥ 1.2)" in summary
    duties = sheet["Duties"]
    header = [c.value for c in duties[1]]
    risk_col, band_col = header.index("Risk"), header.index("Band")
    for row in duties.iter_rows(min_row=2, values_only=True):
        risk, band = row[risk_col], row[band_col]
        expected = "redesign" if risk >= 1.2 else "mitigate" if risk >= 0.9 else "monitor"
        assert band == (expected if risk >= 0.5 else "acceptable")
    builtin = load_workbook(io.BytesIO(alice.get(f"/console/rosters/{before}/export.xlsx").content))
    summary0 = {r[0].value: r[1].value for r in builtin["Summary"].iter_rows()}
    assert summary0["Warning level"] == 7.0 and "Duties redesign (R ≥ 3.0)" in summary0


#: one crew member based at LHR flying across the clocks going forward (2026-03-29 01:00 UTC)
DST_ROSTER = (
    "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
    "HomeBase,TimeReference\r\n"
    "D1,27/03/2026,06:00,LHR,27/03/2026,12:00,LHR,LHR,0\r\n"
    "D1,30/03/2026,06:00,LHR,30/03/2026,12:00,LHR,LHR,0\r\n"
)


def test_home_base_axis_carries_each_instants_offset(alice: httpx.Client) -> None:
    token = upload_and_wait(alice, DST_ROSTER, "spring")
    chart = alice.get(f"/console/rosters/{token}/chart", params={"schedule": "D1"}).text
    raw = re.search(
        r'<script type="application/json" id="chart-data-0">(.*?)</script>', chart, re.S
    )
    assert raw is not None
    payload = json.loads(raw.group(1))
    change = int(datetime(2026, 3, 29, 1, tzinfo=UTC).timestamp() * 1000)
    assert [o[1] for o in payload["homeOffsets"]] == [0, 60]
    assert payload["homeOffsets"][1][0] == change
    assert payload["homeOffsetMin"] == 0  # the first duty's, as before
    on = [d["on"] for d in payload["duties"]]
    assert payload["homeOffsets"][0][0] < on[0] < change < on[1]
