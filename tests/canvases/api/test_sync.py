"""Snapshot, catch-up changes and node history, and what each role may see in them."""

from __future__ import annotations

import uuid

import pytest

from canvasweb.canvases.models import Canvas
from tests.conftest import node_op

from .conftest import err

pytestmark = pytest.mark.django_db


@pytest.fixture
def mixed(canvas, apply, alice, bob):
    """A public, an internal and a secret node, linked; returns their ids."""
    public = apply(bob, node_op("Database listens on port 5433", kind="config")).changes[0]["id"]
    internal = apply(bob, node_op("INTERNAL-budget ¥200k", sensitivity="internal")).changes[0]["id"]
    secret = apply(alice, node_op("SECRET-hunter2", sensitivity="secret")).changes[0]["id"]
    apply(
        alice, {"type": "edge.create", "edge": {"source": secret, "target": public, "relation": "relates_to"}}
    )
    apply(bob, {"type": "edge.create", "edge": {"source": internal, "target": public, "relation": "causes"}})
    apply(alice, {"type": "node.update", "id": secret, "fields": {"content": "SECRET-hunter3"}})
    return {"public": public, "internal": internal, "secret": secret}


def test_snapshot_per_role(canvas, mixed, owner_client, editor_client, viewer_client, matches_schema):
    expected = {
        owner_client: ({"public", "internal", "secret"}, 2),
        editor_client: ({"public", "internal"}, 1),
        viewer_client: ({"public"}, 0),
    }
    for client, (kinds, edge_count) in expected.items():
        response = client.get(f"/api/canvases/{canvas.pk}/snapshot/")
        matches_schema(response, "canvas_snapshot")
        body = response.json()
        assert body["revision"] == Canvas.objects.get(pk=canvas.pk).revision
        assert {n["id"] for n in body["nodes"]} == {mixed[k] for k in kinds}
        assert len(body["edges"]) == edge_count


def test_viewer_never_sees_internal_or_secret_text(canvas, mixed, viewer_client):
    paths = [
        f"/api/canvases/{canvas.pk}/snapshot/",
        f"/api/canvases/{canvas.pk}/changes/?since=0",
        f"/api/canvases/{canvas.pk}/nodes/{mixed['public']}/history/",
    ]
    for path in paths:
        response = viewer_client.get(path)
        assert response.status_code == 200
        text = response.content.decode()
        assert "INTERNAL" not in text and "SECRET" not in text and "hunter" not in text, path
        assert "_vb" not in text and "_va" not in text
    for node in ("internal", "secret"):
        response = viewer_client.get(f"/api/canvases/{canvas.pk}/nodes/{mixed[node]}/history/")
        assert response.status_code == 404 and err(response)["code"] == "NOT_FOUND"


def test_changes_since(canvas, mixed, editor_client, viewer_client, matches_schema):
    current = Canvas.objects.get(pk=canvas.pk).revision
    response = editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since=0")
    matches_schema(response, "canvas_changes")
    body = response.json()
    assert body["from"] == 0 and body["to"] == current and body["has_more"] is False
    assert body["needs_resync"] is False
    # Every revision is there, in order, even those whose changes this role may not see.
    assert [e["revision"] for e in body["events"]] == list(range(1, current + 1))
    secret_rev = next(e for e in body["events"] if e["changes"] == [])
    assert secret_rev["actor"]["user"]["username"] == "alice"
    text = response.content.decode()
    assert "SECRET" not in text and "INTERNAL" in text

    viewer = viewer_client.get(f"/api/canvases/{canvas.pk}/changes/?since=0").json()
    assert [e["revision"] for e in viewer["events"]] == list(range(1, current + 1))


def test_changes_paging(canvas, mixed, editor_client, matches_schema):
    current = Canvas.objects.get(pk=canvas.pk).revision
    response = editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since=1&limit=2")
    matches_schema(response, "canvas_changes")
    body = response.json()
    assert (body["from"], body["to"], body["has_more"]) == (1, 3, True)
    assert [e["revision"] for e in body["events"]] == [2, 3]
    rest = editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since={body['to']}").json()
    assert rest["to"] == current and rest["has_more"] is False
    empty = editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since={current}").json()
    assert empty == {"from": current, "to": current, "events": [], "needs_resync": False, "has_more": False}


