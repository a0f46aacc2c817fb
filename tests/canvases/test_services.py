"""The one write path: every operation, revisions, the change log, idempotency, roles."""

from __future__ import annotations

import itertools
import math
import uuid

import pytest

from canvasweb.canvases import selectors, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Edge, Node
from canvasweb.common.errors import Conflict, Forbidden, InvalidOperation, NotFound
from canvasweb.history.models import ChangeLogEntry, SecurityEvent
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def revision(canvas) -> int:
    return Canvas.objects.get(pk=canvas.pk).revision


def entries_at(canvas, rev):
    return list(ChangeLogEntry.objects.filter(canvas=canvas, revision=rev).order_by("seq"))


def test_create_node_bumps_revision_once_and_logs_after(canvas, apply, bob):
    start = revision(canvas)
    result = apply(bob, node_op("数据库端口是 5433", x=10, y=20, kind="config", tags=["db"], weight=2))
    assert result.revision == start + 1 == revision(canvas)
    node = Node.objects.get()
    assert (node.content, node.kind, node.x, node.y, node.weight, node.tags) == (
        "数据库端口是 5433",
        "config",
        10,
        20,
        2,
        ["db"],
    )
    (entry,) = entries_at(canvas, result.revision)
    assert (entry.op_type, entry.entity, entry.action, entry.target_id) == (
        "node.create",
        "node",
        "created",
        str(node.id),
    )
    assert entry.before is None and entry.after["content"] == "数据库端口是 5433"
    assert entry.actor_kind == "user" and entry.actor_user == bob
    assert result.changes[0]["data"]["id"] == str(node.id)


def test_update_logs_before_and_after_per_field(canvas, apply, bob):
    node_id = apply(bob, node_op("port 5432")).changes[0]["id"]
    result = apply(
        bob, {"type": "node.update", "id": node_id, "fields": {"content": "port 5433", "pinned": True}}
    )
    (entry,) = entries_at(canvas, result.revision)
    assert entry.fields == ["content", "pinned"]
    assert entry.before["content"] == "port 5432" and entry.after["content"] == "port 5433"
    assert entry.before["version"] == 1 and entry.after["version"] == 2


def test_move_changes_only_position(canvas, apply, bob):
    node_id = apply(bob, node_op("n")).changes[0]["id"]
    result = apply(bob, {"type": "node.move", "id": node_id, "x": -500.5, "y": 42})
    assert result.changes[0]["fields"] == ["x", "y"]
    node = Node.objects.get(pk=node_id)
    assert (node.x, node.y) == (-500.5, 42)


def test_noop_update_does_not_bump_revision(canvas, apply, bob):
    node_id = apply(bob, node_op("same")).changes[0]["id"]
    before = revision(canvas)
    result = apply(bob, {"type": "node.update", "id": node_id, "fields": {"content": "same"}})
    assert result.changes == [] and revision(canvas) == before


def test_delete_node_deletes_and_logs_each_edge(canvas, apply, bob):
    a = apply(bob, node_op("a")).changes[0]["id"]
    b = apply(bob, node_op("b")).changes[0]["id"]
    c = apply(bob, node_op("c")).changes[0]["id"]
    apply(bob, {"type": "edge.create", "edge": {"source": a, "target": b, "relation": "depends_on"}})
    apply(bob, {"type": "edge.create", "edge": {"source": c, "target": a, "relation": "causes"}})
    result = apply(bob, {"type": "node.delete", "id": a})
    actions = [(e.entity, e.action) for e in entries_at(canvas, result.revision)]
    assert actions == [("edge", "deleted"), ("edge", "deleted"), ("node", "deleted")]
    assert not Edge.objects.exists() and not Node.objects.filter(pk=a).exists()


def test_supersede_marks_old_and_links_new(canvas, apply, bob):
    old = apply(bob, node_op("deploy on Fridays", kind="requirement")).changes[0]["id"]
    result = apply(
        bob,
        {
            "type": "node.supersede",
            "id": old,
            "node": {"content": "never deploy on Fridays", "x": 10, "y": 0, "kind": "requirement"},
        },
    )
    new = Node.objects.exclude(pk=old).get()
    assert str(Node.objects.get(pk=old).superseded_by_id) == str(new.id)
    edge = Edge.objects.get()
    assert (str(edge.source_id), str(edge.target_id), edge.relation) == (str(new.id), old, "supersedes")
    assert [(e.entity, e.action) for e in entries_at(canvas, result.revision)] == [
        ("node", "created"),
        ("node", "updated"),
        ("edge", "created"),
    ]
    with pytest.raises(InvalidOperation):
        apply(bob, {"type": "node.supersede", "id": old, "node": {"content": "again", "x": 0, "y": 0}})


