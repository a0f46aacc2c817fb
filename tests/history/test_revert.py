"""Revert a node to a version: restores the fields through the write path and is itself logged."""

from __future__ import annotations

import pytest

from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Node
from canvasweb.common.errors import Forbidden, InvalidOperation, NotFound
from canvasweb.history import selectors, services
from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def created_id(result) -> str:
    return next(c["id"] for c in result.changes if c["entity"] == "node" and c["action"] == "created")


def test_revert_restores_fields_and_is_logged(canvas, apply, as_agent, alice, bob):
    node = created_id(apply(bob, node_op("retry 3 times", kind="requirement", tags=["ops"], x=10, y=10)))
    good = apply(
        bob, {"type": "node.update", "id": node, "fields": {"content": "retry 5 times", "weight": 2}}
    )
    as_agent(
        alice, {"type": "node.update", "id": node, "fields": {"content": "never retry", "tags": ["agent"]}}
    )
    apply(alice, {"type": "node.move", "id": node, "x": 99, "y": 99})
    apply(alice, {"type": "node.archive", "id": node})

    # Reverting to an edit restores what that edit changed (content, weight), nothing else: the
    # later move, tags and archive stay.
    out = services.node_revert(
        actor=user_actor(bob), canvas_id=canvas.pk, node_id=node, revision=good.revision
    )
    row = Node.objects.get(pk=node)
    assert (row.content, row.weight, row.tags, row.x, row.y, row.archived) == (
        "retry 5 times",
        2,
        ["agent"],
        99,
        99,
        True,
    )
    assert out["revision"] == Canvas.objects.get(pk=canvas.pk).revision and not out["recreated"]
    assert set(out["fields"]) == {"content"}
    entries = ChangeLogEntry.objects.filter(canvas=canvas, revision=out["revision"])
    assert {e.reason for e in entries} == {"revert"} and {e.actor_user for e in entries} == {bob}
    # The history itself is untouched: the bad edits are still there, followed by the revert.
    timeline = selectors.node_timeline(canvas=canvas, level=2, node_id=node)["entries"]
    assert [e["reason"] for e in timeline][-2:] == [None, "revert"]
    assert any(e["actor"]["kind"] == "agent" for e in timeline)

    again = services.node_revert(
        actor=user_actor(bob), canvas_id=canvas.pk, node_id=node, revision=good.revision
    )
    assert again["fields"] == [] and again["changes"] == [] and again["revision"] == out["revision"]


def test_revert_to_the_creation_restores_every_field(canvas, apply, alice, bob):
    created = apply(bob, node_op("端口 5433", kind="config", tags=["db"], x=10, y=10))
    node = created_id(created)
    apply(alice, {"type": "node.update", "id": node, "fields": {"content": "端口 5434", "tags": ["x"]}})
    apply(alice, {"type": "node.move", "id": node, "x": 80, "y": 80})
    out = services.node_revert(
        actor=user_actor(bob), canvas_id=canvas.pk, node_id=node, revision=created.revision
    )
    row = Node.objects.get(pk=node)
    assert (row.content, row.tags, row.x, row.y) == ("端口 5433", ["db"], 10, 10)
    assert set(out["fields"]) == {"content", "tags", "x", "y"}


def test_revert_recreates_a_deleted_node_with_its_id(canvas, apply, bob):
    node = created_id(apply(bob, node_op("keep me", pinned=True)))
    version = apply(bob, {"type": "node.update", "id": node, "fields": {"content": "keep me, v2"}}).revision
    apply(bob, {"type": "node.delete", "id": node})
    out = services.node_revert(actor=user_actor(bob), canvas_id=canvas.pk, node_id=node, revision=version)
    assert (
        out["recreated"]
        and Node.objects.get(pk=node).content == "keep me, v2"
        and Node.objects.get(pk=node).pinned
    )


def test_revert_refusals(canvas, apply, alice, bob, vic):
    node = created_id(apply(bob, node_op("v1")))
    first = Canvas.objects.get(pk=canvas.pk).revision
    with pytest.raises(Forbidden):
        services.node_revert(actor=user_actor(vic), canvas_id=canvas.pk, node_id=node, revision=first)
    for bad in (0, -1, True, "3", first + 100):
        with pytest.raises(InvalidOperation):
            services.node_revert(actor=user_actor(bob), canvas_id=canvas.pk, node_id=node, revision=bad)
    with pytest.raises(InvalidOperation):  # the node did not exist yet
        services.node_revert(actor=user_actor(bob), canvas_id=canvas.pk, node_id=node, revision=1)
    secret = created_id(apply(alice, node_op("s", sensitivity="secret")))
    with pytest.raises(NotFound):
        services.node_revert(actor=user_actor(bob), canvas_id=canvas.pk, node_id=secret, revision=first + 1)
    # An editor cannot revert a node into a secret version they could never see.
    apply(alice, {"type": "node.update", "id": secret, "fields": {"sensitivity": "public"}})
    with pytest.raises(NotFound):
        services.node_revert(actor=user_actor(bob), canvas_id=canvas.pk, node_id=secret, revision=first + 1)


def test_revert_endpoint(canvas, apply, bob, vic, client_for, schema_check):
    node = created_id(apply(bob, node_op("v1")))
    version = Canvas.objects.get(pk=canvas.pk).revision
    apply(bob, {"type": "node.update", "id": node, "fields": {"content": "v2"}})
    url = f"/api/canvases/{canvas.pk}/nodes/{node}/revert/"
    response = client_for(bob).post(url, {"revision": version}, format="json")
    schema_check(response, "node_revert")
    assert response.status_code == 200 and response.json()["fields"] == ["content"]
    change = response.json()["changes"][0]
    assert change["data"]["content"] == "v1"
    refused = client_for(vic).post(url, {"revision": version}, format="json")
    schema_check(refused, "node_revert")
    assert refused.status_code == 403
    bad = client_for(bob).post(url, {"revision": version, "extra": 1}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "extra"
    # A path id that is not the lowercase hyphenated form is no node id: 404 for the path.
    upper = client_for(bob).post(url.replace(node, node.upper()), {"revision": version}, format="json")
    assert upper.status_code == 404
