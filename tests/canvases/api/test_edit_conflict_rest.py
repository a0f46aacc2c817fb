"""POST /ops/ answers a stale content edit with 409 CONFLICT and the node as it is now."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Node
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def post_op(client, canvas, op):
    return client.post(f"/api/canvases/{canvas.pk}/ops/", {"op": op}, format="json")


def test_stale_content_edit_is_409_with_current_node(canvas, owner_client, editor_client, matches_schema):
    node_id = post_op(owner_client, canvas, node_op("部署窗口是周五晚上")).json()["changes"][0]["id"]
    ok = post_op(
        owner_client,
        canvas,
        {"type": "node.update", "id": node_id, "base_version": 1, "fields": {"content": "部署窗口改到周六"}},
    )
    matches_schema(ok, "canvas_apply_op")
    assert ok.status_code == 200
    response = post_op(
        editor_client,
        canvas,
        {"type": "node.update", "id": node_id, "base_version": 1, "fields": {"content": "部署窗口是周日"}},
    )
    matches_schema(response, "canvas_apply_op")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "CONFLICT" and error["field"] == "fields.content"
    assert error["current"]["id"] == node_id and error["current"]["content"] == "部署窗口改到周六"
    assert error["current"]["version"] == 2
    assert Node.objects.get(pk=node_id).content == "部署窗口改到周六"


def test_bad_base_version_is_a_clear_400(canvas, owner_client):
    node_id = post_op(owner_client, canvas, node_op("x")).json()["changes"][0]["id"]
    response = post_op(
        owner_client,
        canvas,
        {"type": "node.update", "id": node_id, "base_version": "v1", "fields": {"content": "y"}},
    )
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "base_version"
