"""Group commit (services.apply_operations): many ops, one transaction, the same protocol per op."""

from __future__ import annotations

import uuid

import pytest

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Node, OpReceipt
from canvasweb.common.errors import CanvasError
from canvasweb.history.audit import replay_canvas, verify_chain
from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def _request(user, op, op_id=None):
    return services.OpRequest(
        actor=user_actor(user, channel="websocket"), op=op, client_op_id=op_id or uuid.uuid4().hex
    )


def _nodes(apply, user, count):
    return [apply(user, node_op(f"岗位 fact {i}", x=i * 10.0)).changes[0]["id"] for i in range(count)]


def test_each_op_gets_its_own_revision_log_entries_and_receipt(canvas, alice, bob, apply):
    ids = _nodes(apply, alice, 4)
    start = Canvas.objects.get(pk=canvas.pk).revision
    requests = [
        _request(alice if i % 2 else bob, {"type": "node.move", "id": ids[i], "x": 100.0 + i, "y": 7.0})
        for i in range(4)
    ]
    requests.append(_request(bob, node_op("新的 fact in the batch")))
    outcome = services.apply_operations(canvas_id=canvas.pk, requests=requests)
    revisions = [r.revision for r in outcome.results]
    assert revisions == list(range(start + 1, start + 6))
    assert [e["revision"] for e in outcome.events] == revisions
    assert Canvas.objects.get(pk=canvas.pk).revision == start + 5
    assert (
        OpReceipt.objects.filter(canvas=canvas, client_op_id__in=[r.client_op_id for r in requests]).count()
        == 5
    )
    assert [Node.objects.get(pk=i).x for i in ids] == [100.0, 101.0, 102.0, 103.0]
    assert all(Node.objects.get(pk=i).version == 2 for i in ids)
    assert verify_chain(canvas_id=canvas.pk).ok
    assert replay_canvas(canvas_id=canvas.pk).differences == []
    assert (
        Canvas.objects.get(pk=canvas.pk).last_hash
        == ChangeLogEntry.objects.filter(canvas=canvas).order_by("-revision", "-seq").first().hash
    )


def test_a_refused_op_leaves_the_others_alone(canvas, alice, bob, vic, apply):
    ids = _nodes(apply, alice, 2)
    requests = [
        _request(bob, {"type": "node.move", "id": ids[0], "x": 1.0, "y": 1.0}),
        _request(vic, {"type": "node.move", "id": ids[1], "x": 2.0, "y": 2.0}),  # a viewer may not edit
        _request(bob, {"type": "node.move", "id": str(uuid.uuid4()), "x": 3.0, "y": 3.0}),  # no such node
        _request(
            bob,
            {
                "type": "edge.create",
                "edge": {"source": ids[0], "target": str(uuid.uuid4()), "relation": "depends_on"},
            },
        ),  # fails in its savepoint
        _request(bob, {"type": "node.update", "id": ids[1], "fields": {"content": "更新 text"}}),
        _request(bob, {"type": "nonsense"}),
    ]
    outcome = services.apply_operations(canvas_id=canvas.pk, requests=requests)
    kinds = [type(r).__name__ if isinstance(r, CanvasError) else "ok" for r in outcome.results]
    assert kinds[0] == "ok" and kinds[4] == "ok"
    assert all(k != "ok" for k in (kinds[1], kinds[2], kinds[3], kinds[5]))
    assert outcome.results[4].revision == outcome.results[0].revision + 1  # refusals take no revision
    assert Node.objects.get(pk=ids[0]).x == 1.0 and Node.objects.get(pk=ids[1]).x == 10.0
    assert Node.objects.get(pk=ids[1]).content == "更新 text"
    assert not Edge.objects.filter(source_id=ids[0]).exists()
    assert verify_chain(canvas_id=canvas.pk).ok


