"""POST /ops/: the one write path over REST, validation errors, roles, idempotency, filtering."""

from __future__ import annotations

import json
import uuid

import pytest

from canvasweb.canvases import services
from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.history.models import ChangeLogEntry, SecurityEvent
from tests.conftest import node_op

from .conftest import err

pytestmark = pytest.mark.django_db


def post_op(client, canvas, op, **extra):
    return client.post(f"/api/canvases/{canvas.pk}/ops/", {"op": op, **extra}, format="json")


def test_create_node(canvas, editor_client, bob, matches_schema):
    response = post_op(
        editor_client, canvas, node_op("数据库端口是 5433", x=10, y=-20, kind="config", tags=["db"])
    )
    matches_schema(response, "canvas_apply_op")
    assert response.status_code == 200
    body = response.json()
    assert body["revision"] == canvas.revision + 1 and body["duplicate"] is False
    (change,) = body["changes"]
    assert change["entity"] == "node" and change["action"] == "created" and change["fields"] == []
    assert change["data"]["content"] == "数据库端口是 5433" and change["data"]["created_by"]["id"] == bob.pk
    assert Node.objects.get(pk=change["id"]).kind == "config"
    entry = ChangeLogEntry.objects.get(canvas=canvas, revision=body["revision"])
    assert entry.actor_user == bob and entry.op_type == "node.create"
    assert "_vb" not in response.content.decode() and "_va" not in response.content.decode()


def test_every_single_op_type(canvas, editor_client, matches_schema):
    a, b = str(uuid.uuid4()), str(uuid.uuid4())
    edge_id = str(uuid.uuid4())
    ops = [
        {"type": "node.create", "node": {"id": a, "content": "A", "x": 0, "y": 0}},
        {"type": "node.create", "node": {"id": b, "content": "B", "x": 100, "y": 0, "kind": "decision"}},
        {"type": "node.update", "id": a, "fields": {"content": "A2", "weight": 2.5, "pinned": True}},
        {"type": "node.move", "id": b, "x": 50.5, "y": -3},
        {"type": "edge.create", "edge": {"id": edge_id, "source": a, "target": b, "relation": "depends_on"}},
        {"type": "edge.update", "id": edge_id, "fields": {"label": "needs"}},
        {"type": "node.archive", "id": b},
        {"type": "node.supersede", "id": a, "node": {"content": "A3", "x": 0, "y": 50}},
        {"type": "edge.delete", "id": edge_id},
        {"type": "node.delete", "id": b},
    ]
    revision = canvas.revision
    for op in ops:
        response = post_op(editor_client, canvas, op)
        matches_schema(response, "canvas_apply_op")
        assert response.status_code == 200, (op, response.json())
        assert response.json()["revision"] == revision + 1
        revision += 1
    assert Node.objects.get(pk=a).superseded_by_id is not None
    assert not Node.objects.filter(pk=b).exists()


def test_batch_is_atomic_and_one_revision(canvas, editor_client):
    a, b = str(uuid.uuid4()), str(uuid.uuid4())
    batch = {
        "type": "batch",
        "ops": [
            {"type": "node.create", "node": {"id": a, "content": "A", "x": 0, "y": 0}},
            {"type": "node.create", "node": {"id": b, "content": "B", "x": 1, "y": 1}},
            {"type": "edge.create", "edge": {"source": a, "target": b, "relation": "causes"}},
        ],
    }
    response = post_op(editor_client, canvas, batch)
    assert response.status_code == 200 and response.json()["revision"] == canvas.revision + 1
    assert len(response.json()["changes"]) == 3
    bad = {
        "type": "batch",
        "ops": [
            {"type": "node.create", "node": {"content": "C", "x": 0, "y": 0}},
            {"type": "node.move", "id": a, "x": 2e6, "y": 0},
        ],
    }
    response = post_op(editor_client, canvas, bad)
    assert response.status_code == 400 and err(response)["field"] == "ops[1].x"
    assert Node.objects.filter(canvas=canvas).count() == 2  # nothing of the failed batch stayed