def test_deleting_a_successor_clears_superseded_by_with_a_log_entry(canvas, apply, bob):
    old = apply(bob, node_op("v1")).changes[0]["id"]
    apply(bob, {"type": "node.supersede", "id": old, "node": {"content": "v2", "x": 0, "y": 0}})
    new = Node.objects.exclude(pk=old).get()
    result = apply(bob, {"type": "node.delete", "id": str(new.id)})
    assert Node.objects.get(pk=old).superseded_by_id is None
    assert ("node", "updated", old) in [
        (e.entity, e.action, e.target_id) for e in entries_at(canvas, result.revision)
    ]


def test_archive_and_unarchive(canvas, apply, bob):
    node_id = apply(bob, node_op("old idea")).changes[0]["id"]
    apply(bob, {"type": "node.archive", "id": node_id})
    assert Node.objects.get(pk=node_id).archived
    apply(bob, {"type": "node.archive", "id": node_id, "archived": False})
    assert not Node.objects.get(pk=node_id).archived


def test_edge_update_and_delete(canvas, apply, bob):
    a = apply(bob, node_op("a")).changes[0]["id"]
    b = apply(bob, node_op("b")).changes[0]["id"]
    edge_id = apply(
        bob, {"type": "edge.create", "edge": {"source": a, "target": b, "relation": "relates_to"}}
    ).changes[0]["id"]
    apply(
        bob, {"type": "edge.update", "id": edge_id, "fields": {"relation": "conflicts_with", "label": "冲突"}}
    )
    edge = Edge.objects.get()
    assert (edge.relation, edge.label, edge.version) == ("conflicts_with", "冲突", 2)
    apply(bob, {"type": "edge.delete", "id": edge_id})
    assert not Edge.objects.exists()


def test_batch_is_atomic_and_one_revision(canvas, apply, bob):
    a, b = str(uuid.uuid4()), str(uuid.uuid4())
    start = revision(canvas)
    result = apply(
        bob,
        {
            "type": "batch",
            "ops": [
                {"type": "node.create", "node": {"id": a, "content": "a", "x": 0, "y": 0}},
                {"type": "node.create", "node": {"id": b, "content": "b", "x": 1, "y": 1}},
                {"type": "edge.create", "edge": {"source": a, "target": b, "relation": "causes"}},
            ],
        },
    )
    assert result.revision == start + 1 and len(entries_at(canvas, result.revision)) == 3
    with pytest.raises(NotFound):
        apply(
            bob,
            {
                "type": "batch",
                "ops": [
                    {"type": "node.create", "node": {"content": "c", "x": 0, "y": 0}},
                    {"type": "node.delete", "id": str(uuid.uuid4())},
                ],
            },
        )
    assert Node.objects.count() == 2 and revision(canvas) == start + 1


def test_resend_with_same_client_op_id_applies_once(canvas, apply, bob):
    first = apply(bob, node_op("once"), client_op_id="op-1")
    again = apply(bob, node_op("once"), client_op_id="op-1")
    assert again.duplicate and again.revision == first.revision and again.changes == first.changes
    assert Node.objects.count() == 1 and revision(canvas) == first.revision


def test_client_chosen_id_conflict(canvas, apply, bob):
    node_id = str(uuid.uuid4())
    apply(bob, {"type": "node.create", "node": {"id": node_id, "content": "x", "x": 0, "y": 0}})
    with pytest.raises(Conflict):
        apply(bob, {"type": "node.create", "node": {"id": node_id, "content": "y", "x": 0, "y": 0}})


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"type": "node.create", "node": {"content": "x", "x": math.nan, "y": 0}}, "node.x"),
        ({"type": "node.create", "node": {"content": "x", "x": math.inf, "y": 0}}, "node.x"),
        ({"type": "node.create", "node": {"content": "x", "x": 1e12, "y": 0}}, "node.x"),
        ({"type": "node.create", "node": {"content": "x", "x": True, "y": 0}}, "node.x"),
        ({"type": "node.create", "node": {"content": "x" * 10_001, "x": 0, "y": 0}}, "node.content"),
        ({"type": "node.create", "node": {"content": "x", "x": 0, "y": 0, "weight": 11}}, "node.weight"),
        ({"type": "node.create", "node": {"content": "x", "x": 0, "y": 0, "weight": 0.05}}, "node.weight"),
        ({"type": "node.create", "node": {"content": "x", "x": 0, "y": 0, "kind": "poem"}}, "node.kind"),
        ({"type": "node.create", "node": {"content": "x", "x": 0, "y": 0, "colour": "red"}}, "node.colour"),
        ({"type": "node.create", "node": {"content": "x", "y": 0}}, "node.x"),
        ({"type": "node.teleport", "id": "x"}, "type"),
        ({"type": "node.move", "id": "not-a-uuid", "x": 0, "y": 0}, "id"),
        ({"type": "batch", "ops": []}, "ops"),
    ],
)
def test_invalid_input_is_rejected_with_field_and_changes_nothing(canvas, apply, bob, bad, field):
    start = revision(canvas)
    with pytest.raises(InvalidOperation) as info:
        apply(bob, bad)
    assert info.value.field == field
    assert revision(canvas) == start and not Node.objects.exists()


