"""Node timelines and the activity feed: complete after mixed user and agent edits, filtered by role."""

from __future__ import annotations

import pytest

from canvasweb.canvases import permissions, services
from canvasweb.canvases.actors import agent_actor
from canvasweb.canvases.models import Node
from canvasweb.common.errors import InvalidOperation, NotFound
from canvasweb.history import selectors
from tests.conftest import node_op

pytestmark = pytest.mark.django_db

OWNER, EDITOR, VIEWER = 2, 1, 0


def created_id(result) -> str:
    return next(c["id"] for c in result.changes if c["entity"] == "node" and c["action"] == "created")


def test_timeline_is_complete_after_mixed_user_and_agent_edits(canvas, apply, as_agent, alice, bob):
    node = created_id(apply(bob, node_op("DB port 5432", kind="config")))
    r_agent = as_agent(
        alice, {"type": "node.update", "id": node, "fields": {"content": "DB port 5433"}}, conversation_id=7
    ).revision
    r_move = services.apply_operation(
        actor=agent_actor(bob, conversation_id=9, approved_by=alice),
        canvas_id=canvas.pk,
        op={"type": "node.move", "id": node, "x": 40, "y": -8},
    ).revision
    r_pin = apply(
        alice, {"type": "node.update", "id": node, "fields": {"pinned": True, "weight": 3}}
    ).revision
    other = created_id(apply(bob, node_op("pgbouncer")))
    r_edge = as_agent(
        alice, {"type": "edge.create", "edge": {"source": other, "target": node, "relation": "depends_on"}}
    ).revision

    timeline = selectors.node_timeline(canvas=canvas, level=OWNER, node_id=node)
    entries = timeline["entries"]
    assert [(e["revision"], e["entity"], e["action"]) for e in entries] == [
        (entries[0]["revision"], "node", "created"),
        (r_agent, "node", "updated"),
        (r_move, "node", "updated"),
        (r_pin, "node", "updated"),
        (r_edge, "edge", "created"),
    ]
    created, by_agent, moved, pinned, edge = entries
    assert created["actor"]["kind"] == "user" and created["actor"]["user"]["username"] == "bob"
    assert by_agent["actor"]["kind"] == "agent" and by_agent["actor"]["on_behalf_of"]["username"] == "alice"
    assert by_agent["actor"]["conversation_id"] == 7
    assert by_agent["diff"] == [{"field": "content", "before": "DB port 5432", "after": "DB port 5433"}]
    assert set(pinned["fields"]) == {"weight", "pinned"}
    assert {d["field"]: (d["before"], d["after"]) for d in pinned["diff"]} == {
        "weight": (1.0, 3.0),
        "pinned": (False, True),
    }
    assert {d["field"] for d in moved["diff"]} == {"x", "y"} and moved["op_type"] == "node.move"
    assert moved["actor"]["kind"] == "agent" and moved["actor"]["approved_by"]["username"] == "alice"
    assert moved["actor"]["on_behalf_of"]["username"] == "bob" and moved["actor"]["conversation_id"] == 9
    assert edge["node_id"] == other and edge["actor"]["kind"] == "agent"
    assert all(e["revertible"] for e in entries[:4]) and not edge["revertible"]
    assert timeline["node"]["content"] == "DB port 5433" and timeline["deleted"] is False

    agent_only = selectors.node_timeline(canvas=canvas, level=OWNER, node_id=node, actor_kind="agent")[
        "entries"
    ]
    assert [e["revision"] for e in agent_only] == [r_agent, r_move, r_edge]
    no_edges = selectors.node_timeline(canvas=canvas, level=OWNER, node_id=node, include_edges=False)[
        "entries"
    ]
    assert all(e["entity"] == "node" for e in no_edges) and len(no_edges) == 4


def test_timeline_follows_the_superseded_chain_both_ways(canvas, apply, as_agent, alice, bob):
    v1 = created_id(apply(bob, node_op("deploy on Fridays", kind="requirement")))
    apply(
        bob,
        {
            "type": "node.supersede",
            "id": v1,
            "node": {"content": "deploy Mon-Thu", "x": 0, "y": 0, "kind": "requirement"},
        },
    )
    v2 = str(Node.objects.get(pk=v1).superseded_by_id)
    as_agent(
        alice,
        {
            "type": "node.supersede",
            "id": v2,
            "node": {"content": "deploy Tue-Wed", "x": 0, "y": 0, "kind": "requirement"},
        },
    )
    v3 = str(Node.objects.get(pk=v2).superseded_by_id)

    timeline = selectors.node_timeline(canvas=canvas, level=EDITOR, node_id=v2)
    assert [(c["id"], c["position"]) for c in timeline["chain"]] == [
        (v1, "before"),
        (v2, "current"),
        (v3, "after"),
    ]
    assert {e["node_id"] for e in timeline["entries"] if e["entity"] == "node"} == {v1, v2, v3}
    only_v2 = selectors.node_timeline(canvas=canvas, level=EDITOR, node_id=v2, include_chain=False)
    assert {e["node_id"] for e in only_v2["entries"] if e["entity"] == "node"} == {v2}

    # The chain survives deleting the newest version (the log keeps it).
    apply(bob, {"type": "node.delete", "id": v3})
    chain = selectors.node_timeline(canvas=canvas, level=EDITOR, node_id=v1)["chain"]
    assert [(c["id"], c["deleted"]) for c in chain] == [(v1, False), (v2, False), (v3, True)]
    deleted = selectors.node_timeline(canvas=canvas, level=EDITOR, node_id=v3)
    assert deleted["deleted"] is True and deleted["node"]["content"] == "deploy Tue-Wed"
    assert deleted["entries"][-1]["action"] == "deleted"


