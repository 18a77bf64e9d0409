"""A roster scored on a real ``distributed.LocalCluster`` equals local processing."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from typing import Any

import distributed
import numpy as np
import pytest

from vigil.domain import DateFormat
from vigil.results.compact import unpack
from vigil.scoring.service import SCALE_CODES, ScoreRequest, score
from vigil.worker.dask import DaskScorer
from vigil.worker.run import InlineScorer, score_roster

from ._rosters import ROSTER

# distributed leaves client sockets to the garbage collector after the cluster closes;
# collect them here (teardown below) instead of in whichever test runs next.
pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as dask_client,
    ):
        yield dask_client
    gc.collect()


def test_cluster_results_equal_local(client: Any) -> None:
    request = ScoreRequest(ROSTER, DateFormat.DMY, scale="KSS", risk=True)
    local = score_roster(request, chunk_size=1, local=InlineScorer())
    remote_scorer = DaskScorer(client)
    remote = score_roster(request, chunk_size=1, local=InlineScorer(), remote=remote_scorer)
    assert remote.schedule_count == 3  # three chunks of one schedule went to the cluster
    assert remote.scores == local.scores  # byte-identical blobs, merged in schedule order
    assert remote.errors == local.errors == []
    stored = unpack(remote.scores)
    for scale in SCALE_CODES:
        with np.errstate(invalid="ignore"):  # KP NaN-padding warning in the model
            want = score(ScoreRequest(ROSTER, DateFormat.DMY, scale=scale, risk=True))
        got = b"".join(stored.envelope(scale, model_version=remote.model_version, errors=[]))
        assert json.loads(got) == want.to_envelope()
    remote_scorer.close()  # does not close a client it did not create
    assert client.status == "running"


def test_warm_up_runs_once_on_every_worker(client: Any) -> None:
    scorer = DaskScorer(client)
    seconds = scorer.warm_up()
    assert set(seconds) == set(client.nthreads()) and len(seconds) == 1
    assert all(s > 0 for s in seconds.values())
    scorer.close()
    assert client.status == "running"


def test_a_closed_scorer_does_not_connect() -> None:
    """The pool's warm-up thread may reach the client after the pool has stopped."""
    scorer = DaskScorer("tcp://127.0.0.1:9")
    scorer.close()
    with pytest.raises(RuntimeError, match="closed"):
        scorer.client()
