"""The published OpenAPI document is one a client generator can use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, Depends
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

from vigil.config.settings import Settings
from vigil.web.app import create_app
from vigil.web.deps import SECURITY_SCHEMES
from vigil.web.openapi_doc import add_security, user_text


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    settings = Settings.from_mapping({"data_dir": str(tmp_path_factory.mktemp("data"))})
    return create_app(settings).openapi()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op) for path, ops in document["paths"].items() for method, op in ops.items()
    ]


def test_no_422_and_errors_are_problem_json(document: dict[str, Any]) -> None:
    for path, method, op in operations(document):
        answers = op["responses"]
        assert "422" not in answers, (path, method)
        if path.startswith("/api/"):
            assert {"400", "401", "403"} <= set(answers), (path, method)
            assert "content" not in answers["403"]  # insufficient_scope: empty body
            for code in ("400", "401", "404", "409", "413", "429"):
                if code in answers:
                    schema = answers[code]["content"]["application/problem+json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ProblemOut"}
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_every_api_answer_has_a_schema(document: dict[str, Any]) -> None:
    for path, method, op in operations(document):
        if not path.startswith("/api/"):
            continue
        ok = op["responses"].get("200")
        if method == "delete":
            assert "204" in op["responses"]
            continue
        assert ok["content"]["application/json"]["schema"], (path, method)
    get_results = document["paths"]["/api/GetResults"]["get"]["responses"]["200"]
    refs = {
        v["$ref"].rsplit("/", 1)[1]
        for v in get_results["content"]["application/json"]["schema"]["anyOf"]
    }
    assert refs == {
        "RosterStatusOut",
        "FeedbackOut",
        "ScoresOut",
        "SleepResultsOut",
        "RosterSummaryOut",
    }
    token = document["paths"]["/connect/token"]["post"]["responses"]
    assert token["200"]["content"]["application/json"]["schema"]["$ref"].endswith("TokenOut")


def test_oauth2_flow_lists_the_scopes(document: dict[str, Any]) -> None:
    flow = document["components"]["securitySchemes"]["OAuth2"]["flows"]["clientCredentials"]
    assert set(flow["scopes"]) == {
        "svc_fast_safe_api",
        "svc_fast_safe_risk_api",
        "svc_safe_upload_api",
    }


def test_text_cites_no_internal_document(document: dict[str, Any]) -> None:
    text = json.dumps(document, ensure_ascii=False)
    for internal in ("seed §", "Seed §", "contract §", "reference §", "STYLE §"):
        assert internal not in text


def test_user_text_cuts_citations() -> None:
    assert user_text("Score a roster (seed §4.2); needs the fatigue scope.") == (
        "Score a roster; needs the fatigue scope."
    )
    assert user_text("Seed §9.1: version 1 is gone.") == "version 1 is gone."
    assert user_text("The contract §4 envelope.") == "The envelope."
    assert user_text("Access token (RFC 6749 §5.1).") == "Access token (RFC 6749 §5.1)."


def test_console_templates_cite_no_internal_document() -> None:
    templates = Path(__file__).parents[2] / "src" / "vigil" / "web" / "console" / "templates"
    for page in templates.glob("*.html"):
        assert "§" not in page.read_text(encoding="utf-8"), page.name


class _Body(BaseModel):
    text: str


def _with_query(limit: int = 0) -> dict[str, int]:
    return {"limit": limit}


def _with_body(body: _Body) -> dict[str, str]:
    return {"text": body.text}


def _plain() -> dict[str, str]:
    return {}


def test_security_is_written_where_fastapi_writes_it() -> None:
    """``add_security`` (the schemes are not dependencies) gives the bytes FastAPI
    gives when they are: operations with and without parameters, and an open one."""

    def document(secured_by: list[Any]) -> dict[str, Any]:
        router = APIRouter()
        router.add_api_route("/api/Query", _with_query, methods=["GET"], dependencies=secured_by)
        router.add_api_route("/api/Body", _with_body, methods=["POST"], dependencies=secured_by)
        router.add_api_route("/api/Plain", _plain, methods=["DELETE"], dependencies=secured_by)
        router.add_api_route("/open", _plain, methods=["GET"])
        return get_openapi(title="t", version="1", routes=router.routes)

    expected = document([Depends(scheme) for scheme in SECURITY_SCHEMES])
    secured = {("/api/Query", "GET"), ("/api/Body", "POST"), ("/api/Plain", "DELETE")}
    ours = add_security(document([]), secured, SECURITY_SCHEMES)
    assert json.dumps(ours) == json.dumps(expected)
    assert "security" not in ours["paths"]["/open"]["get"]


def test_every_scoped_operation_lists_the_schemes(document: dict[str, Any]) -> None:
    from vigil.web._preauth import protected_routes
    from vigil.web.app import EMBEDDED_ROUTERS, IDENTITY_ROUTERS, _load_router

    routers = [*IDENTITY_ROUTERS, *(_load_router(spec) for spec in EMBEDDED_ROUTERS)]
    scoped = protected_routes(route for router in routers for route in router.routes)
    listed = {
        (path, method.upper()): op["security"]
        for path, method, op in operations(document)
        if "security" in op
    }
    assert set(listed) == set(scoped) and len(scoped) >= 12
    assert all(
        s == [{"HTTPBearer": []}, {"OAuth2": []}, {"HTTPBasic": []}] for s in listed.values()
    )
    assert list(document["components"]["securitySchemes"]) == ["HTTPBearer", "OAuth2", "HTTPBasic"]