def test_timeline_respects_visibility(canvas, apply, alice, bob, vic):
    secret = created_id(apply(alice, node_op("hunter2", sensitivity="secret")))
    apply(alice, {"type": "node.update", "id": secret, "fields": {"content": "rotated"}})
    with pytest.raises(NotFound):
        selectors.node_timeline(canvas=canvas, level=EDITOR, node_id=secret)
    apply(
        alice,
        {"type": "node.update", "id": secret, "fields": {"sensitivity": "public", "content": "public now"}},
    )
    seen_by_bob = selectors.node_timeline(canvas=canvas, level=EDITOR, node_id=secret)["entries"]
    # The secret versions are not shown: only the change that made it public, without its "before".
    assert len(seen_by_bob) == 1
    assert seen_by_bob[0]["before"] is None and seen_by_bob[0]["after"]["content"] == "public now"
    assert {d["field"]: d["before"] for d in seen_by_bob[0]["diff"]} == {"content": None, "sensitivity": None}
    assert len(selectors.node_timeline(canvas=canvas, level=OWNER, node_id=secret)["entries"]) == 3

    internal = created_id(apply(bob, node_op("staging URL", sensitivity="internal")))
    with pytest.raises(NotFound):
        selectors.node_timeline(canvas=canvas, level=VIEWER, node_id=internal)
    with pytest.raises(InvalidOperation):
        selectors.node_timeline(canvas=canvas, level=OWNER, node_id=internal, actor_kind="robot")


def test_unknown_node_is_not_found(canvas):
    with pytest.raises(NotFound):
        selectors.node_timeline(canvas=canvas, level=OWNER, node_id="00000000-0000-0000-0000-000000000000")


def test_activity_feed_newest_first_with_focus_and_paging(canvas, apply, as_agent, alice, bob):
    a = created_id(apply(bob, node_op("a")))
    b = created_id(apply(bob, node_op("b")))
    as_agent(alice, {"type": "edge.create", "edge": {"source": a, "target": b}})
    hidden = created_id(apply(bob, node_op("internal", sensitivity="internal")))
    apply(bob, {"type": "node.update", "id": a, "fields": {"content": "a2"}})

    feed = selectors.canvas_activity(canvas=canvas, level=EDITOR, limit=50)
    revisions = [i["revision"] for i in feed["items"]]
    assert revisions == sorted(revisions, reverse=True) and feed["next_before"] is None
    top = feed["items"][0]
    assert top["node_id"] == a and top["summary"] == "a2" and top["actor"]["user"]["username"] == "bob"
    edge_item = next(i for i in feed["items"] if i["entity"] == "edge")
    assert edge_item["node_id"] == a and edge_item["actor"]["kind"] == "agent"
    assert any(i["target_id"] == hidden for i in feed["items"])

    viewer_feed = selectors.canvas_activity(canvas=canvas, level=VIEWER, limit=50)
    assert not any(i["target_id"] == hidden for i in viewer_feed["items"])

    first = selectors.canvas_activity(canvas=canvas, level=EDITOR, limit=2)
    assert len(first["items"]) == 2 and first["next_before"] == first["items"][-1]["revision"]
    second = selectors.canvas_activity(canvas=canvas, level=EDITOR, limit=2, before=first["next_before"])
    assert second["items"][0]["revision"] < first["items"][-1]["revision"]
    assert [
        i["revision"]
        for i in selectors.canvas_activity(canvas=canvas, level=EDITOR, actor_kind="agent")["items"]
    ] == [edge_item["revision"]]


def test_timeline_and_activity_endpoints(
    canvas, apply, as_agent, alice, bob, vic, client_for, schema_check, make_user
):
    node = created_id(apply(bob, node_op("port 5432")))
    as_agent(alice, {"type": "node.update", "id": node, "fields": {"content": "port 5433"}})
    response = client_for(vic).get(f"/api/canvases/{canvas.pk}/nodes/{node}/timeline/")
    schema_check(response, "node_timeline")
    assert response.status_code == 200
    body = response.json()
    assert [e["actor"]["kind"] for e in body["entries"]] == ["user", "agent"]
    assert body["chain"] == [
        {
            "id": node,
            "position": "current",
            "deleted": False,
            "content": "port 5433",
            "kind": "note",
            "superseded_by": None,
        }
    ]
    filtered = client_for(vic).get(
        f"/api/canvases/{canvas.pk}/nodes/{node}/timeline/?actor_kind=agent&chain=0"
    )
    assert [e["actor"]["kind"] for e in filtered.json()["entries"]] == ["agent"]
    bad = client_for(vic).get(f"/api/canvases/{canvas.pk}/nodes/{node}/timeline/?chain=maybe")
    schema_check(bad, "node_timeline")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "chain"
    for url in (
        f"/api/canvases/{canvas.pk}/nodes/{node}/timeline/?actor_kind=",
        f"/api/canvases/{canvas.pk}/activity/?actor_kind=robot",
    ):
        empty = client_for(vic).get(url)  # present but not a documented value: refused, not ignored
        assert empty.status_code == 400 and empty.json()["error"]["field"] == "actor_kind"

    activity = client_for(bob).get(f"/api/canvases/{canvas.pk}/activity/?limit=1")
    schema_check(activity, "canvas_activity")
    assert activity.status_code == 200 and len(activity.json()["items"]) == 1
    assert activity.json()["items"][0]["actor"]["kind"] == "agent"

    stranger = client_for(make_user("mallory"))
    for url in (f"/api/canvases/{canvas.pk}/activity/", f"/api/canvases/{canvas.pk}/nodes/{node}/timeline/"):
        response = stranger.get(url)
        assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    assert client_for().get(f"/api/canvases/{canvas.pk}/activity/").status_code == 401
    assert permissions.role_level("viewer") == VIEWER
