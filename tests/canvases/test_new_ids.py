"""Client-chosen ids that were ever used stay used: a deleted node's or edge's id cannot be taken by
a later create (its history, revert and undo still address it), while revert/undo/redo may bring the
row back under its own id (canvases/services/new_ids.py)."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Edge, Node
from canvasweb.common.errors import InvalidOperation
from canvasweb.history import undo
from canvasweb.history.revert import node_revert
from tests.conftest import node_op

pytestmark = pytest.mark.django_db

CANNOT = "cannot be used: choose a new random UUID"


def _edge_op(source, target, **fields):
    return {"type": "edge.create", "edge": {"source": source, "target": target, **fields}}


def _deleted_node(apply, alice):
    node_id = str(uuid.uuid4())
    created = apply(alice, node_op("to be deleted", id=node_id)).revision
    apply(alice, {"type": "node.delete", "id": node_id})
    return node_id, created


def _deleted_edge(apply, alice):
    a = apply(alice, node_op("a")).changes[0]["id"]
    b = apply(alice, node_op("b")).changes[0]["id"]
    edge_id = str(uuid.uuid4())
    apply(alice, _edge_op(a, b, id=edge_id))
    apply(alice, {"type": "edge.delete", "id": edge_id})
    return edge_id, a, b


def _refused(apply, user, op, *, field, canvas_id=None):
    with pytest.raises(InvalidOperation) as caught:
        apply(user, op, canvas_id=canvas_id)
    assert caught.value.field == field
    assert CANNOT in caught.value.message
    return caught.value


def test_a_deleted_nodes_id_cannot_be_taken_on_this_canvas_or_another(canvas, apply, alice):
    node_id, _ = _deleted_node(apply, alice)
    other = services.canvas_create(user=alice, name="elsewhere")
    _refused(apply, alice, node_op("same canvas", id=node_id), field="node.id")
    _refused(apply, alice, node_op("other canvas", id=node_id), field="node.id", canvas_id=other.pk)
    a = apply(alice, node_op("a")).changes[0]["id"]
    b = apply(alice, node_op("b")).changes[0]["id"]
    _refused(apply, alice, _edge_op(a, b, id=node_id), field="edge.id")
    assert not Node.objects.filter(pk=node_id).exists()


def test_a_deleted_edges_id_cannot_be_taken(canvas, apply, alice):
    edge_id, a, b = _deleted_edge(apply, alice)
    _refused(apply, alice, _edge_op(a, b, id=edge_id), field="edge.id")
    _refused(apply, alice, node_op("node", id=edge_id), field="node.id")


def test_revert_recreates_a_deleted_node_after_a_reuse_attempt(canvas, apply, alice):
    node_id, created = _deleted_node(apply, alice)
    other = services.canvas_create(user=alice, name="elsewhere")
    _refused(apply, alice, node_op("other canvas", id=node_id), field="node.id", canvas_id=other.pk)
    out = node_revert(actor=user_actor(alice), canvas_id=canvas.pk, node_id=node_id, revision=created)
    assert out["recreated"] is True
    assert Node.objects.get(pk=node_id).canvas_id == canvas.pk


def test_undo_and_redo_recreate_under_their_own_ids(canvas, apply, alice):
    node_id, _ = _deleted_node(apply, alice)
    _refused(apply, alice, node_op("same canvas", id=node_id), field="node.id")
    undo.undo(actor=user_actor(alice), canvas_id=canvas.pk)  # undoes the delete
    assert Node.objects.filter(pk=node_id, content="to be deleted").exists()
    undo.redo(actor=user_actor(alice), canvas_id=canvas.pk)  # deletes it again
    undo.undo(actor=user_actor(alice), canvas_id=canvas.pk)
    assert Node.objects.filter(pk=node_id).exists()


def test_undo_of_an_edge_delete_recreates_it(canvas, apply, alice):
    edge_id, _, _ = _deleted_edge(apply, alice)
    undo.undo(actor=user_actor(alice), canvas_id=canvas.pk)
    assert Edge.objects.filter(pk=edge_id).exists()


def test_a_restore_cannot_take_an_id_another_canvas_used(canvas, apply, alice):
    # Only this canvas's own history of the same entity may come back under that id.
    node_id, _ = _deleted_node(apply, alice)
    other = services.canvas_create(user=alice, name="elsewhere")
    with pytest.raises(InvalidOperation):
        services.apply_operation(
            actor=user_actor(alice).with_reason("undo"),
            canvas_id=other.pk,
            op=node_op("not its history", id=node_id),
        )


def test_create_delete_create_in_one_batch_is_refused(canvas, apply, alice):
    node_id = str(uuid.uuid4())
    batch = {
        "type": "batch",
        "ops": [
            node_op("first", id=node_id),
            {"type": "node.delete", "id": node_id},
            node_op("second", id=node_id),
        ],
    }
    error = _refused(apply, alice, batch, field="ops[2].node.id")
    assert error.field == "ops[2].node.id"
    assert not Node.objects.filter(pk=node_id).exists()


def test_the_log_lookup_is_one_query_on_the_indexed_target_id(canvas, apply, alice):
    node_id, _ = _deleted_node(apply, alice)
    with CaptureQueriesContext(connection) as queries, pytest.raises(InvalidOperation):
        apply(alice, node_op("again", id=node_id))
    log_reads = [q["sql"] for q in queries.captured_queries if "history_changelogentry" in q["sql"]]
    log_reads = [sql for sql in log_reads if sql.lstrip().upper().startswith("SELECT")]
    assert len(log_reads) == 1
    assert '"target_id" IN' in log_reads[0] or '"target_id" =' in log_reads[0]
    assert "LIMIT" in log_reads[0] or "DISTINCT" in log_reads[0]
