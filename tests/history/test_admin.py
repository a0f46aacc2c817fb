"""The change log is read-only in the admin (even for superusers) and through the ORM helpers."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from canvasweb.common.errors import Forbidden
from canvasweb.history.models import AppendOnlyError, ChangeLogEntry, SecurityEvent
from tests.conftest import node_op

pytestmark = pytest.mark.django_db

BASE = "/admin/history/changelogentry/"


@pytest.fixture
def admin_client(db):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pass-12345")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def logged(canvas, apply, as_agent, alice, bob):
    node = apply(bob, node_op("Database port 5433", kind="config")).changes[0]["id"]
    as_agent(
        alice,
        {"type": "node.update", "id": node, "fields": {"content": "Database port 6432"}},
        conversation_id=42,
    )
    return node


def test_changelist_filters_search_and_timeline_link(admin_client, canvas, logged):
    response = admin_client.get(BASE)
    assert response.status_code == 200
    html = response.content.decode()
    assert "agent for alice (conversation 42)" in html
    assert f"timeline/{canvas.pk}/{logged}/" in html
    for query in (
        "actor_kind__exact=agent",
        f"canvas__id__exact={canvas.pk}",
        "op_type=node.update",
        f"created_at__year={timezone.now().year}",
        "entity__exact=node",
    ):
        response = admin_client.get(f"{BASE}?{query}")
        assert response.status_code == 200, query
    agent_only = admin_client.get(f"{BASE}?actor_kind__exact=agent").context["cl"].result_list
    assert [e.actor_kind for e in agent_only] == ["agent"]
    by_id = admin_client.get(f"{BASE}?q={logged}").context["cl"].result_list
    assert {e.target_id for e in by_id} == {logged} and len(by_id) == 2
    by_content = admin_client.get(f"{BASE}?q=6432").context["cl"].result_list
    assert [e.op_type for e in by_content] == ["node.update"]

    timeline = admin_client.get(f"{BASE}timeline/{canvas.pk}/{logged}/")
    assert timeline.status_code == 200
    text = timeline.content.decode()
    assert "Database port 6432" in text and "agent for alice" in text and "conversation 42" in text


def test_no_add_change_or_delete_for_superusers(admin_client, logged):
    entry = ChangeLogEntry.objects.filter(target_id=logged).order_by("revision").last()
    assert admin_client.get(f"{BASE}add/").status_code == 403
    assert admin_client.post(f"{BASE}add/", {"revision": 1}).status_code == 403
    view = admin_client.get(f"{BASE}{entry.pk}/change/")
    assert view.status_code == 200 and 'name="_save"' not in view.content.decode()  # read-only view
    assert (
        admin_client.post(f"{BASE}{entry.pk}/change/", {"reason": "edited", "revision": 999}).status_code
        == 403
    )
    assert admin_client.get(f"{BASE}{entry.pk}/delete/").status_code == 403
    assert admin_client.post(f"{BASE}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    admin_client.post(BASE, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"})
    fresh = ChangeLogEntry.objects.get(pk=entry.pk)
    assert (fresh.reason, fresh.revision, fresh.hash) == (entry.reason, entry.revision, entry.hash)
    assert ChangeLogEntry.objects.filter(target_id=logged).count() == 2


def test_orm_helpers_refuse_updates_and_deletes(logged):
    entry = ChangeLogEntry.objects.filter(target_id=logged).first()
    entry.reason = "edited"
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        ChangeLogEntry.objects.filter(target_id=logged).update(reason="edited")
    with pytest.raises(AppendOnlyError):
        ChangeLogEntry.objects.filter(target_id=logged).delete()
    with pytest.raises(AppendOnlyError):
        ChangeLogEntry.objects.bulk_update([entry], ["reason"])


def test_staff_need_the_view_permission(make_user, logged):
    staff = make_user("staffer")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(staff)
    assert client.get(BASE).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="view_changelogentry"))
    assert client.get(BASE).status_code == 200
    assert client.get(f"{BASE}add/").status_code == 403


def test_security_events_are_read_only(admin_client, canvas, vic, apply):
    with pytest.raises(Forbidden):
        apply(vic, node_op("viewer tries"))
    event = SecurityEvent.objects.get(user=vic)
    base = "/admin/history/securityevent/"
    assert admin_client.get(base).status_code == 200
    assert admin_client.get(f"{base}?code__exact=FORBIDDEN").status_code == 200
    assert admin_client.get(f"{base}add/").status_code == 403
    assert admin_client.post(f"{base}{event.pk}/change/", {"reason": "x"}).status_code == 403
    assert admin_client.get(f"{base}{event.pk}/delete/").status_code == 403
    assert SecurityEvent.objects.get(pk=event.pk).reason == event.reason
