"""Undo/redo of your own recent edits, as inverse operations through the write path."""

from __future__ import annotations

import pytest

from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.common.errors import Forbidden
from canvasweb.history import services
from canvasweb.history.models import ChangeLogEntry
from canvasweb.history.services import NothingToRedo, NothingToUndo
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def created_id(result) -> str:
    return next(c["id"] for c in result.changes if c["entity"] == "node" and c["action"] == "created")


def undo(canvas, user):
    return services.undo(actor=user_actor(user), canvas_id=canvas.pk)


def redo(canvas, user):
    return services.redo(actor=user_actor(user), canvas_id=canvas.pk)


def content(node_id):
    return Node.objects.get(pk=node_id).content


def test_undo_and_redo_field_edits_in_order(canvas, apply, alice):
    node = created_id(apply(alice, node_op("v1")))
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "v2"}})
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "v3", "pinned": True}})

    out = undo(canvas, alice)
    assert content(node) == "v2" and not Node.objects.get(pk=node).pinned
    assert out["applied"] == [
        {"entity": "node", "id": node, "action": "updated", "fields": ["content", "pinned"]}
    ]
    assert out["skipped"] == [] and out["can_redo"]
    assert {e.reason for e in ChangeLogEntry.objects.filter(canvas=canvas, revision=out["revision"])} == {
        "undo"
    }
    undo(canvas, alice)
    assert content(node) == "v1"
    redo(canvas, alice)
    assert content(node) == "v2"
    redo(canvas, alice)
    assert content(node) == "v3" and Node.objects.get(pk=node).pinned
    with pytest.raises(NothingToRedo):
        redo(canvas, alice)
    # Undo after redo walks back again; undoing the create deletes the node.
    undo(canvas, alice)
    undo(canvas, alice)
    out = undo(canvas, alice)
    assert not Node.objects.filter(pk=node).exists()
    assert out["applied"] == [{"entity": "node", "id": node, "action": "deleted", "fields": []}]
    with pytest.raises(NothingToUndo):
        undo(canvas, alice)
    redo(canvas, alice)
    assert content(node) == "v1"


def test_a_new_edit_clears_the_redo_stack(canvas, apply, alice):
    node = created_id(apply(alice, node_op("v1")))
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "v2"}})
    undo(canvas, alice)
    assert services.undo_status(user=alice, canvas_id=canvas.pk)["can_redo"]
    apply(alice, {"type": "node.update", "id": node, "fields": {"kind": "fact"}})
    assert not services.undo_status(user=alice, canvas_id=canvas.pk)["can_redo"]
    with pytest.raises(NothingToRedo):
        redo(canvas, alice)


def test_concurrent_edit_same_field_is_skipped_and_reported(canvas, apply, alice, bob):
    node = created_id(apply(bob, node_op("port 5432")))
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "port 5433", "weight": 2}})
    bob_rev = apply(bob, {"type": "node.update", "id": node, "fields": {"content": "port 6432"}}).revision

    out = undo(canvas, alice)
    row = Node.objects.get(pk=node)
    assert row.content == "port 6432" and row.weight == 1.0  # bob's content stays, alice's weight is undone
    assert out["applied"] == [{"entity": "node", "id": node, "action": "updated", "fields": ["weight"]}]
    (skipped,) = out["skipped"]
    assert (
        skipped["field"] == "content"
        and skipped["by"]["username"] == "bob"
        and skipped["revision"] == bob_rev
    )
    assert "bob changed content since" in skipped["reason"]


def test_concurrent_edit_of_another_field_does_not_block_undo(canvas, apply, alice, bob):
    node = created_id(apply(bob, node_op("port 5432")))
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "port 5433"}})
    apply(bob, {"type": "node.move", "id": node, "x": 300, "y": 200})
    out = undo(canvas, alice)
    row = Node.objects.get(pk=node)
    assert (row.content, row.x, row.y) == ("port 5432", 300, 200) and out["skipped"] == []


def test_everything_skipped_writes_nothing_and_leaves_the_stack(canvas, apply, as_agent, alice, bob):
    node = created_id(apply(bob, node_op("a")))
    first = apply(alice, {"type": "node.update", "id": node, "fields": {"tags": ["x"]}}).revision
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "alice"}})
    as_agent(bob, {"type": "node.update", "id": node, "fields": {"content": "agent"}})
    before = Canvas.objects.get(pk=canvas.pk).revision

    out = undo(canvas, alice)
    assert (
        out["revision"] is None
        and out["applied"] == []
        and Canvas.objects.get(pk=canvas.pk).revision == before
    )
    assert out["skipped"][0]["by"]["label"] == "the agent for bob"
    # The skipped edit left the stack: the next undo inverts the one before it.
    out = undo(canvas, alice)
    assert out["inverted_revision"] == first and Node.objects.get(pk=node).tags == []