def test_a_batch_error_found_while_applying_names_the_op(canvas, editor_client):
    kept = str(uuid.uuid4())
    assert post_op(editor_client, canvas, node_op("留下的节点", id=kept)).status_code == 200
    revision = Canvas.objects.get(pk=canvas.pk).revision
    missing = str(uuid.uuid4())
    cases = [
        ({"type": "node.move", "id": missing, "x": 1, "y": 1}, 404, "NOT_FOUND", "ops[1].id"),
        (
            {"type": "edge.create", "edge": {"source": kept, "target": missing}},
            404,
            "NOT_FOUND",
            "ops[1].edge.target",
        ),
        (node_op("机密", sensitivity="secret"), 403, "FORBIDDEN", "ops[1].node.sensitivity"),
    ]
    for second, status, code, field in cases:
        batch = {"type": "batch", "ops": [{"type": "node.move", "id": kept, "x": 5, "y": 5}, second]}
        response = post_op(editor_client, canvas, batch)
        assert (response.status_code, err(response)["code"], err(response)["field"]) == (status, code, field)
        assert err(response)["message"].startswith("ops[1]: ")
    # A single op keeps its own field names.
    response = post_op(editor_client, canvas, {"type": "node.move", "id": missing, "x": 1, "y": 1})
    assert (response.status_code, err(response)["field"]) == (404, "id")
    assert Canvas.objects.get(pk=canvas.pk).revision == revision
    assert Node.objects.get(pk=kept).x == 0


def test_idempotent_client_op_id(canvas, editor_client, matches_schema):
    op = node_op("once")
    first = post_op(editor_client, canvas, op, client_op_id="cli-1")
    second = post_op(editor_client, canvas, op, client_op_id="cli-1")
    matches_schema(second, "canvas_apply_op")
    assert first.status_code == second.status_code == 200
    assert second.json()["duplicate"] is True and first.json()["duplicate"] is False
    assert second.json()["revision"] == first.json()["revision"]
    assert second.json()["changes"] == first.json()["changes"]
    assert Node.objects.filter(canvas=canvas, content="once").count() == 1
    assert Canvas.objects.get(pk=canvas.pk).revision == first.json()["revision"]
    # client_op_id null means "none"; a wrong type or length is refused.
    assert post_op(editor_client, canvas, node_op("twice"), client_op_id=None).status_code == 200
    for bad in ("", "x" * 65, 7):
        response = post_op(editor_client, canvas, node_op("no"), client_op_id=bad)
        assert response.status_code == 400 and err(response)["field"] == "client_op_id"


def test_viewer_write_is_forbidden_and_logged(canvas, viewer_client, vic, matches_schema):
    response = post_op(viewer_client, canvas, node_op("sneaky"))
    matches_schema(response, "canvas_apply_op")
    assert response.status_code == 403 and err(response)["code"] == "FORBIDDEN"
    event = SecurityEvent.objects.get(user=vic)
    assert (event.code, event.channel, event.op_type, event.canvas_id_ref) == (
        "FORBIDDEN",
        "rest",
        "node.create",
        canvas.pk,
    )
    assert not Node.objects.exists()


