"""The published OpenAPI document, finished so that client generators get real types.

FastAPI's document is completed here:

- every error answer is documented as it is sent: 400, 401, 404, 409, 413, 429 and 503
  as ``application/problem+json`` (:class:`~vigil.web.schemas.ProblemOut`), 403 with an
  empty body; FastAPI's default 422 answers, which the service never sends, are removed;
- every operation that requires a scope lists the security schemes
  (:func:`add_security`), and the OAuth 2.0 client-credentials flow this deployment's
  scopes;
- text meant for maintainers (citations of internal documents) is cut from descriptions.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from fastapi.encoders import jsonable_encoder
from fastapi.security.base import SecurityBase
from pydantic import TypeAdapter

from vigil.auth.scopes import ScopeKind, ScopeTable
from vigil.web.problems import PROBLEM_JSON
from vigil.web.schemas import ProblemOut

#: the document's introduction
API_DESCRIPTION = """Fatigue scores for airline crew rosters.

1. Get an access token: `POST /connect/token` with your client ID and secret (HTTP Basic)
   and `grant_type=client_credentials`; without `scope` the token holds every scope your
   client has. Tokens last `expires_in` seconds: reuse one until shortly before then.
2. Score a roster at once (`/api/Processor/ProcessFatigue`, `/api/Processor/ProcessFatigueRisk`)
   or upload a large one (`/api/UploadRoster`) and fetch its results (`/api/GetResults`).

Errors are `application/problem+json` (RFC 9457); a 400 names each offending property.
Responses are compressed with zstd, br or gzip when the request's `Accept-Encoding` allows.
"""

#: what each scope allows, for the OAuth2 flow's ``scopes``
SCOPE_TEXT = {
    ScopeKind.FATIGUE: "ProcessFatigue: fatigue scores per 15-minute interval.",
    ScopeKind.RISK: "ProcessFatigueRisk: fatigue scores and a risk score per duty.",
    ScopeKind.UPLOAD: "UploadRoster, GetResults, DeleteRoster, ListRosters.",
}

#: default descriptions of error answers, where an operation gives none
ERROR_TEXT = {
    400: "The request is invalid: problem+json naming each offending property in `errors`.",
    401: "Missing, invalid or expired credentials (`WWW-Authenticate` says which scheme).",
    403: "The token is valid but lacks this operation's scope: empty body, "
    '`WWW-Authenticate: Bearer error="insufficient_scope"`.',
    404: "No roster with this token for your operator.",
    409: "Conflict with the roster's current state.",
    413: "The body is larger than this operation accepts.",
    429: "Too many requests or rosters waiting; retry after `Retry-After` seconds.",
    503: "Temporarily unavailable (database, keys or start-up); retry after `Retry-After`.",
}

#: citations of internal documents: "(seed §4.2)", "(contract §4, ours)", "contract §4 "
_CITATION = re.compile(
    r"\s*\((?:[^()]*?\b(?:seed|contract|reference|STYLE)\s*§[^()]*|ours)\)"
    r"|\b(?:seed|contract|reference)\s*§\s*[\d.]+(?:\s*(?:,|and)\s*§?\s*[\d.]+)*:?\s*",
    re.IGNORECASE,
)


def user_text(text: str) -> str:
    """``text`` without citations of documents users don't have."""
    cleaned = _CITATION.sub("", text)
    return re.sub(r"\s+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", cleaned)).strip()


def _clean(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                user_text(v)
                if k in ("description", "summary") and isinstance(v, str)
                else _clean(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


def _problem_schema(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    generated = TypeAdapter(ProblemOut).json_schema(ref_template="#/components/schemas/{model}")
    for name, definition in generated.pop("$defs", {}).items():
        schemas.setdefault(name, definition)
    schemas["ProblemOut"] = generated
    return {"$ref": "#/components/schemas/ProblemOut"}


def add_security(
    document: dict[str, Any],
    secured: Collection[tuple[str, str]],
    schemes: Sequence[SecurityBase],
) -> dict[str, Any]:
    """List ``schemes`` on each operation of ``secured`` (``(path, METHOD)`` pairs), in place.

    What FastAPI writes for security schemes declared as dependencies, which ours are not
    (:data:`vigil.web.deps.SECURITY_SCHEMES`), where FastAPI writes it: the operation's
    ``security`` before its ``parameters`` (last when it has none), and each scheme's
    definition under ``components.securitySchemes``.
    """
    listed = False
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            if (path, method.upper()) not in secured:
                continue
            security: list[dict[str, list[str]]] = [{s.scheme_name: []} for s in schemes]
            rebuilt: dict[str, Any] = {}
            for key, value in operation.items():
                if key == "parameters":
                    rebuilt["security"] = security
                rebuilt[key] = value
            rebuilt.setdefault("security", security)
            operations[method] = rebuilt
            listed = True
    if listed:
        document.setdefault("components", {})["securitySchemes"] = {
            scheme.scheme_name: jsonable_encoder(scheme.model, by_alias=True, exclude_none=True)
            for scheme in schemes
        }
    return document


def finish_document(document: dict[str, Any], scopes: ScopeTable) -> dict[str, Any]:
    """Complete FastAPI's ``document`` in place (see the module docstring); returns it."""
    problem_ref = _problem_schema(document)
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            responses: dict[str, Any] = operation.setdefault("responses", {})
            responses.pop("422", None)
            if path.startswith("/api/"):
                for status in (400, 401, 403):
                    responses.setdefault(str(status), {})
                if method == "post":
                    responses.setdefault("413", {})
            if path.startswith("/connect/"):
                continue  # RFC 6749 errors, documented by the token route
            for code, answer in responses.items():
                status = int(code) if code.isdigit() else 0
                if status < 400:
                    continue
                answer.setdefault("description", ERROR_TEXT.get(status, "Error."))
                if status == 403:
                    answer.pop("content", None)  # the insufficient_scope answer is empty
                else:
                    answer["content"] = {PROBLEM_JSON: {"schema": problem_ref}}
    schemas = document.get("components", {}).get("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    for scheme in document.get("components", {}).get("securitySchemes", {}).values():
        flow = scheme.get("flows", {}).get("clientCredentials")
        if flow is not None:
            flow["scopes"] = {scopes.name(kind): text for kind, text in SCOPE_TEXT.items()}
    cleaned: dict[str, Any] = _clean(document)
    document.clear()
    document.update(cleaned)
    return document
