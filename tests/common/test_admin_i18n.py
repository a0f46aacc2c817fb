"""The Django admin speaks Chinese too: every model and field name of our apps has a zh-hans translation,
and an admin page asked for in Chinese shows them."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.utils import translation

HAN = re.compile(r"[\u3400-\u9fff]")
OUR_APPS = ("canvases", "history", "agent", "chat")
# Coordinates and identifiers read the same in both languages.
SAME_IN_BOTH = {"x", "y", "id", "ID"}


def _names():
    for app in OUR_APPS:
        for model in apps.get_app_config(app).get_models():
            yield f"{app}.{model.__name__}", model._meta.verbose_name
            yield f"{app}.{model.__name__} (plural)", model._meta.verbose_name_plural
            for field in model._meta.get_fields():
                if field.concrete and not field.auto_created:
                    yield f"{app}.{model.__name__}.{field.name}", field.verbose_name


def test_every_model_and_field_name_is_translated():
    with translation.override("zh-hans"):
        missing = [
            where for where, name in _names() if str(name) not in SAME_IN_BOTH and not HAN.search(str(name))
        ]
    assert missing == []
    with translation.override("en"):
        assert (
            str(apps.get_model("history", "ChangeLogEntry")._meta.verbose_name_plural) == "change log entries"
        )


@pytest.mark.django_db
def test_admin_change_log_list_in_chinese(client, canvas):
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pass-12345")
    client.force_login(admin)
    page = client.get("/admin/history/changelogentry/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "变更日志条目" in page and "操作者" in page
    english = client.get("/admin/history/changelogentry/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "change log entries" in english.lower() and "变更日志条目" not in english
