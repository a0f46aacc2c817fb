"""Deleting a user goes through the write path: logged, broadcast, never a canvas without an owner."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db.models import ProtectedError

from canvasweb.canvases import services
from canvasweb.canvases.models import Canvas, Membership, Role
from canvasweb.common.errors import Conflict
from canvasweb.history.audit import verify_chain
from canvasweb.history.models import ChangeLogEntry

pytestmark = pytest.mark.django_db


def test_a_plain_delete_is_refused_by_protect(canvas, bob):
    with pytest.raises(ProtectedError):
        bob.delete()
    assert Membership.objects.filter(user=bob).exists()


def test_user_delete_transfers_ownership_logs_and_keeps_the_chain(
    canvas, alice, bob, vic, django_capture_on_commit_callbacks
):
    before = Canvas.objects.get(pk=canvas.pk).revision
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        report = services.user_delete(user=alice)
    assert report["transferred"] == [{"canvas_id": canvas.pk, "to": bob.pk}] and report["left"] == [canvas.pk]
    assert Membership.objects.get(canvas=canvas, user=bob).role == Role.OWNER
    assert not Membership.objects.filter(user=alice).exists()
    after = Canvas.objects.get(pk=canvas.pk).revision
    assert after == before + 2  # bob promoted, alice left: two revisions, two broadcasts
    assert len(callbacks) == 2
    left = ChangeLogEntry.objects.get(canvas=canvas, revision=after)
    assert (left.entity, left.action, left.target_id) == ("member", "deleted", str(alice.pk))
    # alice is named in the hash-chained log: deactivated, not removed, and the chain still verifies.
    alice.refresh_from_db()
    assert report["deactivated"] and not alice.is_active and not alice.has_usable_password()
    assert verify_chain(canvas_id=canvas.pk).ok


def test_user_delete_can_refuse_instead_of_transferring(canvas, alice):
    with pytest.raises(Conflict):
        services.user_delete(user=alice, transfer=False)
    assert Membership.objects.get(canvas=canvas, user=alice).role == Role.OWNER


def test_a_sole_members_canvas_is_deleted_and_a_user_never_logged_is_removed(db):
    User = get_user_model()
    loner = User.objects.create_user(username="loner", password="pass-12345")
    never = User.objects.create_user(username="never-logged", password="pass-12345")
    own = services.canvas_create(user=loner, name="只有我")
    report = services.user_delete(user=loner)
    assert report["deleted_canvases"] == [own.pk]
    assert Canvas.objects.get(pk=own.pk).deleted_at is not None
    assert services.user_delete(user=never)["deactivated"] is False
    assert not User.objects.filter(username="never-logged").exists()


def test_the_delete_user_command_uses_the_service(canvas, alice, bob):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("delete_user", "bob", stdout=out)
    assert '"left": [' in out.getvalue() and not Membership.objects.filter(user=bob).exists()