@pytest.mark.parametrize(
    "op, field",
    [
        (node_op(x=1e7), "node.x"),
        (node_op(y=-1_000_001), "node.y"),
        (node_op("x" * 10_001), "node.content"),
        (node_op(weight=0), "node.weight"),
        (node_op(tags=["t"] * 21), "node.tags"),
        (node_op(kind="goal"), "node.kind"),
        (node_op(sensitivity="top-secret"), "node.sensitivity"),
        (node_op(x=True), "node.x"),
        (node_op(x="1"), "node.x"),
        ({"type": "node.create", "node": {"content": "no position"}}, "node.x"),
        ({"type": "node.explode"}, "type"),
        ({"type": "node.create", "node": {"content": "c", "x": 0, "y": 0, "colour": "red"}}, "node.colour"),
        ({"type": "node.move", "id": "not-a-uuid", "x": 0, "y": 0}, "id"),
        # Ids are lowercase hyphenated UUIDs only (uuid.UUID would also take these spellings).
        ({"type": "node.delete", "id": "0B6F0C1E-3C9E-4A57-9A8D-2B8F3F6F3C11"}, "id"),
        (node_op(id="{0b6f0c1e-3c9e-4a57-9a8d-2b8f3f6f3c11}"), "node.id"),
        (
            {
                "type": "edge.create",
                "edge": {
                    "source": "urn:uuid:0b6f0c1e-3c9e-4a57-9a8d-2b8f3f6f3c11",
                    "target": str(uuid.uuid4()),
                },
            },
            "edge.source",
        ),
        ({"type": "node.update", "id": str(uuid.uuid4()), "fields": {}}, "fields"),
        ({"type": "batch", "ops": []}, "ops"),
        ("node.create", "op"),
    ],
)
def test_invalid_ops(canvas, editor_client, op, field, matches_schema):
    response = post_op(editor_client, canvas, op)
    matches_schema(response, "canvas_apply_op")
    assert response.status_code == 400, response.json()
    error = err(response)
    assert error["code"] == "INVALID" and error["field"] == field


def test_repeated_tags_are_stored_once_in_order(canvas, editor_client):
    response = post_op(editor_client, canvas, node_op(tags=["db", "配置", "db", "DB", "配置"]))
    assert response.status_code == 200
    assert Node.objects.get(pk=response.json()["changes"][0]["id"]).tags == ["db", "配置", "DB"]


def test_overflowing_numbers_are_invalid_not_500(canvas, editor_client):
    # 1e400 is valid JSON but overflows to infinity: the parser must refuse it with the field named.
    raw = '{"op": {"type": "node.create", "node": {"content": "far", "x": 1e400, "y": 0}}}'
    response = editor_client.post(f"/api/canvases/{canvas.pk}/ops/", raw, content_type="application/json")
    assert response.status_code == 400 and err(response) == {
        **err(response),
        "code": "INVALID",
        "field": "node.x",
    }
    # Infinity / NaN are not JSON at all.
    for literal in ("Infinity", "-Infinity", "NaN"):
        raw = f'{{"op": {{"type": "node.create", "node": {{"content": "far", "x": {literal}, "y": 0}}}}}}'
        response = editor_client.post(f"/api/canvases/{canvas.pk}/ops/", raw, content_type="application/json")
        assert response.status_code == 400 and err(response)["code"] == "INVALID"
    # An integer too long for Python's int parser.
    raw = '{"op": {"type": "node.create", "node": {"content": "far", "x": %s, "y": 0}}}' % ("9" * 5000)
    response = editor_client.post(f"/api/canvases/{canvas.pk}/ops/", raw, content_type="application/json")
    assert response.status_code == 400 and err(response)["code"] == "INVALID"
    assert not Node.objects.exists()


def test_not_found_targets(canvas, editor_client, matches_schema):
    response = post_op(editor_client, canvas, {"type": "node.move", "id": str(uuid.uuid4()), "x": 0, "y": 0})
    matches_schema(response, "canvas_apply_op")
    assert response.status_code == 404 and err(response)["code"] == "NOT_FOUND"
    response = post_op(editor_client, canvas, {"type": "edge.delete", "id": str(uuid.uuid4())})
    assert response.status_code == 404 and err(response)["field"] == "id"


