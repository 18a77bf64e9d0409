"""Population percentiles of sleepiness (Ingre et al. 2014 via reference §2.5-2.7)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vigil.model.percentiles import kss_at_least, kss_limit


def test_probabilities_reproduce_the_reference_table() -> None:
    # reference §2.6 "Reference values (preset A)": KP>=8 and KP>=7 at KSS 3..9, printed
    # to 0.1 % from Ingre et al. 2014's ordinal model 5c
    kss = np.arange(3.0, 10.0)
    at_least_8 = [0.4, 1.3, 4.5, 14.9, 39.2, 70.3, 89.7]
    at_least_7 = [1.2, 4.3, 14.3, 37.9, 69.2, 89.2, 96.8]
    np.testing.assert_allclose(100 * kss_at_least(kss, 8), at_least_8, atol=0.051)
    np.testing.assert_allclose(100 * kss_at_least(kss, 7), at_least_7, atol=0.051)


def test_reference_limits_add_the_published_offsets() -> None:
    # Ingre et al. 2014 (reference §2.5): 75th and 90th percentile crew +0.57, +1.07 KSS
    kss = np.array([3.0, 6.0, 8.5])
    np.testing.assert_array_equal(kss_limit(kss, 50), kss)
    np.testing.assert_allclose(kss_limit(kss, 75), [3.57, 6.57, 9.0])
    np.testing.assert_allclose(kss_limit(kss, 90), [4.07, 7.07, 9.0])
    with pytest.raises(ValueError):
        kss_limit(kss, 95)


def test_percentiles_in_the_response_are_opt_in() -> None:
    from vigil.scoring.service import ScoreRequest, score

    roster = (
        "Reference,OnDutyDate,OnDutyTime,StartAirport,OffDutyDate,OffDutyTime,EndAirport,"
        "Sectors,HomeBase,TimeReference\r\nP,10/03/2026,22:00,ACC,11/03/2026,06:00,ACC,1,ACC,0"
    )
    report = score(ScoreRequest(roster, scale="SP", extra_scales=("KSS",)))
    assert report.errors == ()
    assert "percentiles" not in report.to_envelope()["scheduleScores"][0]
    entry = replace(report, percentiles=True).to_envelope()["scheduleScores"][0]
    block, duty = entry["percentiles"], entry["duties"][0]["percentileSummary"]
    kss = np.asarray(report.schedules[0].scores["KSS"])
    np.testing.assert_allclose(block["kss90"], np.clip(kss + 1.07, 1, 9), atol=6e-4)
    assert duty["maxKss90"] == pytest.approx(max(block["kss90"]), abs=1e-9)
    assert duty["maxPKss7"] >= duty["meanPKss7"] > duty["meanPKss8"] > 0
    assert len(block["pKss7"]) == len(entry["fatigueScores"])  # one per interval
