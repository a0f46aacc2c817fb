"""The snapshot reads plain rows (serialization.node_dicts / edge_dicts) for speed; the shapes must stay
exactly those of node_to_dict / edge_to_dict, which REST, WebSocket changes and the change log use."""

from __future__ import annotations

from datetime import UTC

import pytest

from canvasweb.canvases import selectors, services
from canvasweb.canvases.models import Canvas, Edge
from canvasweb.canvases.serialization import edge_to_dict, node_to_dict
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def test_snapshot_rows_equal_the_model_serializers(
    canvas, apply, alice, bob, django_capture_on_commit_callbacks
):
    first = apply(
        bob, node_op("缓存层的过期时间是 90 秒", x=1.5, y=-20, tags=["缓存", "ttl"], weight=2.0, pinned=True)
    ).changes[0]["id"]
    second = apply(
        alice,
        node_op("Runbook owner is the platform team", x=300, y=40, sensitivity="internal", kind="decision"),
    ).changes[0]["id"]
    apply(
        bob,
        {
            "type": "node.supersede",
            "id": first,
            "node": {"content": "缓存层的过期时间改为 120 秒", "x": 0, "y": 200},
        },
    )
    apply(
        alice,
        {
            "type": "edge.create",
            "edge": {"source": first, "target": second, "relation": "depends_on", "label": "依赖"},
        },
    )
    apply(alice, {"type": "node.archive", "id": second, "archived": True})
    services.user_delete(user=alice)  # her account is deactivated; her nodes stay

    for role in ("owner", "editor", "viewer"):
        snapshot = selectors.canvas_snapshot(canvas=Canvas.objects.get(pk=canvas.pk), role=role)
        assert snapshot["revision"] == Canvas.objects.get(pk=canvas.pk).revision
        visible_nodes = selectors.visible_nodes(canvas=canvas, role=role).order_by("created_at", "id")
        visible_edges = selectors.visible_edges(canvas=canvas, role=role).order_by("created_at", "id")
        assert snapshot["nodes"] == [node_to_dict(n) for n in visible_nodes]
        assert snapshot["edges"] == [edge_to_dict(e) for e in visible_edges]
    owner_snapshot = selectors.canvas_snapshot(canvas=canvas, role="owner")
    assert (
        len(owner_snapshot["nodes"]) == 3 and len(owner_snapshot["edges"]) == Edge.objects.count() == 2
    )  # supersedes + depends_on
    assert {n["created_by"]["username"] for n in owner_snapshot["nodes"]} == {"alice", "bob"}
    assert any(n["superseded_by"] for n in owner_snapshot["nodes"])


def test_stored_datetimes_read_as_the_model_serializer_writes_them(settings):
    from datetime import datetime

    from canvasweb.canvases.serialization import _datetime_reader, iso

    read = _datetime_reader("default")
    aware = datetime(2026, 3, 15, 9, 30, tzinfo=UTC)
    assert (
        read(aware.replace(tzinfo=None)) == iso(aware) == "2026-03-15T09:30:00Z"
    )  # SQLite hands back naive UTC
    assert read(aware) == iso(aware)  # Postgres hands back aware datetimes
    assert read("2026-03-15 09:30:00.250000") == "2026-03-15T09:30:00.250000Z"  # a driver returning text
    assert read(None) is None
    settings.USE_TZ = False
    assert _datetime_reader("default")(aware.replace(tzinfo=None)) == "2026-03-15T09:30:00"


def test_stored_uuids_read_with_dashes():
    import uuid

    from canvasweb.canvases.serialization import _uuid_text

    value = uuid.uuid4()
    assert _uuid_text(value.hex) == _uuid_text(str(value)) == _uuid_text(value) == str(value)
    assert _uuid_text(None) is None
