"""A change of sensitivity carries its consequences for every role, live and in changes-since.

For each role, applying the change event (live: the service's records through the role filter; catch-up:
GET changes-since) to the role's previous snapshot must give its next snapshot — nodes and edges alike.
A node leaving a viewer's view takes its edges with it in the same event; coming back, it brings them.
"""

from __future__ import annotations

import copy

import pytest

from canvasweb.canvases import permissions, selectors, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas
from canvasweb.canvases.visibility import filter_changes
from tests.conftest import node_op

pytestmark = pytest.mark.django_db

ROLES = ("owner", "editor", "viewer")


def apply_changes(snapshot: dict, changes: list[dict]) -> dict:
    """What a client that follows docs/protocol.md does with one change event."""
    state = {
        "nodes": {n["id"]: n for n in snapshot["nodes"]},
        "edges": {e["id"]: e for e in snapshot["edges"]},
    }
    for change in changes:
        table = state.get(change["entity"] + "s")
        if table is None:
            continue
        if change["action"] in ("created", "updated"):
            table[change["id"]] = change["data"]
        else:
            table.pop(change["id"], None)
    return state


def as_state(snapshot: dict) -> dict:
    return {
        "nodes": {n["id"]: n for n in snapshot["nodes"]},
        "edges": {e["id"]: e for e in snapshot["edges"]},
    }


def snapshots(canvas) -> dict:
    canvas = Canvas.objects.get(pk=canvas.pk)
    return {role: selectors.canvas_snapshot(canvas=canvas, role=role) for role in ROLES}


@pytest.fixture
def linked(canvas, apply, bob):
    hub = apply(bob, node_op("发布计划", x=0, y=0)).changes[0]["id"]
    leaf = apply(bob, node_op("回滚步骤", x=50, y=0)).changes[0]["id"]
    internal = apply(bob, node_op("内部联系人", x=0, y=50, sensitivity="internal")).changes[0]["id"]
    apply(bob, {"type": "edge.create", "edge": {"source": hub, "target": leaf, "relation": "depends_on"}})
    apply(
        bob, {"type": "edge.create", "edge": {"source": leaf, "target": internal, "relation": "relates_to"}}
    )
    return {"hub": hub, "leaf": leaf, "internal": internal}


STEPS = [
    ("leaf", "internal"),  # viewer loses leaf and both its edges
    ("leaf", "secret"),  # editor loses it too; owner sees only its fields change
    ("leaf", "public"),  # everyone gets it back, with its edges
    ("internal", "public"),  # the viewer gains a node and the edge to it
    ("hub", "secret"),
    ("hub", "internal"),
]


def test_each_role_applies_the_live_event_to_its_old_snapshot_and_gets_the_new(canvas, linked, alice):
    for name, sensitivity in STEPS:
        before = snapshots(canvas)
        result = services.apply_operation(
            actor=user_actor(alice),
            canvas_id=canvas.pk,
            op={"type": "node.update", "id": linked[name], "fields": {"sensitivity": sensitivity}},
        )
        after = snapshots(canvas)
        for role in ROLES:
            visible, needs_resync = filter_changes(
                copy.deepcopy(result.changes), level=permissions.role_level(role)
            )
            assert not needs_resync
            assert apply_changes(before[role], visible) == as_state(after[role]), (name, sensitivity, role)


def test_changes_since_agrees_with_the_live_event(canvas, linked, alice):
    start = Canvas.objects.get(pk=canvas.pk).revision
    first = snapshots(canvas)
    for name, sensitivity in STEPS:
        services.apply_operation(
            actor=user_actor(alice),
            canvas_id=canvas.pk,
            op={"type": "node.update", "id": linked[name], "fields": {"sensitivity": sensitivity}},
        )
    last = snapshots(canvas)
    current = Canvas.objects.get(pk=canvas.pk)
    for role in ROLES:
        page = selectors.changes_since(canvas=current, role=role, since=start)
        assert not page["needs_resync"]
        state = first[role]
        for event in page["events"]:
            state = apply_changes(state, event["changes"])
            state = {"nodes": list(state["nodes"].values()), "edges": list(state["edges"].values())}
        assert as_state(state) == as_state(last[role]), role


def test_a_viewer_losing_a_node_loses_its_edges_in_the_same_event(canvas, linked, alice):
    result = services.apply_operation(
        actor=user_actor(alice),
        canvas_id=canvas.pk,
        op={"type": "node.update", "id": linked["leaf"], "fields": {"sensitivity": "internal"}},
    )
    visible, _ = filter_changes(copy.deepcopy(result.changes), level=permissions.role_level("viewer"))
    removed = {(c["entity"], c["action"]) for c in visible}
    assert removed == {("node", "removed"), ("edge", "removed")}
    assert sum(1 for c in visible if c["entity"] == "edge") == 1  # hub-leaf; leaf-internal it never saw
    # The owner, who sees everything, gets only the node's change.
    owner_view, _ = filter_changes(copy.deepcopy(result.changes), level=permissions.role_level("owner"))
    assert [(c["entity"], c["action"]) for c in owner_view] == [("node", "updated")]
