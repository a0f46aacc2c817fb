"""Bad input never produces a 500 or an HTML page: malformed JSON, huge bodies, odd URLs, wrong methods."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from canvasweb.canvases.models import Canvas, Node

from .conftest import err

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "raw",
    ['{"op": ', "not json", '{"op": {"type": "node.create",}}', "\ufeff{}", "[" * 100_000, '{"a": ' * 50_000],
)
def test_malformed_json_is_400(canvas, editor_client, raw):
    response = editor_client.post(
        f"/api/canvases/{canvas.pk}/ops/", raw.encode(), content_type="application/json"
    )
    assert response.status_code == 400
    error = err(response)
    assert error["code"] == "INVALID" and "JSON parse error" in error["message"]


def test_invalid_utf8_is_400(canvas, editor_client):
    response = editor_client.post(
        f"/api/canvases/{canvas.pk}/ops/", b'{"op": "\xff\xfe"}', content_type="application/json"
    )
    assert response.status_code == 400 and err(response)["code"] == "INVALID"


def test_non_json_content_type_is_415(canvas, editor_client):
    response = editor_client.post(
        "/api/canvases/", "name=x", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415 and err(response)["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert not Canvas.objects.filter(name="x").exists()


def test_body_over_the_default_limit_is_413(canvas, editor_client):
    content = "x" * (2_621_440 + 10)
    response = editor_client.post(
        f"/api/canvases/{canvas.pk}/ops/",
        {"op": {"type": "node.create", "node": {"content": content, "x": 0, "y": 0}}},
        format="json",
    )
    assert response.status_code == 413
    assert err(response)["code"] == "TOO_LARGE"
    assert not Node.objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_body_limit_follows_the_setting_even_without_content_length(canvas, editor_client):
    body = (
        '{"op": {"type": "node.create", "node": {"content": "%s", "x": 0, "y": 0}}}' % ("y" * 2000)
    ).encode()
    response = editor_client.post(f"/api/canvases/{canvas.pk}/ops/", body, content_type="application/json")
    assert response.status_code == 413 and err(response)["code"] == "TOO_LARGE"
    # The parser also stops at the limit when the length header lies or is missing.
    import io

    from canvasweb.common.drf import LimitedJSONParser, PayloadTooLarge

    with pytest.raises(PayloadTooLarge):
        LimitedJSONParser().parse(io.BytesIO(body), parser_context={})


@pytest.mark.parametrize(
    "path",
    [
        "/api/canvases/99999999999999999999999/",
        "/api/canvases/99999999999999999999999/snapshot/",
        "/api/canvases/1/members/99999999999999999999999/",
        "/api/canvases/1/nodes/not-a-uuid/history/",
        "/api/canvases/abc/",
        "/api/canvases",
        "/api/nothing-here/",
    ],
)
def test_unknown_paths_answer_json_404(editor_client, path):
    response = editor_client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert err(response)["code"] == "NOT_FOUND"


def test_wrong_method_is_405(canvas, editor_client):
    response = editor_client.put(f"/api/canvases/{canvas.pk}/", {"name": "x"}, format="json")
    assert response.status_code == 405 and err(response)["code"] == "METHOD_NOT_ALLOWED"
    response = editor_client.get(f"/api/canvases/{canvas.pk}/ops/")
    assert response.status_code == 405


def test_non_object_bodies_are_400(canvas, editor_client):
    for raw in ("[]", '"name"', "null", "3"):
        response = editor_client.post("/api/canvases/", raw, content_type="application/json")
        assert response.status_code == 400 and err(response)["code"] == "INVALID", raw


def test_empty_body_reports_the_missing_field(editor_client):
    response = editor_client.post("/api/canvases/", content_type="application/json")
    assert response.status_code == 400 and err(response)["field"] == "name"


def test_errors_are_json_even_for_browsers(canvas):
    client = APIClient(HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    response = client.get(f"/api/canvases/{canvas.pk}/")
    assert response.status_code == 401 and response["Content-Type"] == "application/json"


def _asgi_post(path: str, body: bytes, token: str):
    """A chunked POST as Daphne delivers it: no Content-Length, the body in the ASGI body file."""
    import io

    from django.core.handlers.asgi import ASGIRequest

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "query_string": b"",
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"transfer-encoding", b"chunked"),
            (b"authorization", f"Token {token}".encode()),
        ],
    }
    return ASGIRequest(scope, io.BytesIO(body))


def test_chunked_bodies_are_read_and_capped(canvas, bob):
    import json

    from rest_framework.authtoken.models import Token

    from canvasweb.canvases.api.views import OpsView

    token = Token.objects.create(user=bob).key
    path = f"/api/canvases/{canvas.pk}/ops/"
    body = json.dumps(
        {"op": {"type": "node.create", "node": {"content": "chunked", "x": 0, "y": 0}}}
    ).encode()
    response = OpsView.as_view()(_asgi_post(path, body, token), canvas_id=canvas.pk)
    response.render()
    assert response.status_code == 200, response.content
    assert Node.objects.filter(content="chunked").exists()
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=100):
        response = OpsView.as_view()(_asgi_post(path, body + b" " * 200, token), canvas_id=canvas.pk)
        response.render()
    assert response.status_code == 413 and json.loads(response.content)["error"]["code"] == "TOO_LARGE"


def test_endpoints_without_a_body_refuse_unknown_fields(canvas, alice, apply, client_for, scripted_llm):
    """docs/api.md: unknown fields are refused in every body, also where the endpoint takes none; a client
    sending `{"revision": 5}` to undo must not have its latest edit undone instead."""
    from canvasweb.chat import services as chat_services
    from canvasweb.chat.models import FactSuggestion
    from canvasweb.history.models import ChangeLogEntry
    from tests.conftest import node_op

    node = next(c["id"] for c in apply(alice, node_op("v1")).changes if c["entity"] == "node")
    scripted_llm.push({"content": "ok"})
    turn = chat_services.turn_prepare(
        user=alice, canvas_id=canvas.pk, text="Headcount: 23", viewport=None, conversation_id=None
    )
    chat_services.turn_finish(turn=turn, text="ok", usage=None, latency_ms=1)
    [suggestion] = turn.suggestions
    client = client_for(alice)
    revision = Canvas.objects.get(pk=canvas.pk).revision
    for path in (
        f"/api/canvases/{canvas.pk}/undo/",
        f"/api/canvases/{canvas.pk}/redo/",
        f"/api/canvases/{canvas.pk}/audit/verify/",
        f"/api/suggestions/{suggestion['id']}/dismiss/",
        "/api/auth/logout/",
    ):
        response = client.post(path, {"revision": 5}, format="json")
        assert response.status_code == 400, path
        assert err(response) == {"code": "INVALID", "message": "unknown field revision", "field": "revision"}
    assert Canvas.objects.get(pk=canvas.pk).revision == revision
    assert not ChangeLogEntry.objects.filter(canvas=canvas, reason="undo").exists()
    assert Node.objects.filter(pk=node).exists()
    assert FactSuggestion.objects.get(pk=suggestion["id"]).status == "pending"
    assert client.get("/api/auth/me/").status_code == 200  # still logged in
    # No body, or an empty object, is what the endpoints take.
    assert client.post(f"/api/canvases/{canvas.pk}/undo/").status_code == 200
    assert client.post(f"/api/canvases/{canvas.pk}/redo/", {}, format="json").status_code == 200
    assert client.post(f"/api/canvases/{canvas.pk}/audit/verify/").json()["ok"] is True
    assert client.post(f"/api/suggestions/{suggestion['id']}/dismiss/").json()["suggestion"]["status"] == (
        "dismissed"
    )
    assert client.post("/api/auth/logout/", {}, format="json").status_code == 204


@override_settings(DEBUG=True, ALLOWED_HOSTS=["testserver"])
def test_a_host_outside_allowed_hosts_is_json_not_the_debug_page(canvas, bob):
    """docs/api.md: every /api/ answer is JSON. Django answers a bad Host with its HTML 400 page (the debug
    page with DJANGO_DEBUG on, the default), before any view runs."""
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=bob).key
    client = APIClient(HTTP_HOST="evil.example", HTTP_AUTHORIZATION=f"Token {token}")
    for response in (
        client.get("/api/auth/csrf/"),
        client.post("/api/canvases/", {"name": "x"}, format="json"),
        client.get("/api/schema/"),
    ):
        assert response.status_code == 400 and response["Content-Type"] == "application/json"
        assert err(response) == {
            "code": "INVALID",
            "message": "host 'evil.example' is not in DJANGO_ALLOWED_HOSTS",
            "field": "host",
        }
    assert not Canvas.objects.filter(name="x").exists()
    assert APIClient(HTTP_HOST="testserver").get("/api/auth/csrf/").status_code == 200
