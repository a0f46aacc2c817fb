"""node.update with base_version: a content edit on a stale base is refused with CONFLICT, other fields merge."""

from __future__ import annotations

import pytest

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Node
from canvasweb.common.errors import EditConflict, InvalidOperation
from canvasweb.history.models import SecurityEvent
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def apply(user, canvas, op):
    return services.apply_operation(actor=user_actor(user), canvas_id=canvas.pk, op=op)


def make_node(user, canvas, content="会议室在三楼"):
    return apply(user, canvas, node_op(content)).changes[0]["id"]


def update(node_id, base=None, **fields):
    op = {"type": "node.update", "id": node_id, "fields": fields}
    if base is not None:
        op["base_version"] = base
    return op


def test_content_edit_on_a_base_changed_by_someone_else_is_a_conflict(canvas, alice, bob):
    node_id = make_node(alice, canvas)
    apply(alice, canvas, update(node_id, base=1, content="会议室在四楼"))
    with pytest.raises(EditConflict) as caught:
        apply(bob, canvas, update(node_id, base=1, content="会议室改到五楼"))
    error = caught.value.as_dict()
    assert error["code"] == "CONFLICT" and error["field"] == "fields.content"
    assert error["current"]["content"] == "会议室在四楼" and error["current"]["version"] == 2
    node = Node.objects.get(pk=node_id)
    assert node.content == "会议室在四楼" and node.version == 2
    assert SecurityEvent.objects.filter(code="CONFLICT", user=bob).exists()
    # Rebased on the version the conflict reported, the same text goes through.
    apply(bob, canvas, update(node_id, base=2, content="会议室改到五楼"))
    assert Node.objects.get(pk=node_id).content == "会议室改到五楼"


def test_other_fields_and_moves_stay_last_writer_wins(canvas, alice, bob):
    node_id = make_node(alice, canvas)
    apply(alice, canvas, {"type": "node.move", "id": node_id, "x": 50, "y": 60})
    apply(alice, canvas, update(node_id, weight=3.0))
    # Only position and weight changed since version 1: bob's text applies.
    apply(bob, canvas, update(node_id, base=1, content="改过的文字"))
    apply(alice, canvas, update(node_id, content="alice rewrote it"))
    # A stale base does not stop a non-content field.
    apply(bob, canvas, update(node_id, base=1, tags=["room"]))
    node = Node.objects.get(pk=node_id)
    assert (node.content, node.tags, node.weight, node.x) == ("alice rewrote it", ["room"], 3.0, 50)


def test_own_queued_edits_and_identical_text_never_conflict(canvas, alice, bob):
    node_id = make_node(alice, canvas)
    # Two offline edits by bob, both made on version 1, arrive in order.
    apply(bob, canvas, update(node_id, base=1, content="first draft"))
    apply(bob, canvas, update(node_id, base=1, content="second draft"))
    assert Node.objects.get(pk=node_id).content == "second draft"
    apply(alice, canvas, update(node_id, content="alice's text"))
    # Writing exactly what is there loses nothing: no conflict, no revision.
    result = apply(bob, canvas, update(node_id, base=1, content="alice's text"))
    assert result.changes == []


def test_without_base_version_last_writer_wins_as_before(canvas, alice, bob):
    node_id = make_node(alice, canvas)
    apply(alice, canvas, update(node_id, content="one"))
    apply(bob, canvas, update(node_id, content="two"))
    assert Node.objects.get(pk=node_id).content == "two"


@pytest.mark.parametrize("bad", [0, -1, "2", 1.5, True, []])
def test_base_version_must_be_a_positive_integer(canvas, alice, bad):
    node_id = make_node(alice, canvas)
    with pytest.raises(InvalidOperation) as caught:
        apply(
            alice,
            canvas,
            {"type": "node.update", "id": node_id, "fields": {"content": "x"}, "base_version": bad},
        )
    assert caught.value.field == "base_version"


def test_base_version_from_the_future_is_invalid(canvas, alice):
    node_id = make_node(alice, canvas)
    with pytest.raises(InvalidOperation) as caught:
        apply(alice, canvas, update(node_id, base=7, content="x"))
    assert caught.value.field == "base_version" and "newer than the node" in caught.value.message


def test_a_conflict_inside_a_batch_rolls_back_the_whole_batch(canvas, alice, bob):
    node_id = make_node(alice, canvas)
    apply(alice, canvas, update(node_id, content="v2 by alice"))
    revision = canvas.__class__.objects.get(pk=canvas.pk).revision
    with pytest.raises(EditConflict):
        apply(
            bob,
            canvas,
            {"type": "batch", "ops": [node_op("new one"), update(node_id, base=1, content="bob")]},
        )
    assert canvas.__class__.objects.get(pk=canvas.pk).revision == revision
    assert not Node.objects.filter(content="new one").exists()