def test_edge_to_a_node_in_another_canvas_is_not_found_like_an_unknown_id(
    canvas, alice, editor_client, apply, bob
):
    other = services.canvas_create(user=alice, name="Other")
    foreign = apply(alice, node_op("elsewhere"), canvas_id=other.pk).changes[0]["id"]
    local = apply(bob, node_op("here")).changes[0]["id"]
    response = post_op(
        editor_client,
        canvas,
        {"type": "edge.create", "edge": {"source": local, "target": foreign, "relation": "depends_on"}},
    )
    assert response.status_code == 404
    assert err(response) == {**err(response), "code": "NOT_FOUND", "field": "edge.target"}
    assert not Edge.objects.exists()


def test_client_chosen_id_conflict(canvas, editor_client, matches_schema):
    node_id = str(uuid.uuid4())
    op = {"type": "node.create", "node": {"id": node_id, "content": "x", "x": 0, "y": 0}}
    assert post_op(editor_client, canvas, op).status_code == 200
    response = post_op(editor_client, canvas, op)
    matches_schema(response, "canvas_apply_op")
    assert response.status_code == 409 and err(response) == {
        **err(response),
        "code": "CONFLICT",
        "field": "node.id",
    }


def _without_id(error: dict, used: str) -> dict:
    return {**error, "message": error["message"].replace(used, "<id>")}


def test_ids_taken_where_the_actor_cannot_look_answer_like_a_reserved_id(
    canvas, alice, bob, editor_client, apply
):
    other = services.canvas_create(user=alice, name="另一张画布")
    foreign_node = apply(alice, node_op("别处的节点"), canvas_id=other.pk).changes[0]["id"]
    foreign_edge = apply(
        alice,
        {
            "type": "edge.create",
            "edge": {
                "source": foreign_node,
                "target": apply(alice, node_op("b"), canvas_id=other.pk).changes[0]["id"],
            },
        },
        canvas_id=other.pk,
    ).changes[0]["id"]
    hidden = apply(alice, node_op("机密", sensitivity="secret")).changes[0]["id"]  # above bob's role
    reserved = "00000000-0000-0000-0000-000000000000"
    local, local2 = (apply(bob, node_op(text)).changes[0]["id"] for text in ("here", "这里"))
    # Ids of deleted rows stay used, here and on another canvas: their history still names them.
    deleted_here = apply(bob, node_op("deleted here")).changes[0]["id"]
    deleted_edge = apply(
        bob, {"type": "edge.create", "edge": {"source": local, "target": deleted_here}}
    ).changes[0]["id"]
    apply(bob, {"type": "node.delete", "id": deleted_here})  # takes its edge along
    deleted_there = apply(alice, node_op("deleted there"), canvas_id=other.pk).changes[0]["id"]
    apply(alice, {"type": "node.delete", "id": deleted_there}, canvas_id=other.pk)
    before = (Node.objects.count(), Edge.objects.count(), Canvas.objects.get(pk=canvas.pk).revision)

    def answer(op: dict, used: str) -> tuple[int, dict]:
        response = post_op(editor_client, canvas, op)
        return response.status_code, _without_id(err(response), used)

    for field, make in (
        ("node.id", lambda i: {"type": "node.create", "node": {"id": i, "content": "新", "x": 0, "y": 0}}),
        ("edge.id", lambda i: {"type": "edge.create", "edge": {"id": i, "source": local, "target": local2}}),
    ):
        expected = answer(make(reserved), reserved)
        assert expected[0] == 400 and expected[1]["code"] == "INVALID" and expected[1]["field"] == field
        for used in (foreign_node, foreign_edge, hidden, deleted_here, deleted_edge, deleted_there):
            assert answer(make(used), used) == expected, (field, used)
    assert (Node.objects.count(), Edge.objects.count(), Canvas.objects.get(pk=canvas.pk).revision) == before
    assert Node.objects.get(pk=foreign_node).canvas_id == other.pk


