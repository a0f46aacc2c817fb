"""Auth endpoints: CSRF, session login/logout, me, API tokens; 401 for anonymous callers."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from canvasweb.canvases.models import Canvas

from .conftest import err

pytestmark = pytest.mark.django_db


def csrf_client() -> tuple[APIClient, str]:
    client = APIClient(enforce_csrf_checks=True)
    response = client.get("/api/auth/csrf/")
    assert response.status_code == 200
    token = response.json()["csrf_token"]
    assert client.cookies["csrftoken"].value
    return client, token


def test_csrf_endpoint_sets_cookie_and_returns_token(matches_schema):
    client = APIClient()
    response = client.get("/api/auth/csrf/")
    matches_schema(response, "auth_csrf")
    assert response.json()["csrf_token"]
    assert "csrftoken" in response.cookies


def test_login_with_csrf_token_starts_a_session(alice, matches_schema):
    client, token = csrf_client()
    response = client.post(
        "/api/auth/login/",
        {"username": "alice", "password": "pass-12345"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    matches_schema(response, "auth_login")
    assert response.json()["user"] == {"id": alice.pk, "username": "alice"}
    assert "sessionid" in response.cookies
    # The session works, and the rotated CSRF token is the one to use from now on.
    assert client.get("/api/auth/me/").json() == {"id": alice.pk, "username": "alice"}
    new_token = response.json()["csrf_token"]
    created = client.post(
        "/api/canvases/", {"name": "after login"}, format="json", HTTP_X_CSRFTOKEN=new_token
    )
    assert created.status_code == 201, created.json()


def test_login_without_csrf_token_is_refused(alice):
    client = APIClient(enforce_csrf_checks=True)
    response = client.post("/api/auth/login/", {"username": "alice", "password": "pass-12345"}, format="json")
    assert response.status_code == 403
    assert err(response)["code"] == "CSRF_FAILED"
    assert "sessionid" not in response.cookies
    # A cookie without the matching header is not enough either.
    client, _ = csrf_client()
    response = client.post(
        "/api/auth/login/",
        {"username": "alice", "password": "pass-12345"},
        format="json",
        HTTP_X_CSRFTOKEN="x" * 32,
    )
    assert response.status_code == 403 and err(response)["code"] == "CSRF_FAILED"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"username": "alice", "password": "wrong-password"}, None),
        ({"username": "nobody", "password": "pass-12345"}, None),
        ({"username": "alice"}, "password"),
        ({"username": "alice", "password": ""}, "password"),
        ({"username": 5, "password": "pass-12345"}, "username"),
        ({"username": "alice", "password": "pass-12345", "remember": True}, "remember"),
    ],
)
def test_login_errors(alice, body, field, matches_schema):
    client = APIClient()
    response = client.post("/api/auth/login/", body, format="json")
    matches_schema(response, "auth_login")
    assert response.status_code == 400
    error = err(response)
    assert error["code"] == "INVALID" and error["field"] == field


def test_login_refuses_inactive_users(alice):
    alice.is_active = False
    alice.save()
    response = APIClient().post(
        "/api/auth/login/", {"username": "alice", "password": "pass-12345"}, format="json"
    )
    assert response.status_code == 400 and err(response)["code"] == "INVALID"


def test_logout_ends_the_session_and_needs_csrf(alice, client_for, matches_schema):
    client = client_for(alice, csrf=True)
    refused = client.post("/api/auth/logout/")
    assert refused.status_code == 403 and err(refused)["code"] == "CSRF_FAILED"
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    response = client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=token)
    matches_schema(response, "auth_logout")
    assert response.status_code == 204
    assert client.get("/api/auth/me/").status_code == 401


def test_logout_when_anonymous_is_a_no_op():
    assert APIClient().post("/api/auth/logout/").status_code == 204


def test_me(alice, owner_client, matches_schema):
    response = owner_client.get("/api/auth/me/")
    matches_schema(response, "auth_me")
    assert response.json() == {"id": alice.pk, "username": "alice"}


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/auth/me/"),
        ("get", "/api/canvases/"),
        ("post", "/api/canvases/"),
        ("get", "/api/canvases/1/"),
        ("post", "/api/canvases/1/ops/"),
        ("get", "/api/canvases/1/changes/?since=0"),
        ("delete", "/api/auth/token/"),
    ],
)
def test_anonymous_requests_get_401(method, path):
    response = (
        getattr(APIClient(), method)(path, {}, format="json")
        if method == "post"
        else getattr(APIClient(), method)(path)
    )
    assert response.status_code == 401
    assert err(response)["code"] == "UNAUTHENTICATED"
    assert response["WWW-Authenticate"] == "Token"


def test_session_post_without_csrf_token_is_refused(alice, client_for):
    client = client_for(alice, csrf=True)
    response = client.post("/api/canvases/", {"name": "forged"}, format="json")
    assert response.status_code == 403
    assert err(response)["code"] == "CSRF_FAILED"
    assert not Canvas.objects.filter(name="forged").exists()
    token = client.get("/api/auth/csrf/").json()["csrf_token"]
    ok = client.post("/api/canvases/", {"name": "real"}, format="json", HTTP_X_CSRFTOKEN=token)
    assert ok.status_code == 201


def test_token_for_scripts(alice, canvas, matches_schema):
    anonymous = APIClient(enforce_csrf_checks=True)
    response = anonymous.post(
        "/api/auth/token/", {"username": "alice", "password": "pass-12345"}, format="json"
    )
    matches_schema(response, "auth_token_create")
    token = response.json()["token"]
    # Same key on the next call (get_or_create).
    again = anonymous.post("/api/auth/token/", {"username": "alice", "password": "pass-12345"}, format="json")
    assert again.json()["token"] == token

    script = APIClient(enforce_csrf_checks=True)  # no cookies: the token alone, no CSRF needed
    script.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert script.get("/api/auth/me/").json()["username"] == "alice"
    op = {"op": {"type": "node.create", "node": {"content": "from a script", "x": 1, "y": 2}}}
    response = script.post(f"/api/canvases/{canvas.pk}/ops/", op, format="json")
    assert response.status_code == 200, response.json()

    revoked = script.delete("/api/auth/token/")
    matches_schema(revoked, "auth_token_revoke")
    assert revoked.status_code == 204
    after = script.get("/api/auth/me/")
    assert after.status_code == 401 and err(after)["code"] == "UNAUTHENTICATED"


def test_token_with_bad_credentials(alice, matches_schema):
    response = APIClient().post(
        "/api/auth/token/", {"username": "alice", "password": "nope-nope"}, format="json"
    )
    matches_schema(response, "auth_token_create")
    assert response.status_code == 400 and err(response)["code"] == "INVALID"


def test_invalid_token_is_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/auth/me/")
    assert response.status_code == 401 and err(response)["code"] == "UNAUTHENTICATED"
