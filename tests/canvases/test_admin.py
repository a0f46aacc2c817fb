"""The Django admin manages canvases and memberships through the write path (logged, revision bumped)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from canvasweb.canvases.models import Canvas, Membership
from canvasweb.history.models import ChangeLogEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pass-12345")
    client.force_login(admin)
    return client, admin


def test_admin_edits_go_through_the_services(staff_client, canvas, bob):
    client, admin = staff_client
    start = Canvas.objects.get(pk=canvas.pk).revision
    response = client.post(
        f"/admin/canvases/canvas/{canvas.pk}/change/",
        {
            "name": "由管理员改名",
            "description": "",
            "agent_mode": "off",
            "agent_scope": "all",
            "agent_protect_pinned": "on",
            "agent_may_archive": "on",
        },
    )
    assert response.status_code == 302, response.content[:500]
    canvas.refresh_from_db()
    assert canvas.name == "由管理员改名" and canvas.agent_mode == "off" and canvas.revision == start + 1
    entry = ChangeLogEntry.objects.filter(canvas=canvas).order_by("-revision").first()
    assert (entry.entity, entry.actor_user, entry.fields) == ("canvas", admin, ["name", "agent_policy.mode"])

    membership = Membership.objects.get(canvas=canvas, user=bob)
    response = client.post(f"/admin/canvases/membership/{membership.pk}/change/", {"role": "viewer"})
    assert response.status_code == 302
    assert Membership.objects.get(pk=membership.pk).role == "viewer"
    assert ChangeLogEntry.objects.filter(
        canvas=canvas, entity="member", action="updated", actor_user=admin
    ).exists()

    response = client.post(f"/admin/canvases/membership/{membership.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not Membership.objects.filter(pk=membership.pk).exists()
    assert ChangeLogEntry.objects.filter(canvas=canvas, entity="member", action="deleted").exists()


def test_admin_changelists_render(staff_client, canvas):
    client, _ = staff_client
    for url in (
        "/admin/canvases/canvas/",
        "/admin/canvases/membership/",
        "/admin/history/changelogentry/",
        "/admin/chat/modelrequest/",
        f"/admin/canvases/canvas/{canvas.pk}/change/",
    ):
        assert client.get(url).status_code == 200, url
