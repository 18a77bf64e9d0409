"""The client: token cache, scoring, uploads, waiting and streamed results."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypedDict, cast

import httpx

from vigil import contract

#: statuses after which a roster no longer changes
FINISHED = frozenset(status.value for status in contract.FINISHED)


class RosterStatus(TypedDict, total=False):
    """GetResults ``dataKey=status`` (``progress`` when the server reports it)."""

    rosterToken: str
    status: str
    submittedAt: str
    updatedAt: str
    progress: dict[str, int]


@dataclass(frozen=True)
class Upload:
    """What UploadRoster returned."""

    roster_token: str
    roster_name: str


class VigilError(Exception):
    """An error answer: ``status`` and the problem (or OAuth error) document."""

    def __init__(self, status: int, document: Mapping[str, Any]) -> None:
        detail = document.get("detail") or document.get("error_description") or ""
        title = document.get("title") or document.get("error") or "error"
        super().__init__(f"{status} {title}: {detail}".rstrip(": "))
        self.status = status
        self.document = dict(document)


class VigilClient:
    """One API client (client ID and secret) of one Vigil deployment.

    Parameters
    ----------
    base_url : str
        Where the service answers, e.g. ``https://vigil.example.com``.
    client_id, client_secret : str
        From ``vigil client create`` (or the first start of ``vigil serve``).
    timeout : float
        Seconds for each HTTP call (scoring a large roster synchronously takes a while).
    refresh_margin : float
        Fetch a new token this many seconds before the cached one expires [s].
    http : httpx.Client, optional
        A client of your own (proxies, TLS); by default one is created and closed here.
    """

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        timeout: float = 120.0,
        refresh_margin: float = 60.0,
        http: httpx.Client | None = None,
    ) -> None:
        self._own_http = http is None
        self._http = http or httpx.Client(timeout=timeout)
        self._base = base_url.rstrip("/")
        self._auth = (client_id, client_secret)
        self._margin = refresh_margin
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires = 0.0
        #: how many tokens were fetched (a cache that works fetches one per lifetime)
        self.tokens_fetched = 0

    # --- plumbing ------------------------------------------------------------------------

    def __enter__(self) -> VigilClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP client if this object created it."""
        if self._own_http:
            self._http.close()

    def token(self) -> str:
        """A bearer token holding every scope of this client, cached until
        ``refresh_margin`` seconds before it expires."""
        with self._lock:
            if self._token is None or time.monotonic() >= self._expires:
                response = self._http.post(
                    f"{self._base}/connect/token",
                    data={"grant_type": "client_credentials"},
                    auth=self._auth,
                )
                body = self._json(response)
                self._token = str(body["access_token"])
                lifetime = float(body.get("expires_in", 0))
                self._expires = time.monotonic() + max(lifetime - self._margin, 0.0)
                self.tokens_fetched += 1
            return self._token

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token()}"}
        url = f"{self._base}{path}"
        response = self._http.request(method, url, headers=headers, **kwargs)
        if response.status_code == 401:  # revoked or expired early: one fresh token
            with self._lock:
                self._token = None
            headers = {"Authorization": f"Bearer {self.token()}"}
            response = self._http.request(method, url, headers=headers, **kwargs)
        return response

    @staticmethod
    def _json(response: httpx.Response) -> dict[str, Any]:
        if response.status_code >= 400:
            try:
                document = response.json()
            except ValueError:
                document = {"title": response.reason_phrase}
            raise VigilError(response.status_code, document if isinstance(document, dict) else {})
        return cast(dict[str, Any], response.json())

    # --- scoring ---------------------------------------------------------------------------

    def score(
        self,
        roster: str,
        *,
        risk: bool = False,
        scale: str = "KSS",
        date_format: Literal["dmy", "mdy"] = "dmy",
        sleep: Sequence[Mapping[str, str]] = (),
        include_sleep: bool = False,
    ) -> dict[str, Any]:
        """Score ``roster`` (CSV text) at once: ProcessFatigue, or ProcessFatigueRisk with
        ``risk``. Returns ``{scale, modelVersion, scheduleScores, errors}``."""
        operation = "ProcessFatigueRisk" if risk else "ProcessFatigue"
        response = self._request(
            "POST",
            f"/api/Processor/{operation}",
            params={"includeSleep": "true"} if include_sleep else None,
            json={
                "RosterData": roster,
                "SleepData": list(sleep),
                "DateFormat": date_format,
                "PreferredScale": scale,
            },
        )
        return self._json(response)

    # --- uploads ---------------------------------------------------------------------------

    def upload(
        self,
        roster: str,
        *,
        name: str | None = None,
        overwrite: bool = False,
        scale: str = "KSS",
        date_format: Literal["dmy", "mdy"] = "dmy",
        activities: str = "",
        sleep: Sequence[Mapping[str, str]] = (),
    ) -> Upload:
        """UploadRoster: store ``roster`` for processing; returns its token and name."""
        body: dict[str, Any] = {
            "RosterData": roster,
            "ActivityData": activities,
            "SleepData": list(sleep),
            "DateFormat": date_format,
            "PreferredScale": scale,
            "Overwrite": overwrite,
        }
        if name is not None:
            body["RosterName"] = name
        answer = self._json(self._request("POST", "/api/UploadRoster", json=body))
        return Upload(str(answer["rosterToken"]), str(answer["rosterName"]))

    def status(self, roster_token: str) -> RosterStatus:
        """GetResults ``dataKey=status``."""
        params = {"rosterToken": roster_token, "dataKey": "status"}
        return cast(
            RosterStatus, self._json(self._request("GET", "/api/GetResults", params=params))
        )

    def wait(
        self,
        roster_token: str,
        *,
        timeout: float = 3600.0,
        poll: float = 1.0,
        progress: Callable[[RosterStatus], None] | None = None,
    ) -> RosterStatus:
        """Poll the status every ``poll`` s until processing ends; ``progress`` is called
        with each status read. Raises ``TimeoutError`` after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            current = self.status(roster_token)
            if progress is not None:
                progress(current)
            if current.get("status") in FINISHED:
                return current
            if time.monotonic() >= deadline:
                raise TimeoutError(f"roster {roster_token} still {current.get('status')}")
            time.sleep(poll)

    def feedback(self, roster_token: str) -> dict[str, Any]:
        """GetResults ``dataKey=feedback``: the data errors, ``row|schedule|message``."""
        params = {"rosterToken": roster_token, "dataKey": "feedback"}
        return self._json(self._request("GET", "/api/GetResults", params=params))

    def stream_results(
        self,
        roster_token: str,
        *,
        scale: str | None = None,
        chunk_size: int = 65536,
        schedules: Sequence[str] = (),
        offset: int | None = None,
        limit: int | None = None,
        include_sleep: bool = False,
        data_key: str = "scores",
    ) -> Iterator[bytes]:
        """GetResults ``dataKey=scores`` (or ``sleep``) as decoded JSON bytes, chunk by
        chunk: a month of a large airline never has to fit in memory. ``schedules``,
        ``offset`` and ``limit`` select part of the roster (docs/upload.md)."""
        params: list[tuple[str, str]] = [("rosterToken", roster_token), ("dataKey", data_key)]
        if scale:
            params.append(("scale", scale))
        if include_sleep:
            params.append(("includeSleep", "true"))
        params += [("schedule", name) for name in schedules]
        if offset is not None:
            params.append(("offset", str(offset)))
        if limit is not None:
            params.append(("limit", str(limit)))
        headers = {"Authorization": f"Bearer {self.token()}"}
        with self._http.stream(
            "GET", f"{self._base}/api/GetResults", params=tuple(params), headers=headers
        ) as r:
            if r.status_code >= 400:
                r.read()
                self._json(r)
            yield from r.iter_bytes(chunk_size)

    def results(
        self,
        roster_token: str,
        *,
        scale: str | None = None,
        schedules: Sequence[str] = (),
        offset: int | None = None,
        limit: int | None = None,
        include_sleep: bool = False,
    ) -> dict[str, Any]:
        """GetResults ``dataKey=scores`` parsed whole (small rosters or pages; else
        :meth:`stream_results`)."""
        import json

        chunks = self.stream_results(
            roster_token,
            scale=scale,
            schedules=schedules,
            offset=offset,
            limit=limit,
            include_sleep=include_sleep,
        )
        return cast(dict[str, Any], json.loads(b"".join(chunks)))

    def sleep(
        self,
        roster_token: str,
        *,
        schedules: Sequence[str] = (),
        offset: int | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """GetResults ``dataKey=sleep``: the sleep each schedule's scores rest on."""
        import json

        chunks = self.stream_results(
            roster_token, schedules=schedules, offset=offset, limit=limit, data_key="sleep"
        )
        return cast(dict[str, Any], json.loads(b"".join(chunks)))

    def list_rosters(self) -> list[dict[str, Any]]:
        """ListRosters: your operator's rosters, newest first."""
        return list(self._json(self._request("GET", "/api/ListRosters"))["rosters"])

    def delete(self, roster_token: str) -> None:
        """DeleteRoster."""
        response = self._request(
            "DELETE", "/api/DeleteRoster", params={"rosterToken": roster_token}
        )
        if response.status_code != 204:
            self._json(response)
