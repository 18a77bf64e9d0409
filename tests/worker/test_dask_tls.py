"""The upload workers' Dask client over mutual TLS, on a real ``LocalCluster``.

A throwaway CA, scheduler/worker certificate and client certificate are made here with
``cryptography``; the cluster requires encryption, so a client without a certificate
signed by that CA cannot connect.
"""

from __future__ import annotations

import datetime as dt
import gc
import ipaddress
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from distributed.security import Security

from vigil.config.settings import Settings
from vigil.domain import DateFormat
from vigil.scoring.service import ScoreRequest
from vigil.worker.dask import DaskScorer, tls_security
from vigil.worker.run import InlineScorer, WorkerPool, score_roster

from ._rosters import ROSTER

pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _issue(
    folder: Path, stem: str, subject: str, ca: tuple[Any, x509.Certificate] | None
) -> tuple[Any, x509.Certificate]:
    """A P-256 key and certificate (self-signed CA when ``ca`` is None), written as PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    issuer_key, issuer_name = (key, _name(subject)) if ca is None else (ca[0], ca[1].subject)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca is None, path_length=None), critical=True)
    )
    if ca is not None:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    cert = builder.sign(issuer_key, hashes.SHA256())
    (folder / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / f"{stem}.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return key, cert


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pki")
    ca = _issue(folder, "ca", "vigil test CA", None)
    _issue(folder, "node", "dask node", ca)
    _issue(folder, "client", "vigil upload worker", ca)
    _issue(folder, "rogue-ca", "someone else", None)
    return folder


@pytest.fixture(scope="module")
def cluster(pki: Path) -> Iterator[Any]:
    node = {"cert": str(pki / "node.pem"), "key": str(pki / "node.key")}
    security = Security(  # type: ignore[no-untyped-call]
        tls_ca_file=str(pki / "ca.pem"),
        tls_scheduler_cert=node["cert"],
        tls_scheduler_key=node["key"],
        tls_worker_cert=node["cert"],
        tls_worker_key=node["key"],
        tls_client_cert=node["cert"],
        tls_client_key=node["key"],
        require_encryption=True,
    )
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        dashboard_address=None,
        protocol="tls://",
        host="127.0.0.1",
        security=security,
    ) as local:
        yield local
    gc.collect()


def test_rosters_are_scored_over_mutual_tls(cluster: Any, pki: Path) -> None:
    assert cluster.scheduler_address.startswith("tls://")
    security = tls_security(pki / "ca.pem", pki / "client.pem", pki / "client.key")
    scorer = DaskScorer(cluster.scheduler_address, security=security)
    try:
        request = ScoreRequest(ROSTER, DateFormat.DMY, scale="KSS", risk=True)
        local = score_roster(request, chunk_size=1, local=InlineScorer())
        remote = score_roster(request, chunk_size=1, local=InlineScorer(), remote=scorer)
        assert remote.scores == local.scores
    finally:
        scorer.close()


def test_a_client_without_the_cas_certificate_cannot_connect(cluster: Any, pki: Path) -> None:
    plain = cluster.scheduler_address.replace("tls://", "tcp://")
    with pytest.raises(OSError):
        distributed.Client(plain, timeout=3, set_as_default=False)  # type: ignore[no-untyped-call]
    rogue = tls_security(pki / "rogue-ca.pem", pki / "rogue-ca.pem", pki / "rogue-ca.key")
    with pytest.raises(OSError):
        distributed.Client(  # type: ignore[no-untyped-call]
            cluster.scheduler_address, security=rogue, timeout=3, set_as_default=False
        )


def test_settings_build_the_pools_tls_client(pki: Path, tmp_path: Path) -> None:
    from sqlalchemy.orm import sessionmaker

    values = {
        "dask_scheduler": "tls://127.0.0.1:8786",
        "dask_tls_ca": str(pki / "ca.pem"),
        "dask_tls_cert": str(pki / "client.pem"),
        "dask_tls_key": str(pki / "client.key"),
        "worker_processes": 0,
    }
    pool = WorkerPool.from_settings(sessionmaker(), Settings.from_mapping(values))
    assert isinstance(pool.remote, DaskScorer)
    security = pool.remote._security
    assert security.require_encryption
    assert security.tls_client_cert == str(pki / "client.pem")
    with pytest.raises(ValueError, match="together"):
        WorkerPool.from_settings(
            sessionmaker(), Settings.from_mapping({**values, "dask_tls_key": None})
        )
    with pytest.raises(FileNotFoundError):
        WorkerPool.from_settings(
            sessionmaker(), Settings.from_mapping({**values, "dask_tls_ca": str(tmp_path / "x")})
        )
