"""canvasweb.web: the SPA shell with a CSRF cookie, and /healthz."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/", "/login/", "/canvases/12/"])
def test_spa_pages_render_with_csrf_cookie(path):
    response = Client().get(path)
    assert response.status_code == 200
    assert "text/html" in response["Content-Type"]
    assert response.cookies["csrftoken"].value
    assert "no-cache" in response.get("Cache-Control", "") or "max-age=0" in response.get("Cache-Control", "")


def test_the_shell_says_who_is_logged_in(django_user_model):
    import json
    import re

    def embedded(client):
        html = client.get("/login/").content.decode()
        match = re.search(r'<script id="canvasweb-user" type="application/json">(.*?)</script>', html)
        assert match
        return json.loads(match.group(1))

    assert embedded(Client()) is None
    user = django_user_model.objects.create_user("李雷<b>", password="pw-12345678")
    client = Client()
    client.force_login(user)
    assert embedded(client) == {"id": user.pk, "username": "李雷<b>"}


def test_test_hooks_are_exposed_only_where_switched_on(settings):
    assert b"data-test-hooks" not in Client().get("/").content  # a normal deployment: no window.__canvasweb
    settings.CANVASWEB = {**settings.CANVASWEB, "TEST_HOOKS": True}
    assert b'data-test-hooks="1"' in Client().get("/").content


def test_spa_pages_refuse_posts():
    assert Client().post("/login/").status_code == 405


def test_healthz():
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "db": "ok", "channel_layer": "ok"}


def test_healthz_reports_a_broken_channel_layer(settings):
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]},
        }
    }
    channel_layers.backends.clear()
    try:
        response = Client().get("/healthz")
    finally:
        channel_layers.backends.clear()
    assert response.status_code == 503
    body = response.json()
    assert body["ok"] is False and body["db"] == "ok" and body["channel_layer"].startswith("error: ")
    assert "redis://" not in body["channel_layer"]
