"""The OpenAPI schema generates cleanly and is served; Swagger UI works offline."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    # Raises (exit 1) on any warning or error, and validates against the OpenAPI 3 meta-schema.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for path in (
        "/api/auth/login/",
        "/api/canvases/{canvas_id}/ops/",
        "/api/canvases/{canvas_id}/changes/",
        "/api/canvases/{canvas_id}/nodes/{node_id}/history/",
    ):
        assert f"  {path}:" in text


MY_TAGS = {"auth", "canvases", "members", "sync"}


def my_operations(schema):
    """(path, method, operation) for the endpoints of canvasweb.canvases.api (other apps share the schema)."""
    return [
        (path, method, op)
        for path, methods in schema["paths"].items()
        for method, op in methods.items()
        if set(op.get("tags", [])) & MY_TAGS
    ]


def test_every_endpoint_is_documented(openapi_schema):
    operations = {op["operationId"] for _, _, op in my_operations(openapi_schema)}
    assert operations == {
        "auth_csrf",
        "auth_login",
        "auth_logout",
        "auth_me",
        "auth_token_create",
        "auth_token_revoke",
        "canvas_list",
        "canvas_create",
        "canvas_retrieve",
        "canvas_update",
        "canvas_destroy",
        "member_list",
        "member_add",
        "member_update",
        "member_remove",
        "canvas_snapshot",
        "canvas_apply_op",
        "canvas_changes",
        "node_history",
    }
    params = openapi_schema["paths"]["/api/canvases/{canvas_id}/"]["get"]["parameters"]
    assert params[0]["schema"]["type"] == "integer"


def test_schema_and_docs_are_served():
    client = APIClient()
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200 and response.json()["openapi"].startswith("3.")
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    # Assets come from drf-spectacular-sidecar (static files), not a CDN.
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html and "cdn" not in html.lower()


def test_docs_api_md_covers_every_endpoint(openapi_schema):
    from pathlib import Path

    from django.conf import settings

    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    for path, method, _ in my_operations(openapi_schema):
        assert f"{method.upper()} {path}" in text, f"docs/api.md does not describe {method.upper()} {path}"