def test_undo_a_delete_restores_the_node_its_edges_and_links(canvas, apply, alice, bob):
    a = created_id(apply(bob, node_op("a", sensitivity="internal", tags=["t"])))
    b = created_id(apply(bob, node_op("b")))
    edge = apply(
        bob, {"type": "edge.create", "edge": {"source": a, "target": b, "relation": "causes", "label": "why"}}
    ).changes[0]["id"]
    apply(bob, {"type": "node.archive", "id": a})
    apply(alice, {"type": "node.delete", "id": a})
    assert not Edge.objects.exists()

    out = undo(canvas, alice)
    row = Node.objects.get(pk=a)
    assert (row.content, row.sensitivity, row.tags, row.archived) == ("a", "internal", ["t"], True)
    restored = Edge.objects.get(pk=edge)
    assert (str(restored.source_id), str(restored.target_id), restored.relation, restored.label) == (
        a,
        b,
        "causes",
        "why",
    )
    assert {x["action"] for x in out["applied"]} == {"created"}
    redo(canvas, alice)
    assert not Node.objects.filter(pk=a).exists() and not Edge.objects.exists()


def test_undo_a_supersede_and_a_delete_of_the_newer_version(canvas, apply, alice):
    old = created_id(apply(alice, node_op("v1")))
    apply(alice, {"type": "node.supersede", "id": old, "node": {"content": "v2", "x": 0, "y": 0}})
    new = str(Node.objects.get(pk=old).superseded_by_id)
    apply(alice, {"type": "node.delete", "id": new})
    assert Node.objects.get(pk=old).superseded_by_id is None

    undo(canvas, alice)  # the delete: v2 back, v1 points at it again, the supersedes edge is back
    assert str(Node.objects.get(pk=old).superseded_by_id) == new
    assert Edge.objects.filter(source_id=new, target_id=old, relation="supersedes").exists()
    undo(canvas, alice)  # the supersede itself
    assert Node.objects.get(pk=old).superseded_by_id is None and not Node.objects.filter(pk=new).exists()
    assert not Edge.objects.exists()


def test_undo_create_is_skipped_when_others_built_on_it(canvas, apply, alice, bob):
    node = created_id(apply(alice, node_op("mine")))
    other = created_id(apply(bob, node_op("theirs")))
    apply(bob, {"type": "edge.create", "edge": {"source": other, "target": node}})
    out = undo(canvas, alice)
    assert (
        Node.objects.filter(pk=node).exists()
        and out["skipped"][0]["reason"] == "others linked to the node since"
    )


def test_only_own_user_edits_are_undone(canvas, apply, as_agent, alice, bob):
    node = created_id(apply(bob, node_op("bob's")))
    as_agent(alice, {"type": "node.update", "id": node, "fields": {"content": "agent for alice"}})
    with pytest.raises(NothingToUndo):
        undo(canvas, alice)
    out = undo(canvas, bob)
    assert out["skipped"][0]["by"]["kind"] == "agent" and Node.objects.filter(pk=node).exists()


def test_viewer_cannot_undo(canvas, apply, alice, bob, vic):
    node = created_id(apply(bob, node_op("x")))
    canvas_services.member_set(actor=user_actor(alice), canvas_id=canvas.pk, username="bob", role="viewer")
    with pytest.raises(Forbidden):
        undo(canvas, bob)
    assert Node.objects.filter(pk=node).exists()


def test_undo_redo_endpoints(canvas, apply, alice, bob, client_for, schema_check):
    node = created_id(apply(alice, node_op("port 5432")))
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "port 5433"}})
    apply(bob, {"type": "node.update", "id": node, "fields": {"content": "port 6432"}})
    client = client_for(alice)
    status = client.get(f"/api/canvases/{canvas.pk}/undo/")
    schema_check(status, "undo_status")
    assert status.json()["can_undo"] and not status.json()["can_redo"]

    response = client.post(f"/api/canvases/{canvas.pk}/undo/")
    schema_check(response, "undo")
    body = response.json()
    assert response.status_code == 200 and body["revision"] is None
    assert body["skipped"][0]["field"] == "content" and body["skipped"][0]["by"]["username"] == "bob"
    response = client.post(f"/api/canvases/{canvas.pk}/undo/")  # the create: bob changed the node since
    assert response.status_code == 200 and response.json()["applied"] == []
    assert response.json()["skipped"][0]["reason"] == "bob changed the node since"
    response = client.post(f"/api/canvases/{canvas.pk}/undo/")
    schema_check(response, "undo")
    assert response.status_code == 409 and response.json()["error"]["code"] == "NOTHING_TO_UNDO"
    response = client.post(f"/api/canvases/{canvas.pk}/redo/")
    schema_check(response, "redo")
    assert response.status_code == 409 and response.json()["error"]["code"] == "NOTHING_TO_REDO"

    node2 = created_id(apply(alice, node_op("fresh")))
    response = client.post(f"/api/canvases/{canvas.pk}/undo/")
    assert response.status_code == 200 and not Node.objects.filter(pk=node2).exists()
    assert response.json()["changes"][0]["action"] == "deleted"
    response = client.post(f"/api/canvases/{canvas.pk}/redo/")
    schema_check(response, "redo")
    assert response.status_code == 200 and Node.objects.filter(pk=node2).exists()
