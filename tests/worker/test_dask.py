"""A roster scored on a real ``distributed.LocalCluster`` equals local processing; the
cluster splits the text and builds the summary, the worker hands bytes over."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Iterator
from typing import Any

import distributed
import numpy as np
import orjson
import pytest
from dask.utils import key_split
from sqlalchemy.orm import Session, sessionmaker

from vigil.domain import DateFormat
from vigil.fleet.stored import WORKER_SUMMARIES, build
from vigil.results.compact import unpack
from vigil.roster.synthetic import generate_airline_roster
from vigil.scoring.service import SCALE_CODES, ScoreRequest, score
from vigil.store import uploads
from vigil.store.tables import RosterResult
from vigil.worker.dask import DaskScorer
from vigil.worker.run import InlineScorer, Worker, score_roster

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


def _task_names(client: Any, since: float) -> set[str]:
    return {key_split(task["key"]) for task in client.get_task_stream(start=since)}


def test_the_cluster_splits_the_roster_text(client: Any) -> None:
    """Only the text goes to the cluster: a task there splits it and builds each part's
    task, so the worker never reads the roster's lines; the blob is the local one."""
    text = generate_airline_roster(12, 14, seed=3)
    extra = tuple(s for s in SCALE_CODES if s != "KSS")
    request = ScoreRequest(text, DateFormat.DMY, scale="KSS", risk=True, extra_scales=extra)
    client.get_task_stream(count=1)  # the scheduler records from now
    since = time.time()
    scorer = DaskScorer(client)
    remote = score_roster(request, chunk_size=4, local=InlineScorer(), remote=scorer)
    local = score_roster(request, chunk_size=4, local=InlineScorer())
    assert remote.remote and not local.remote
    assert remote.scores == local.scores and remote.sleep == local.sleep
    assert remote.route_parts == local.route_parts and len(local.route_parts or ()) == 3
    assert {"split_roster", "split_counts", "task_of"} <= _task_names(client, since)
    # a roster of fewer lines than a chunk's schedules stays here
    small = score_roster(request, chunk_size=10_000, local=InlineScorer(), remote=scorer)
    whole = score_roster(request, chunk_size=10_000, local=InlineScorer())
    assert not small.remote and small.scores == whole.scores
    scorer.close()


def test_the_summary_is_built_on_the_cluster(client: Any, sessions: sessionmaker[Session]) -> None:
    """The worker hands the scores over and stores the bytes the cluster built: the
    summary of the parsed roster."""
    text = generate_airline_roster(12, 14, seed=4)
    with sessions.begin() as session:
        upload_id = uploads.create_upload(
            session=session, operator="acme", roster_name="m", roster_text=text
        ).id
    client.get_task_stream(count=1)
    since = time.time()
    scorer = DaskScorer(client)
    worker = Worker(sessions, chunk_size=4, remote=scorer, record_summary=WORKER_SUMMARIES)
    assert worker.run_once()
    assert "SummaryBuild" in _task_names(client, since)
    with sessions() as session:
        result = session.get(RosterResult, upload_id)
        assert result is not None and result.summary_json is not None
        stored = unpack(result.scores, ("KSS",))
        whole = build(stored, roster_text=text, scale="KSS", model_version=result.model_version)
        assert orjson.loads(result.summary_json) == orjson.loads(whole)
    scorer.close()
