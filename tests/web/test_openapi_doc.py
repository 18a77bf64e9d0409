"""The published OpenAPI document is one a client generator can use (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vigil.web.app import create_app
from vigil.web.openapi_doc import user_text
from vigil.web.settings import Settings


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
    assert refs == {"RosterStatusOut", "FeedbackOut", "ScoresOut", "SleepResultsOut"}
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
