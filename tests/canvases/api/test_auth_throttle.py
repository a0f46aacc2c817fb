"""Login and token requests are throttled per address; huge query integers get a clear answer."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/auth/token/", "/api/auth/login/"])
def test_password_endpoints_answer_429_past_the_rate(path, alice, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "AUTH_THROTTLE_RATE": "3/minute"}
    client = APIClient(enforce_csrf_checks=False)
    codes = [
        client.post(path, {"username": "alice", "password": "wrong-密码"}, format="json").status_code
        for _ in range(5)
    ]
    assert codes[3:] == [429, 429]
    response = client.post(path, {"username": "alice", "password": "pass-12345"}, format="json")
    assert response.status_code == 429 and response.json()["error"]["code"] == "RATE_LIMITED"
    assert int(response["Retry-After"]) > 0


def test_token_revoke_is_not_throttled(alice, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "AUTH_THROTTLE_RATE": "1/minute"}
    client = APIClient()
    client.force_authenticate(alice)
    assert [client.delete("/api/auth/token/").status_code for _ in range(3)] == [204, 204, 204]


def test_a_31_digit_limit_is_answered_as_too_large(canvas, alice):
    client = APIClient()
    client.force_authenticate(alice)
    for path in (
        f"/api/canvases/{canvas.pk}/changes/?since=0&limit={'9' * 31}",
        f"/api/canvases/{canvas.pk}/activity/?limit={'9' * 31}",
    ):
        response = client.get(path)
        error = response.json()["error"]
        assert response.status_code == 400 and error["field"] == "limit", path
        assert "too large" in error["message"] and "non-negative" not in error["message"]