def test_unknown_relation_is_invalid_and_cross_canvas_edge_not_found(canvas, apply, alice, bob):
    a = apply(bob, node_op("a")).changes[0]["id"]
    b = apply(bob, node_op("b")).changes[0]["id"]
    with pytest.raises(InvalidOperation):
        apply(bob, {"type": "edge.create", "edge": {"source": a, "target": b, "relation": "loves"}})
    other = services.canvas_create(user=alice, name="other")
    services.member_set(actor=user_actor(alice), canvas_id=other.pk, username="bob", role="editor")
    foreign = apply(bob, node_op("elsewhere"), canvas_id=other.pk).changes[0]["id"]
    with pytest.raises(NotFound) as info:
        apply(bob, {"type": "edge.create", "edge": {"source": a, "target": foreign}})
    assert info.value.field == "edge.target"


def test_unknown_ids_are_not_found(canvas, apply, bob):
    missing = str(uuid.uuid4())
    for op in (
        {"type": "node.update", "id": missing, "fields": {"content": "x"}},
        {"type": "node.delete", "id": missing},
        {"type": "edge.delete", "id": missing},
        {"type": "edge.update", "id": missing, "fields": {"label": "x"}},
    ):
        with pytest.raises(NotFound):
            apply(bob, op)


ALL_OPS = [
    "node.create",
    "node.update",
    "node.move",
    "node.delete",
    "node.supersede",
    "node.archive",
    "edge.create",
    "edge.update",
    "edge.delete",
]


def _op_for(kind, a, b, edge):
    return {
        "node.create": node_op("new"),
        "node.update": {"type": "node.update", "id": a, "fields": {"content": "changed"}},
        "node.move": {"type": "node.move", "id": a, "x": 5, "y": 5},
        "node.delete": {"type": "node.delete", "id": a},
        "node.supersede": {"type": "node.supersede", "id": a, "node": {"content": "v2", "x": 0, "y": 0}},
        "node.archive": {"type": "node.archive", "id": a},
        "edge.create": {"type": "edge.create", "edge": {"source": b, "target": a}},
        "edge.update": {"type": "edge.update", "id": edge, "fields": {"label": "l"}},
        "edge.delete": {"type": "edge.delete", "id": edge},
    }[kind]


@pytest.mark.parametrize("kind", ALL_OPS)
@pytest.mark.parametrize("who, allowed", [("alice", True), ("bob", True), ("vic", False)])
def test_role_operation_matrix(canvas, apply, alice, bob, vic, who, allowed, kind):
    user = {"alice": alice, "bob": bob, "vic": vic}[who]
    a = apply(alice, node_op("a")).changes[0]["id"]
    b = apply(alice, node_op("b")).changes[0]["id"]
    edge = apply(alice, {"type": "edge.create", "edge": {"source": a, "target": b}}).changes[0]["id"]
    start = revision(canvas)
    refusals = SecurityEvent.objects.count()
    if allowed:
        assert apply(user, _op_for(kind, a, b, edge), channel="websocket").revision == start + 1
    else:
        with pytest.raises(Forbidden):
            apply(user, _op_for(kind, a, b, edge), channel="websocket")
        assert revision(canvas) == start
        event = SecurityEvent.objects.latest("id")
        assert SecurityEvent.objects.count() == refusals + 1
        assert (event.user, event.code, event.channel, event.op_type) == (
            user,
            "FORBIDDEN",
            "websocket",
            kind,
        )