def test_after_a_refused_reuse_the_delete_is_still_revertible_and_undoable(
    canvas, editor_client, apply, bob, alice
):
    node_id = str(uuid.uuid4())
    created = post_op(editor_client, canvas, node_op("原来的", id=node_id)).json()["revision"]
    assert post_op(editor_client, canvas, {"type": "node.delete", "id": node_id}).status_code == 200
    other = services.canvas_create(user=bob, name="other")
    reuse = editor_client.post(
        f"/api/canvases/{other.pk}/ops/", {"op": node_op("别处", id=node_id)}, format="json"
    )
    assert reuse.status_code == 400 and err(reuse)["field"] == "node.id"
    revert = editor_client.post(
        f"/api/canvases/{canvas.pk}/nodes/{node_id}/revert/", {"revision": created}, format="json"
    )
    assert revert.status_code == 200 and revert.json()["recreated"] is True, revert.json()
    assert post_op(editor_client, canvas, {"type": "node.delete", "id": node_id}).status_code == 200
    undo = editor_client.post(f"/api/canvases/{canvas.pk}/undo/", {}, format="json")
    assert undo.status_code == 200, undo.json()
    assert Node.objects.get(pk=node_id).content == "原来的"


def test_owner_who_sees_the_row_still_gets_conflict(canvas, owner_client, apply, alice):
    hidden_from_editors = apply(alice, node_op("机密", sensitivity="secret")).changes[0]["id"]
    response = post_op(
        owner_client,
        canvas,
        {"type": "node.create", "node": {"id": hidden_from_editors, "content": "x", "x": 0, "y": 0}},
    )
    assert response.status_code == 409 and err(response)["code"] == "CONFLICT"


def test_editor_cannot_mark_secret(canvas, editor_client):
    response = post_op(editor_client, canvas, node_op("pw", sensitivity="secret"))
    assert response.status_code == 403 and err(response)["field"] == "node.sensitivity"


def test_non_member_ops_are_404(canvas, client_for, make_user):
    stranger = client_for(make_user("stranger"))
    response = post_op(stranger, canvas, node_op("hi"))
    assert response.status_code == 404 and err(response)["code"] == "NOT_FOUND"
    response = stranger.post("/api/canvases/424242/ops/", {"op": node_op()}, format="json")
    assert response.status_code == 404


def test_ops_answer_is_filtered_for_the_callers_role(canvas, apply, alice, editor_client, owner_client):
    secret = apply(alice, node_op("hunter2", sensitivity="secret")).changes[0]["id"]
    public = apply(alice, node_op("public")).changes[0]["id"]
    # The owner links the secret node; the editor then deletes the public node: the edge goes too,
    # but the editor must not learn of an edge they could never see.
    apply(alice, {"type": "edge.create", "edge": {"source": secret, "target": public}})
    response = post_op(editor_client, canvas, {"type": "node.delete", "id": public})
    body = response.json()
    assert response.status_code == 200
    assert [(c["entity"], c["action"]) for c in body["changes"]] == [("node", "deleted")]
    assert "hunter2" not in response.content.decode()
    # The owner's own view of a similar op includes everything.
    response = post_op(
        owner_client, canvas, {"type": "node.update", "id": secret, "fields": {"content": "pw2"}}
    )
    assert response.json()["changes"][0]["data"]["content"] == "pw2"


def test_op_body_shape_errors(canvas, editor_client):
    response = editor_client.post(f"/api/canvases/{canvas.pk}/ops/", {"client_op_id": "c1"}, format="json")
    assert response.status_code == 400 and err(response)["field"] == "op"
    response = editor_client.post(
        f"/api/canvases/{canvas.pk}/ops/", {"op": node_op(), "extra": 1}, format="json"
    )
    assert response.status_code == 400 and err(response)["field"] == "extra"
    response = editor_client.post(
        f"/api/canvases/{canvas.pk}/ops/", json.dumps([node_op()]), content_type="application/json"
    )
    assert response.status_code == 400 and err(response)["code"] == "INVALID"
