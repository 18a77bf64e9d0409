"""``/docs``: Swagger UI served from installed packages, offline, under a strict CSP.

FastAPI's default ``/docs`` loads Swagger UI from a public CDN at a floating version,
with no Subresource Integrity, and starts it with an inline script; operators paste
client secrets into that page, and it fails on a network without internet.
Here the assets come from the ``swagger-ui-py`` wheel, pinned exactly in
``pyproject.toml`` (it ships the Swagger UI 5 ``dist`` files and their Apache-2.0
licence, served at ``/docs/static/LICENSE``); the start-up script is our own file
(``docs_static/swagger-init.js``). The page, like the console, carries
:data:`vigil.web.console._web.SECURITY_HEADERS` (``default-src 'self'``, no inline
scripts, ``frame-ancestors 'none'``). ReDoc (``/redoc``), which only exists as a CDN
script in FastAPI, and the OAuth2 redirect page (only used by flows Vigil does not
offer) are not served.
"""

from __future__ import annotations

from html import escape
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

from vigil.web.console._web import SECURITY_HEADERS

#: Swagger UI's files as installed by the pinned ``swagger-ui-py`` wheel
SWAGGER_DIR = Path(str(files("swagger_ui") / "static"))
OUR_DIR = Path(__file__).resolve().parent / "docs_static"
#: the only files ``/docs/static/`` serves, and their media types
ASSETS: dict[str, tuple[Path, str]] = {
    "swagger-ui.css": (SWAGGER_DIR, "text/css"),
    "swagger-ui-bundle.js": (SWAGGER_DIR, "text/javascript"),
    "favicon-32x32.png": (SWAGGER_DIR, "image/png"),
    "LICENSE": (SWAGGER_DIR, "text/plain; charset=utf-8"),
    "swagger-init.js": (OUR_DIR, "text/javascript"),
}

router = APIRouter(include_in_schema=False)

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title} - API documentation</title>
<link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png">
<link rel="stylesheet" href="/docs/static/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/static/swagger-init.js"></script>
</body>
</html>
"""


def docs_page(title: str, openapi_url: str = "/openapi.json") -> HTMLResponse:
    """The Swagger UI page for an app titled ``title``."""
    html = _PAGE.format(title=escape(title), openapi=escape(openapi_url))
    return HTMLResponse(html, headers={"Cache-Control": "no-cache", **SECURITY_HEADERS})


@router.get("/docs/static/{name}")
def docs_asset(name: str) -> FileResponse:
    """One of :data:`ASSETS`; any other name is 404."""
    found = ASSETS.get(name)
    if found is None or not (found[0] / name).is_file():
        raise HTTPException(404, "no such file")
    folder, media_type = found
    return FileResponse(
        folder / name,
        media_type=media_type,
        headers={"Cache-Control": "public, max-age=3600", **SECURITY_HEADERS},
    )