def test_a_resent_op_id_applies_once_in_the_same_batch_and_later(canvas, alice, apply):
    (node_id,) = _nodes(apply, alice, 1)
    op = {"type": "node.move", "id": node_id, "x": 55.0, "y": 5.0}
    first = services.apply_operations(
        canvas_id=canvas.pk, requests=[_request(alice, op, "same-id"), _request(alice, op, "same-id")]
    )
    again = services.apply_operations(canvas_id=canvas.pk, requests=[_request(alice, op, "same-id")])
    a, b = first.results
    assert not a.duplicate and b.duplicate and b.revision == a.revision
    assert again.results[0].duplicate and again.results[0].revision == a.revision
    assert len(first.events) == 1 and again.events == []
    assert Node.objects.get(pk=node_id).version == 2


def test_delete_wins_and_edges_never_dangle_inside_one_batch(canvas, alice, bob, apply):
    ids = _nodes(apply, alice, 3)
    for target in ids[1:]:
        apply(
            alice, {"type": "edge.create", "edge": {"source": ids[0], "target": target, "relation": "causes"}}
        )
    requests = [
        _request(bob, {"type": "node.move", "id": ids[0], "x": 9.0, "y": 9.0}),
        _request(alice, {"type": "node.delete", "id": ids[0]}),
        _request(bob, {"type": "node.move", "id": ids[0], "x": 10.0, "y": 10.0}),  # after the delete: refused
        _request(
            bob, {"type": "edge.create", "edge": {"source": ids[0], "target": ids[1], "relation": "causes"}}
        ),
        _request(bob, {"type": "node.move", "id": ids[1], "x": 11.0, "y": 11.0}),
    ]
    outcome = services.apply_operations(canvas_id=canvas.pk, requests=requests)
    assert isinstance(outcome.results[2], CanvasError) and isinstance(outcome.results[3], CanvasError)
    assert not Node.objects.filter(pk=ids[0]).exists()
    assert not Edge.objects.filter(canvas=canvas).exists()
    deleted = [c for c in outcome.events[1]["changes"] if c["entity"] == "edge"]
    assert len(deleted) == 2 and all(c["action"] == "deleted" for c in deleted)
    assert Node.objects.get(pk=ids[1]).x == 11.0
    assert replay_canvas(canvas_id=canvas.pk).differences == []


def test_a_batch_of_moves_costs_a_fixed_number_of_queries(
    canvas, alice, bob, apply, django_assert_max_num_queries
):
    ids = _nodes(apply, alice, 30)
    requests = [
        _request(alice if i % 3 else bob, {"type": "node.move", "id": ids[i], "x": -1.0 - i, "y": 0.0})
        for i in range(30)
    ]
    # atomic, lock, membership, receipts, nodes, node UPDATE, log INSERT, revision UPDATE, receipts INSERT
    with django_assert_max_num_queries(11):
        outcome = services.apply_operations(canvas_id=canvas.pk, requests=requests)
    assert len(outcome.events) == 30


def test_one_move_over_the_write_path_is_ten_statements(canvas, alice, apply, django_assert_max_num_queries):
    (node_id,) = _nodes(apply, alice, 1)
    with django_assert_max_num_queries(10):
        apply(alice, {"type": "node.move", "id": node_id, "x": 3.0, "y": 4.0}, client_op_id="m-1")


def test_deleting_a_node_costs_the_same_queries_with_one_edge_or_eleven(canvas, alice, apply):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def delete_with(edge_count: int) -> int:
        ids = _nodes(apply, alice, edge_count + 1)
        for target in ids[1:]:
            apply(
                alice,
                {"type": "edge.create", "edge": {"source": ids[0], "target": target, "relation": "causes"}},
            )
        with CaptureQueriesContext(connection) as queries:
            apply(alice, {"type": "node.delete", "id": ids[0]})
        assert not Edge.objects.filter(source_id=ids[0]).exists()
        return len(queries.captured_queries)

    assert delete_with(1) == delete_with(11)
