"""manage.py seed_demo: users, roles and the bilingual demo canvas, idempotently, through the services."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from canvasweb.canvases import selectors
from canvasweb.canvases.management.commands.seed_demo import CANVAS_NAME
from canvasweb.canvases.models import Canvas, Membership
from canvasweb.history.models import ChangeLogEntry

pytestmark = pytest.mark.django_db


def seed(*args) -> str:
    out = io.StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_creates_users_canvas_and_content():
    output = seed("--password", "demo-pass-1")
    assert "Log in at http://127.0.0.1:8000/ as alice / demo-pass-1" in output
    User = get_user_model()
    for name in ("alice", "bob", "carol"):
        assert User.objects.get(username=name).check_password("demo-pass-1")
    canvas = Canvas.objects.get(name=CANVAS_NAME)
    roles = dict(Membership.objects.filter(canvas=canvas).values_list("user__username", "role"))
    assert roles == {"alice": "owner", "bob": "editor", "carol": "viewer"}

    snapshot = selectors.canvas_snapshot(canvas=canvas, role="owner")
    text = "\n".join(n["content"] for n in snapshot["nodes"])
    for needle in (
        "5433",
        "JWT 过期时间为 15 分钟",
        "Directory layout",
        "Deploy on Fridays",
        "Never deploy on Fridays; deploy Tue–Thu",
        "hunter2-demo",
    ):
        assert needle in text
    nodes = {n["content"].split("\n")[0]: n for n in snapshot["nodes"]}
    old, new = nodes["Deploy on Fridays"], nodes["Never deploy on Fridays; deploy Tue–Thu only."]
    assert old["superseded_by"] == new["id"]
    assert {n["sensitivity"] for n in snapshot["nodes"]} == {"public", "internal", "secret"}
    assert any(n["pinned"] and "Goal" in n["content"] for n in snapshot["nodes"])
    assert {e["relation"] for e in snapshot["edges"]} >= {"depends_on", "causes", "relates_to", "supersedes"}
    assert len({n["kind"] for n in snapshot["nodes"]}) >= 5

    viewer = selectors.canvas_snapshot(canvas=canvas, role="viewer")
    viewer_text = "\n".join(n["content"] for n in viewer["nodes"])
    assert "hunter2" not in viewer_text and "预算" not in viewer_text


def test_seed_is_idempotent_and_keeps_passwords():
    seed("--password", "demo-pass-1")
    canvas = Canvas.objects.get(name=CANVAS_NAME)
    entries = ChangeLogEntry.objects.filter(canvas=canvas).count()
    output = seed("--password", "other-pass-2")
    assert "unchanged" in output
    assert Canvas.objects.filter(name=CANVAS_NAME, deleted_at__isnull=True).count() == 1
    assert ChangeLogEntry.objects.filter(canvas=canvas).count() == entries
    assert get_user_model().objects.get(username="alice").check_password("demo-pass-1")
    output = seed("--password", "other-pass-2", "--reset-passwords")
    assert "as alice / other-pass-2" in output
    assert get_user_model().objects.get(username="bob").check_password("other-pass-2")


def test_seed_random_passwords_are_printed():
    output = seed()
    line = next(row for row in output.splitlines() if row.startswith("Log in at"))
    password = line.rsplit(" / ", 1)[1]
    assert len(password) >= 10
    assert get_user_model().objects.get(username="alice").check_password(password)
