"""The scope table of seed §5.5 / contract §1, §2, §8.

Scope names are ``{op}_fast_safe_api``, ``{op}_fast_safe_risk_api`` and
``{op}_safe_upload_api`` where ``{op}`` is the deployment's short name (``svc`` by
default, ``VIGIL_SCOPE_PREFIX``). Clients are stored with scope *kinds* (``fatigue``,
``risk``, ``upload``), so changing the prefix does not orphan stored clients (ours).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class ScopeKind(StrEnum):
    """What a scope grants access to (seed §5.5)."""

    FATIGUE = "fatigue"  #: ProcessFatigue
    RISK = "risk"  #: ProcessFatigueRisk
    UPLOAD = "upload"  #: every upload-surface call


_SUFFIX: dict[ScopeKind, str] = {
    ScopeKind.FATIGUE: "fast_safe_api",
    ScopeKind.RISK: "fast_safe_risk_api",
    ScopeKind.UPLOAD: "safe_upload_api",
}

#: endpoint name -> scope kind it needs (seed §4.2–4.5, contract §2)
ENDPOINT_SCOPES: dict[str, ScopeKind] = {
    "ProcessFatigue": ScopeKind.FATIGUE,
    "ProcessFatigueRisk": ScopeKind.RISK,
    "UploadRoster": ScopeKind.UPLOAD,
    "GetResults": ScopeKind.UPLOAD,
    "DeleteRoster": ScopeKind.UPLOAD,
    "ListRosters": ScopeKind.UPLOAD,
}

ALL_KINDS: tuple[ScopeKind, ...] = (ScopeKind.FATIGUE, ScopeKind.RISK, ScopeKind.UPLOAD)


def parse_kinds(text: str) -> frozenset[ScopeKind]:
    """Parse the CLI form ``all`` or ``fatigue,risk,upload`` (comma or space separated).

    Raises
    ------
    ValueError
        For an unknown kind or an empty list.
    """
    parts = [p.strip().lower() for p in text.replace(",", " ").split()]
    if not parts:
        raise ValueError("no scopes given; use 'all' or a list of fatigue, risk, upload")
    if parts == ["all"]:
        return frozenset(ALL_KINDS)
    kinds: set[ScopeKind] = set()
    for part in parts:
        try:
            kinds.add(ScopeKind(part))
        except ValueError:
            known = ", ".join(k.value for k in ALL_KINDS)
            raise ValueError(f"unknown scope kind {part!r}; known: all, {known}") from None
    return frozenset(kinds)


def format_kinds(kinds: Iterable[ScopeKind]) -> str:
    """Stored form: kinds in table order, space-separated (``"fatigue upload"``)."""
    chosen = set(kinds)
    return " ".join(k.value for k in ALL_KINDS if k in chosen)


@dataclass(frozen=True, slots=True)
class ScopeTable:
    """The scope names of one deployment.

    Parameters
    ----------
    prefix : str
        The operator short name ``{op}`` (contract §8), e.g. ``"svc"``.
    """

    prefix: str = "svc"

    def name(self, kind: ScopeKind | str) -> str:
        """The wire scope for ``kind``, e.g. ``"svc_fast_safe_risk_api"`` for ``"risk"``."""
        return f"{self.prefix}_{_SUFFIX[ScopeKind(kind)]}"

    def names(self, kinds: Iterable[ScopeKind] | None = None) -> tuple[str, ...]:
        """Wire scopes of ``kinds`` (all by default), in table order."""
        chosen = set(ALL_KINDS if kinds is None else kinds)
        return tuple(self.name(k) for k in ALL_KINDS if k in chosen)

    def kind_of(self, scope: str) -> ScopeKind | None:
        """The kind a wire scope names, or ``None`` when it is not one of ours."""
        for kind in ALL_KINDS:
            if scope == self.name(kind):
                return kind
        return None

    def for_endpoint(self, endpoint: str) -> str:
        """The wire scope an endpoint needs (contract §2)."""
        return self.name(ENDPOINT_SCOPES[endpoint])
