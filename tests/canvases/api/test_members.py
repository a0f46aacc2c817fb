"""Membership endpoints: any member lists; only owners add, change and remove."""

from __future__ import annotations

import pytest

from canvasweb.canvases.models import Membership
from canvasweb.history.models import SecurityEvent

from .conftest import err

pytestmark = pytest.mark.django_db


def test_list(canvas, viewer_client, alice, bob, vic, matches_schema):
    response = viewer_client.get(f"/api/canvases/{canvas.pk}/members/")
    matches_schema(response, "member_list")
    assert response.json() == [
        {"user": {"id": alice.pk, "username": "alice"}, "role": "owner"},
        {"user": {"id": bob.pk, "username": "bob"}, "role": "editor"},
        {"user": {"id": vic.pk, "username": "vic"}, "role": "viewer"},
    ]


def test_add_by_username_then_by_id(canvas, owner_client, make_user, matches_schema):
    dora, eve = make_user("dora"), make_user("eve")
    response = owner_client.post(
        f"/api/canvases/{canvas.pk}/members/", {"username": "dora", "role": "editor"}, format="json"
    )
    matches_schema(response, "member_add")
    assert response.status_code == 201
    assert response.json() == {"user": {"id": dora.pk, "username": "dora"}, "role": "editor"}
    response = owner_client.post(
        f"/api/canvases/{canvas.pk}/members/", {"user_id": eve.pk, "role": "viewer"}, format="json"
    )
    assert response.status_code == 201 and response.json()["user"]["username"] == "eve"
    # Posting an existing member sets the role: 200.
    response = owner_client.post(
        f"/api/canvases/{canvas.pk}/members/", {"username": "dora", "role": "viewer"}, format="json"
    )
    matches_schema(response, "member_add")
    assert response.status_code == 200 and response.json()["role"] == "viewer"


@pytest.mark.parametrize(
    "body, status, code, field",
    [
        ({"username": "nobody", "role": "editor"}, 404, "NOT_FOUND", "username"),
        ({"user_id": 987654, "role": "editor"}, 404, "NOT_FOUND", "user_id"),
        ({"username": "vic", "role": "admin"}, 400, "INVALID", "role"),
        ({"username": "vic"}, 400, "INVALID", "role"),
        ({"role": "viewer"}, 400, "INVALID", "username"),
        ({"username": "vic", "user_id": 3, "role": "viewer"}, 400, "INVALID", "username"),
        ({"user_id": "3", "role": "viewer"}, 400, "INVALID", "user_id"),
        ({"user_id": True, "role": "viewer"}, 400, "INVALID", "user_id"),
    ],
)
def test_add_errors(canvas, owner_client, body, status, code, field, matches_schema):
    response = owner_client.post(f"/api/canvases/{canvas.pk}/members/", body, format="json")
    matches_schema(response, "member_add")
    assert response.status_code == status
    error = err(response)
    assert (error["code"], error["field"]) == (code, field)


def test_non_owners_cannot_manage_members(canvas, editor_client, bob, vic, make_user, matches_schema):
    make_user("mallory")
    response = editor_client.post(
        f"/api/canvases/{canvas.pk}/members/", {"username": "mallory", "role": "owner"}, format="json"
    )
    matches_schema(response, "member_add")
    assert response.status_code == 403 and err(response)["code"] == "FORBIDDEN"
    response = editor_client.patch(
        f"/api/canvases/{canvas.pk}/members/{vic.pk}/", {"role": "editor"}, format="json"
    )
    assert response.status_code == 403
    response = editor_client.delete(f"/api/canvases/{canvas.pk}/members/{vic.pk}/")
    assert response.status_code == 403
    assert SecurityEvent.objects.filter(user=bob, code="FORBIDDEN", op_type="member.set").count() == 2
    assert Membership.objects.filter(canvas=canvas).count() == 3


def test_change_role(canvas, owner_client, vic, matches_schema):
    response = owner_client.patch(
        f"/api/canvases/{canvas.pk}/members/{vic.pk}/", {"role": "editor"}, format="json"
    )
    matches_schema(response, "member_update")
    assert response.status_code == 200
    assert response.json() == {"user": {"id": vic.pk, "username": "vic"}, "role": "editor"}


def test_patch_never_adds_a_member(canvas, owner_client, make_user, matches_schema):
    outsider = make_user("outsider")
    response = owner_client.patch(
        f"/api/canvases/{canvas.pk}/members/{outsider.pk}/", {"role": "viewer"}, format="json"
    )
    matches_schema(response, "member_update")
    assert response.status_code == 404 and err(response)["field"] == "user_id"
    assert not Membership.objects.filter(user=outsider).exists()


def test_remove(canvas, owner_client, vic, client_for, matches_schema):
    response = owner_client.delete(f"/api/canvases/{canvas.pk}/members/{vic.pk}/")
    matches_schema(response, "member_remove")
    assert response.status_code == 204
    assert client_for(vic).get(f"/api/canvases/{canvas.pk}/").status_code == 404
    again = owner_client.delete(f"/api/canvases/{canvas.pk}/members/{vic.pk}/")
    assert again.status_code == 404 and err(again)["code"] == "NOT_FOUND"


def test_last_owner_stays(canvas, owner_client, alice, matches_schema):
    response = owner_client.delete(f"/api/canvases/{canvas.pk}/members/{alice.pk}/")
    matches_schema(response, "member_remove")
    assert response.status_code == 400 and err(response)["code"] == "INVALID"
    response = owner_client.patch(
        f"/api/canvases/{canvas.pk}/members/{alice.pk}/", {"role": "viewer"}, format="json"
    )
    assert response.status_code == 400
    assert Membership.objects.get(canvas=canvas, user=alice).role == "owner"