def test_non_member_gets_not_found_and_is_logged(canvas, make_user):
    stranger = make_user("mallory")
    with pytest.raises(NotFound):
        services.apply_operation(actor=user_actor(stranger), canvas_id=canvas.pk, op=node_op("x"))
    assert SecurityEvent.objects.filter(user=stranger, code="NOT_FOUND").exists()


def test_editor_cannot_see_or_touch_secret_nodes_nor_create_them(canvas, apply, alice, bob):
    secret = apply(alice, node_op("password hunter2", sensitivity="secret")).changes[0]["id"]
    with pytest.raises(NotFound):
        apply(bob, {"type": "node.update", "id": secret, "fields": {"content": "x"}})
    with pytest.raises(Forbidden):
        apply(bob, node_op("x", sensitivity="secret"))


def test_visibility_in_snapshot_changes_and_history(canvas, apply, alice, bob, vic):
    public = apply(alice, node_op("public fact")).changes[0]["id"]
    internal = apply(alice, node_op("internal fact", sensitivity="internal")).changes[0]["id"]
    secret = apply(alice, node_op("secret fact", sensitivity="secret")).changes[0]["id"]
    apply(alice, {"type": "edge.create", "edge": {"source": public, "target": internal}})
    since = revision(canvas) - 4

    def seen(role):
        snap = selectors.canvas_snapshot(canvas=canvas, role=role)
        changes = selectors.changes_since(canvas=canvas, role=role, since=since)
        text = str(snap) + str(changes)
        return {n["id"] for n in snap["nodes"]}, len(snap["edges"]), text

    ids, edges, text = seen("viewer")
    assert ids == {public} and edges == 0 and "internal fact" not in text and "secret fact" not in text
    ids, edges, text = seen("editor")
    assert ids == {public, internal} and edges == 1 and "secret fact" not in text
    ids, edges, text = seen("owner")
    assert ids == {public, internal, secret} and edges == 1
    with pytest.raises(NotFound):
        selectors.node_history(canvas=canvas, role="viewer", node_id=internal)


def test_raising_sensitivity_is_a_removal_for_viewers(canvas, apply, alice):
    node_id = apply(alice, node_op("was public")).changes[0]["id"]
    since = revision(canvas)
    apply(
        alice,
        {"type": "node.update", "id": node_id, "fields": {"sensitivity": "internal", "content": "now x"}},
    )
    (event,) = selectors.changes_since(canvas=canvas, role="viewer", since=since)["events"]
    assert event["changes"] == [
        {"entity": "node", "action": "removed", "id": node_id, "fields": [], "data": None}
    ]
    assert "now x" not in str(event)


def test_member_and_canvas_services_are_logged(canvas, alice, bob):
    owner = user_actor(alice)
    result = services.member_set(actor=owner, canvas_id=canvas.pk, user_id=bob.pk, role="viewer")
    (entry,) = entries_at(canvas, result.revision)
    assert (entry.entity, entry.action, entry.before["role"], entry.after["role"]) == (
        "member",
        "updated",
        "editor",
        "viewer",
    )
    with pytest.raises(Forbidden):
        services.canvas_update(actor=user_actor(bob), canvas_id=canvas.pk, name="mine now")
    with pytest.raises(InvalidOperation):
        services.member_remove(actor=owner, canvas_id=canvas.pk, user_id=alice.pk)  # last owner
    services.canvas_update(actor=owner, canvas_id=canvas.pk, name="新名字", agent_policy={"mode": "auto"})
    canvas.refresh_from_db()
    assert canvas.name == "新名字" and canvas.agent_mode == "auto"
    services.canvas_delete(actor=owner, canvas_id=canvas.pk)
    with pytest.raises(NotFound):
        selectors.canvas_for_member(user=alice, canvas_id=canvas.pk)


def test_change_log_is_append_only(canvas):
    entry = ChangeLogEntry.objects.filter(canvas=canvas).first()
    from canvasweb.history.models import AppendOnlyError

    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        ChangeLogEntry.objects.filter(canvas=canvas).update(op_type="x")
    with pytest.raises(AppendOnlyError):
        ChangeLogEntry.objects.filter(canvas=canvas).delete()


def test_revisions_have_no_gaps_and_chain_links(canvas, apply, bob):
    for i in range(5):
        apply(bob, node_op(f"n{i}"))
    entries = list(ChangeLogEntry.objects.filter(canvas=canvas).order_by("revision", "seq"))
    revisions = sorted({e.revision for e in entries})
    assert revisions == list(range(1, revision(canvas) + 1))
    for prev, entry in itertools.pairwise(entries):
        assert entry.prev_hash == prev.hash
