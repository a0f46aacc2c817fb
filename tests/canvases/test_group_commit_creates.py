"""node.create in a group commit: the ids checked for the whole batch, the rows inserted together,
and every answer the same as applying the ops one by one."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Node
from canvasweb.common.errors import Conflict, InvalidOperation
from canvasweb.history.audit import replay_canvas, verify_chain
from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def _request(user, op):
    return services.OpRequest(
        actor=user_actor(user, channel="websocket"), op=op, client_op_id=uuid.uuid4().hex
    )


def _creates_and_moves(user, count):
    ids = [str(uuid.uuid4()) for _ in range(count)]
    return ids, [
        _request(user, op)
        for i, new_id in enumerate(ids)
        for op in (
            node_op(f"batch card {i}", x=float(i), id=new_id),
            {"type": "node.move", "id": new_id, "x": 500.0 + i, "y": 9.0},
        )
    ]


def test_new_nodes_and_their_moves_commit_in_one_batch_as_one_by_one(canvas, alice):
    ids, requests = _creates_and_moves(alice, 3)
    outcome = services.apply_operations(canvas_id=canvas.pk, requests=requests)
    assert all(isinstance(r, services.ApplyResult) for r in outcome.results)
    assert [e["changes"][0]["action"] for e in outcome.events] == ["created", "updated"] * 3
    for i, new_id in enumerate(ids):
        node = Node.objects.get(pk=new_id)
        assert (node.content, node.x, node.y, node.version) == (f"batch card {i}", 500.0 + i, 9.0, 2)
        created = ChangeLogEntry.objects.get(target_id=new_id, action="created")
        # The row keeps the times its change event announced.
        assert created.after["created_at"] == outcome.events[2 * i]["changes"][0]["data"]["created_at"]
        assert node.created_at.isoformat().startswith(created.after["created_at"][:19])
    assert verify_chain(canvas_id=canvas.pk).ok
    assert replay_canvas(canvas_id=canvas.pk).differences == []


def test_creates_cost_the_same_statements_for_two_nodes_or_twelve(canvas, alice):
    def statements(count: int) -> int:
        _, requests = _creates_and_moves(alice, count)
        with CaptureQueriesContext(connection) as queries:
            services.apply_operations(canvas_id=canvas.pk, requests=requests)
        return len(queries.captured_queries)

    assert statements(2) == statements(12)


def test_taken_ids_get_the_answers_they_get_one_by_one(canvas, alice, bob, apply):
    mine = apply(alice, node_op("already here")).changes[0]["id"]
    target = apply(alice, node_op("edge target")).changes[0]["id"]
    other_canvas = services.canvas_create(user=alice, name="elsewhere")
    theirs = apply(alice, node_op("on another canvas"), canvas_id=other_canvas.pk).changes[0]["id"]
    edge = apply(
        alice,
        {"type": "edge.create", "edge": {"source": mine, "target": target, "relation": "causes"}},
    ).changes[0]["id"]
    twice = str(uuid.uuid4())
    requests = [
        _request(bob, node_op("reuses a node id here", id=mine)),
        _request(bob, node_op("reuses a node id elsewhere", id=theirs)),
        _request(bob, node_op("reuses an edge id", id=edge)),
        _request(bob, node_op("reserved", id=str(uuid.UUID(int=0)))),
        _request(bob, node_op("first with this id", id=twice)),
        _request(bob, node_op("second with this id", id=twice)),
    ]
    results = services.apply_operations(canvas_id=canvas.pk, requests=requests).results
    assert [type(r) for r in results] == [
        Conflict,
        InvalidOperation,
        Conflict,
        InvalidOperation,
        services.ApplyResult,
        Conflict,
    ]
    assert Node.objects.get(pk=twice).content == "first with this id"


def test_after_a_general_op_the_batch_asks_the_database_again(canvas, alice, apply):
    gone = apply(alice, node_op("to be deleted")).changes[0]["id"]
    source = apply(alice, node_op("edge source")).changes[0]["id"]
    target = apply(alice, node_op("edge target")).changes[0]["id"]
    edge_id = str(uuid.uuid4())
    requests = [
        _request(alice, {"type": "node.delete", "id": gone}),
        _request(alice, node_op("takes the freed id", id=gone)),
        _request(
            alice,
            {
                "type": "edge.create",
                "edge": {"id": edge_id, "source": source, "target": target, "relation": "causes"},
            },
        ),
        _request(alice, node_op("takes the new edge's id", id=edge_id)),
    ]
    results = services.apply_operations(canvas_id=canvas.pk, requests=requests).results
    assert [type(r) for r in results] == [
        services.ApplyResult,
        InvalidOperation,
        services.ApplyResult,
        Conflict,
    ]
    assert results[1].field == "node.id"
    assert not Node.objects.filter(pk=gone).exists()