def test_changes_ask_for_resync(canvas, apply, bob, viewer_client, matches_schema):
    node = apply(bob, node_op("was internal", sensitivity="internal")).changes[0]["id"]
    before = Canvas.objects.get(pk=canvas.pk).revision
    apply(bob, {"type": "node.update", "id": node, "fields": {"sensitivity": "public"}})
    body = viewer_client.get(f"/api/canvases/{canvas.pk}/changes/?since={before}").json()
    # A node coming into view arrives as `created` with its data (and its edges): no resync needed.
    assert body["needs_resync"] is False
    assert [(c["action"], c["id"]) for c in body["events"][-1]["changes"]] == [("created", node)]
    # A client claiming a revision the canvas never had must start over too.
    response = viewer_client.get(f"/api/canvases/{canvas.pk}/changes/?since={before + 100}")
    matches_schema(response, "canvas_changes")
    assert response.json()["needs_resync"] is True and response.json()["events"] == []


def test_changes_ask_for_resync_across_your_own_role_change(canvas, mixed, alice, bob, editor_client):
    """bob holds internal nodes as an editor; demoted to viewer, catching up must not keep them."""
    from canvasweb.canvases import services
    from canvasweb.canvases.actors import user_actor

    before = Canvas.objects.get(pk=canvas.pk).revision
    services.member_set(actor=user_actor(alice), canvas_id=canvas.pk, username="bob", role="viewer")
    body = editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since={before}").json()
    assert body["needs_resync"] is True
    snapshot = editor_client.get(f"/api/canvases/{canvas.pk}/snapshot/").json()
    assert mixed["internal"] not in {n["id"] for n in snapshot["nodes"]}
    # Someone else's role change is an ordinary change for everyone else.
    after = Canvas.objects.get(pk=canvas.pk).revision
    services.member_set(actor=user_actor(alice), canvas_id=canvas.pk, username="vic", role="editor")
    assert (
        editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since={after}").json()["needs_resync"] is False
    )


@pytest.mark.parametrize(
    "query, field",
    [
        ("", "since"),
        ("?since=", "since"),
        ("?since=-1", "since"),
        ("?since=abc", "since"),
        ("?since=1.5", "since"),
        ("?since=99999999999999999999999", "since"),
        ("?since=0&limit=0", "limit"),
        ("?since=0&limit=x", "limit"),
    ],
)
def test_changes_errors(canvas, editor_client, query, field, matches_schema):
    response = editor_client.get(f"/api/canvases/{canvas.pk}/changes/{query}")
    matches_schema(response, "canvas_changes")
    assert response.status_code == 400
    assert (err(response)["code"], err(response)["field"]) == ("INVALID", field)


def test_changes_limit_is_capped(canvas, editor_client):
    response = editor_client.get(f"/api/canvases/{canvas.pk}/changes/?since=0&limit=100000")
    assert response.status_code == 200


def test_node_history(canvas, mixed, apply, bob, editor_client, owner_client, matches_schema):
    apply(bob, {"type": "node.update", "id": mixed["public"], "fields": {"content": "port 5434"}})
    response = editor_client.get(f"/api/canvases/{canvas.pk}/nodes/{mixed['public']}/history/")
    matches_schema(response, "node_history")
    history = response.json()
    assert [h["action"] for h in history] == ["created", "updated"]
    assert history[1]["before"]["content"] == "Database listens on port 5433"
    assert history[1]["after"]["content"] == "port 5434" and history[1]["fields"] == ["content"]
    assert history[1]["actor"]["user"]["username"] == "bob"
    # History outlives the node.
    apply(bob, {"type": "node.delete", "id": mixed["public"]})
    history = editor_client.get(f"/api/canvases/{canvas.pk}/nodes/{mixed['public']}/history/").json()
    assert history[-1]["action"] == "deleted" and history[-1]["after"] is None
    # The owner sees the secret node's history; an unknown id is 404.
    assert owner_client.get(f"/api/canvases/{canvas.pk}/nodes/{mixed['secret']}/history/").status_code == 200
    response = owner_client.get(f"/api/canvases/{canvas.pk}/nodes/{uuid.uuid4()}/history/")
    matches_schema(response, "node_history")
    assert response.status_code == 404 and err(response)["code"] == "NOT_FOUND"


def test_history_and_snapshot_of_foreign_canvas_are_404(canvas, client_for, make_user, mixed):
    stranger = client_for(make_user("stranger"))
    for path in (
        f"/api/canvases/{canvas.pk}/snapshot/",
        f"/api/canvases/{canvas.pk}/changes/?since=0",
        f"/api/canvases/{canvas.pk}/nodes/{mixed['public']}/history/",
        f"/api/canvases/{canvas.pk}/members/",
    ):
        response = stranger.get(path)
        assert response.status_code == 404 and err(response)["code"] == "NOT_FOUND", path
