"""Canvas CRUD: list, create, retrieve, update (name, description, agent policy), delete."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Canvas
from canvasweb.history.models import SecurityEvent

from .conftest import err

pytestmark = pytest.mark.django_db


def test_list_shows_role_and_member_count(
    canvas, owner_client, viewer_client, make_user, client_for, matches_schema
):
    response = owner_client.get("/api/canvases/")
    matches_schema(response, "canvas_list")
    (item,) = response.json()
    assert item["id"] == canvas.pk and item["name"] == "Launch plan"
    assert item["role"] == "owner" and item["member_count"] == 3
    assert item["agent_policy"] == {
        "mode": "propose",
        "scope": "all",
        "protect_pinned": True,
        "allow_archive": True,
        "external_access": True,
    }
    assert viewer_client.get("/api/canvases/").json()[0]["role"] == "viewer"
    assert client_for(make_user("stranger")).get("/api/canvases/").json() == []


def test_create(alice, owner_client, matches_schema):
    response = owner_client.post(
        "/api/canvases/", {"name": "  Roadmap 路线图 ", "description": "Q1"}, format="json"
    )
    matches_schema(response, "canvas_create")
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "Roadmap 路线图" and body["description"] == "Q1"
    assert body["role"] == "owner" and body["member_count"] == 1 and body["revision"] == 1
    assert response["Location"] == f"/api/canvases/{body['id']}/"


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "x" * 201}, "name"),
        ({"name": 42}, "name"),
        ({"name": None}, "name"),
        ({"name": "ok", "description": "d" * 2001}, "description"),
        ({"name": "ok", "owner": 3}, "owner"),
    ],
)
def test_create_errors(owner_client, body, field, matches_schema):
    response = owner_client.post("/api/canvases/", body, format="json")
    matches_schema(response, "canvas_create")
    assert response.status_code == 400
    assert err(response) == {**err(response), "code": "INVALID", "field": field}


def test_retrieve(canvas, editor_client, matches_schema):
    response = editor_client.get(f"/api/canvases/{canvas.pk}/")
    matches_schema(response, "canvas_retrieve")
    assert response.json()["role"] == "editor" and response.json()["member_count"] == 3


def test_unknown_and_foreign_canvases_are_404(canvas, client_for, make_user, owner_client, matches_schema):
    stranger = client_for(make_user("stranger"))
    for client, path in [(owner_client, "/api/canvases/999999/"), (stranger, f"/api/canvases/{canvas.pk}/")]:
        response = client.get(path)
        matches_schema(response, "canvas_retrieve")
        assert response.status_code == 404
        assert err(response) == {"code": "NOT_FOUND", "message": "no such canvas", "field": "canvas_id"}
    # A stranger's write gets the same answer, never 403 (no existence leak).
    response = stranger.patch(f"/api/canvases/{canvas.pk}/", {"name": "mine"}, format="json")
    assert response.status_code == 404 and err(response)["code"] == "NOT_FOUND"


def test_update_name_description_and_policy(canvas, owner_client, matches_schema):
    response = owner_client.patch(
        f"/api/canvases/{canvas.pk}/",
        {
            "name": "Launch plan v2",
            "description": "发布计划",
            "agent_policy": {
                "mode": "auto",
                "scope": "tagged",
                "protect_pinned": False,
                "allow_archive": False,
            },
        },
        format="json",
    )
    matches_schema(response, "canvas_update")
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "Launch plan v2" and body["description"] == "发布计划"
    assert body["agent_policy"] == {
        "mode": "auto",
        "scope": "tagged",
        "protect_pinned": False,
        "allow_archive": False,
        "external_access": True,
    }
    assert body["revision"] == canvas.revision + 1
    # Partial policy; an unchanged PATCH adds no revision.
    again = owner_client.patch(
        f"/api/canvases/{canvas.pk}/", {"agent_policy": {"mode": "off"}}, format="json"
    )
    assert again.json()["agent_policy"]["mode"] == "off" and again.json()["agent_policy"]["scope"] == "tagged"
    same = owner_client.patch(f"/api/canvases/{canvas.pk}/", {"name": "Launch plan v2"}, format="json")
    assert same.json()["revision"] == again.json()["revision"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"agent_policy": {"mode": "yolo"}}, "agent_policy.mode"),
        ({"agent_policy": {"protect_pinned": "yes"}}, "agent_policy.protect_pinned"),
        ({"agent_policy": {"colour": "red"}}, "agent_policy"),
        ({"agent_policy": "auto"}, "agent_policy"),
        ({"name": None}, "name"),
        ({"name": "  "}, "name"),
        ({"revision": 5}, "revision"),
    ],
)
def test_update_errors(canvas, owner_client, body, field, matches_schema):
    response = owner_client.patch(f"/api/canvases/{canvas.pk}/", body, format="json")
    matches_schema(response, "canvas_update")
    assert response.status_code == 400
    error = err(response)
    assert error["code"] == "INVALID" and error["field"] == field


def test_only_owners_update_and_delete(canvas, editor_client, viewer_client, bob, matches_schema):
    for client in (editor_client, viewer_client):
        response = client.patch(f"/api/canvases/{canvas.pk}/", {"name": "hijack"}, format="json")
        matches_schema(response, "canvas_update")
        assert response.status_code == 403 and err(response)["code"] == "FORBIDDEN"
        response = client.delete(f"/api/canvases/{canvas.pk}/")
        assert response.status_code == 403 and err(response)["code"] == "FORBIDDEN"
    assert SecurityEvent.objects.filter(user=bob, op_type="canvas.update", code="FORBIDDEN").exists()
    assert Canvas.objects.get(pk=canvas.pk).name == "Launch plan"


def test_delete(canvas, owner_client, editor_client, matches_schema):
    response = owner_client.delete(f"/api/canvases/{canvas.pk}/")
    matches_schema(response, "canvas_destroy")
    assert response.status_code == 204 and response.content == b""
    assert owner_client.get(f"/api/canvases/{canvas.pk}/").status_code == 404
    assert editor_client.get("/api/canvases/").json() == []
    assert Canvas.objects.get(pk=canvas.pk).deleted_at is not None  # hidden, history kept
