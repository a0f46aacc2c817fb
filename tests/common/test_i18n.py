"""Server-side translation: the SPA shell and API error messages follow Accept-Language; codes never change."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from canvasweb.common.errors import NotFound
from canvasweb.common.i18n import translate_message

pytestmark = pytest.mark.django_db


def test_shell_template_is_translated_for_zh_hans():
    zh = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<html lang="zh-Hans"' in zh
    assert "Canvasweb 需要启用 JavaScript。" in zh
    en = Client().get("/login/", HTTP_ACCEPT_LANGUAGE="en-US").content.decode()
    assert '<html lang="en"' in en and "Canvasweb needs JavaScript." in en


@pytest.mark.parametrize("header", ["zh-CN", "zh-hans", "zh-SG,zh;q=0.9"])
def test_simplified_chinese_tags_all_select_zh_hans(header):
    assert (
        "Canvasweb 需要启用 JavaScript。" in Client().get("/", HTTP_ACCEPT_LANGUAGE=header).content.decode()
    )


def test_api_error_message_is_translated_and_code_unchanged(client_for, alice):
    client = client_for(alice)
    zh = client.get("/api/canvases/987654/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 404
    assert zh.json()["error"]["code"] == "NOT_FOUND"
    assert zh.json()["error"]["message"] == "没有这个画布"
    en = client.get("/api/canvases/987654/", HTTP_ACCEPT_LANGUAGE="en")
    assert en.json()["error"] == {**zh.json()["error"], "message": "no such canvas"}


def test_login_failure_is_translated():
    response = Client().post(
        "/api/auth/login/",
        {"username": "nobody", "password": "wrong-password-1"},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    body = response.json()["error"]
    assert body["code"] == "INVALID" and body["message"] == "用户名或密码不正确"


def test_permission_message_with_variable_parts_is_translated(client_for, canvas, vic):
    response = client_for(vic).post(
        f"/api/canvases/{canvas.pk}/ops/",
        {"op": {"type": "node.create", "node": {"content": "会议纪要", "x": 0, "y": 0}}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    body = response.json()["error"]
    assert response.status_code == 403 and body["code"] == "FORBIDDEN"
    assert body["message"] == "查看者无权执行 node.create"


def test_untranslated_message_is_returned_unchanged():
    with translation.override("zh-hans"):
        assert translate_message("a message nobody translated") == "a message nobody translated"
        assert translate_message(NotFound("no node n-42 on this canvas").message) == "此画布上没有节点 n-42"
    with translation.override("en"):
        assert translate_message("no such canvas") == "no such canvas"
