"""Propose mode: writes become proposals; people approve (applied with the approver recorded) or reject."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from canvasweb.agent.models import Proposal
from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Edge, Node
from canvasweb.canvases.placement import node_rect
from canvasweb.history.models import ChangeLogEntry, SecurityEvent
from tests.agent.conftest import call, canvas_state, handle_of, prepare_turn, run_calls, set_policy

pytestmark = pytest.mark.django_db


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def propose(user, canvas, calls, text="remember that we switched to Memcached"):
    turn = prepare_turn(user, canvas.pk, text=text)
    results, events, runner, _ = run_calls(
        user, canvas.pk, [call(n, a(turn) if callable(a) else a) for n, a in calls], turn=turn
    )
    return results, events, runner, turn


def test_propose_then_approve_applies_with_the_approver_recorded(seeded, alice, bob):
    canvas, ids = seeded
    before = canvas_state()
    results, events, runner, turn = propose(
        alice,
        canvas,
        [
            (
                "supersede_node",
                lambda t: {"node": handle_of(t, ids["redis"]), "content": "Cache: Memcached for sessions"},
            )
        ],
    )
    assert events[0]["outcome"] == "proposed" and results[0]["status"] == "proposed"
    assert (
        canvas_state()["nodes"] == before["nodes"] and canvas_state()["log"] == before["log"]
    )  # nothing applied
    proposal = Proposal.objects.get(pk=results[0]["proposal_id"])
    assert proposal.status == "pending" and proposal.requested_by == alice
    assert proposal.diff["fields"] == [
        {
            "field": "content",
            "before": "Cache: Redis 7 for sessions",
            "after": "Cache: Memcached for sessions",
        }
    ]
    assert proposal.base_versions == {ids["redis"]: 1}

    listed = client_for(bob).get(f"/api/canvases/{canvas.pk}/proposals/?status=pending").json()
    assert [p["id"] for p in listed] == [proposal.pk] and listed[0]["stale"] is False
    response = client_for(bob).post(f"/api/proposals/{proposal.pk}/approve/", {}, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["proposal"]["status"] == "approved" and body["proposal"]["decided_by"]["username"] == "bob"

    new = Node.objects.get(pk=proposal.op["node"]["id"])  # the ghost node's id became the real one
    assert new.content == "Cache: Memcached for sessions" and new.author_kind == "agent"
    assert new.provenance["on_behalf_of"]["username"] == "alice"
    assert new.provenance["approved_by"] == {"id": bob.pk, "username": "bob"}
    assert new.provenance["conversation_id"] == turn.conversation.pk
    assert new.provenance["message_id"] == turn.assistant_message.pk
    assert new.provenance["agent_run_id"] == runner.run.run_id
    entries = ChangeLogEntry.objects.filter(canvas=canvas, revision=body["revision"])
    assert entries.count() == 3
    assert {
        (e.actor_kind, e.actor_user_id, e.approved_by_id, e.conversation_id, e.message_id) for e in entries
    } == {("agent", alice.pk, bob.pk, turn.conversation.pk, turn.assistant_message.pk)}
    assert Node.objects.get(pk=ids["redis"]).superseded_by_id == new.pk
    history = client_for(alice).get(f"/api/canvases/{canvas.pk}/nodes/{new.pk}/history/").json()
    assert history[0]["actor"]["kind"] == "agent" and history[0]["actor"]["approved_by"]["username"] == "bob"
    # Decided proposals cannot be decided again.
    again = client_for(alice).post(f"/api/proposals/{proposal.pk}/approve/", {}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "CONFLICT"


def test_reject_applies_nothing(seeded, alice, bob):
    canvas, ids = seeded
    results, events, _, _ = propose(
        bob,
        canvas,
        [
            ("add_node", {"content": "We use Memcached now"}),
            ("archive_node", lambda t: {"node": handle_of(t, ids["redis"])}),
        ],
    )
    assert [e["outcome"] for e in events] == ["proposed", "proposed"]
    before = canvas_state()
    for result in results:
        response = client_for(alice).post(
            f"/api/proposals/{result['proposal_id']}/reject/", {}, format="json"
        )
        assert response.status_code == 200 and response.json()["proposal"]["status"] == "rejected"
        assert response.json()["proposal"]["decided_by"]["username"] == "alice"
    after = canvas_state()
    assert (
        after["nodes"] == before["nodes"]
        and after["log"] == before["log"]
        and after["revisions"] == before["revisions"]
    )
    assert not Node.objects.filter(content="We use Memcached now").exists()
    assert (
        client_for(alice).get(f"/api/canvases/{canvas.pk}/proposals/?status=rejected").json()[0]["status"]
        == "rejected"
    )
    for value in ("", "maybe"):
        bad = client_for(alice).get(f"/api/canvases/{canvas.pk}/proposals/?status={value}")
        assert bad.status_code == 400 and bad.json()["error"]["field"] == "status"


def test_a_stale_proposal_is_flagged_and_needs_force(seeded, alice, bob):
    canvas, ids = seeded
    results, _, _, _ = propose(
        alice,
        canvas,
        [("update_node", lambda t: {"node": handle_of(t, ids["redis"]), "content": "Cache: Redis 7.2"})],
    )
    proposal_id = results[0]["proposal_id"]
    services.apply_operation(
        actor=user_actor(bob),
        canvas_id=canvas.pk,
        op={"type": "node.update", "id": ids["redis"], "fields": {"weight": 3}},
    )
    listed = client_for(alice).get(f"/api/canvases/{canvas.pk}/proposals/").json()
    assert listed[0]["stale"] is True and "edited" in listed[0]["stale_reason"]
    response = client_for(alice).post(f"/api/proposals/{proposal_id}/approve/", {}, format="json")
    assert response.status_code == 409 and response.json()["error"]["field"] == "force"
    assert Proposal.objects.get(pk=proposal_id).status == "pending"
    assert Node.objects.get(pk=ids["redis"]).content == "Cache: Redis 7 for sessions"
    response = client_for(alice).post(
        f"/api/proposals/{proposal_id}/approve/", {"force": True}, format="json"
    )
    assert response.status_code == 200 and response.json()["proposal"]["forced"] is True
    assert Node.objects.get(pk=ids["redis"]).content == "Cache: Redis 7.2"


def test_a_link_to_a_node_that_was_archived_is_stale(seeded, alice, bob):
    canvas, ids = seeded
    set_policy(alice, canvas.pk, scope="all")
    _results, _, _, _ = propose(
        bob,
        canvas,
        [
            (
                "link_nodes",
                lambda t: {
                    "source": handle_of(t, ids["redis"]),
                    "target": handle_of(t, ids["tagged"]),
                    "relation": "causes",
                },
            )
        ],
    )
    services.apply_operation(
        actor=user_actor(alice), canvas_id=canvas.pk, op={"type": "node.archive", "id": ids["tagged"]}
    )
    listed = client_for(bob).get(f"/api/canvases/{canvas.pk}/proposals/?status=pending").json()
    assert listed[0]["stale"] is True and "links to" in listed[0]["stale_reason"]


def test_only_editors_and_owners_decide_and_viewers_see_only_public_proposals(seeded, alice, bob, vic):
    canvas, ids = seeded
    results, _, _, _ = propose(
        alice,
        canvas,
        [
            ("add_node", {"content": "public idea"}),
            (
                "update_node",
                lambda t: {"node": handle_of(t, ids["internal"]), "content": "Budget is 50k EUR"},
            ),
        ],
    )
    public_id, internal_id = (r["proposal_id"] for r in results)
    listed = client_for(vic).get(f"/api/canvases/{canvas.pk}/proposals/").json()
    assert [p["id"] for p in listed] == [public_id]  # the internal one stays hidden
    security = SecurityEvent.objects.count()
    response = client_for(vic).post(f"/api/proposals/{public_id}/approve/", {}, format="json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"
    assert SecurityEvent.objects.count() == security + 1
    assert client_for(vic).post(f"/api/proposals/{internal_id}/reject/", {}, format="json").status_code == 404
    assert Proposal.objects.filter(status="pending").count() == 2
    assert (
        client_for(bob).post(f"/api/proposals/{internal_id}/approve/", {}, format="json").status_code == 200
    )
    assert Node.objects.get(pk=ids["internal"]).content == "Budget is 50k EUR"


def test_clearly_forbidden_writes_are_refused_at_once_not_queued(seeded, bob):
    canvas, ids = seeded  # propose mode, pinned anchors protected
    security = SecurityEvent.objects.count()
    results, events, _, _ = propose(
        bob,
        canvas,
        [
            ("update_node", lambda t: {"node": handle_of(t, ids["anchor"]), "content": "Goal: cancelled"}),
            ("supersede_node", lambda t: {"node": handle_of(t, ids["anchor"]), "content": "Goal: none"}),
        ],
    )
    assert [e["outcome"] for e in events] == ["refused", "refused"]
    assert all("pinned" in r["error"]["message"] for r in results)
    assert not Proposal.objects.exists() and SecurityEvent.objects.count() == security + 2


def test_approval_that_the_write_path_now_refuses_marks_the_proposal_failed(seeded, alice, bob):
    canvas, ids = seeded
    results, _, _, _ = propose(
        bob,
        canvas,
        [("update_node", lambda t: {"node": handle_of(t, ids["redis"]), "content": "Cache: KeyDB"})],
    )
    proposal_id = results[0]["proposal_id"]
    set_policy(alice, canvas.pk, mode="off")  # the owner switched the agent off meanwhile
    before = canvas_state()
    response = client_for(alice).post(f"/api/proposals/{proposal_id}/approve/", {}, format="json")
    assert response.status_code == 403 and "marked failed" in response.json()["error"]["message"]
    proposal = Proposal.objects.get(pk=proposal_id)
    assert (
        proposal.status == "failed" and proposal.error["code"] == "FORBIDDEN" and proposal.decided_by == alice
    )
    assert canvas_state()["nodes"] == before["nodes"]


def test_proposal_endpoints_validate_input(seeded, alice, bob, make_user):
    canvas, _ = seeded
    results, _, _, _ = propose(bob, canvas, [("add_node", {"content": "x"})])
    pid = results[0]["proposal_id"]
    client = client_for(alice)
    assert client.get(f"/api/canvases/{canvas.pk}/proposals/?status=bogus").status_code == 400
    assert client.post(f"/api/proposals/{pid}/approve/", {"force": "yes"}, format="json").status_code == 400
    assert client.post(f"/api/proposals/{pid}/approve/", {"extra": 1}, format="json").status_code == 400
    assert client.post("/api/proposals/999999/approve/", {}, format="json").status_code == 404
    stranger = client_for(make_user("stranger"))
    assert stranger.get(f"/api/canvases/{canvas.pk}/proposals/").status_code == 404
    assert stranger.post(f"/api/proposals/{pid}/approve/", {}, format="json").status_code == 404
    assert APIClient().get(f"/api/canvases/{canvas.pk}/proposals/").status_code == 401
    assert Proposal.objects.get(pk=pid).status == "pending"


def test_proposed_edges_and_nodes_carry_ghost_data(seeded, alice):
    canvas, ids = seeded
    set_policy(alice, canvas.pk, scope="all")
    results, _, _, _ = propose(
        alice,
        canvas,
        [
            (
                "link_nodes",
                lambda t: {
                    "source": handle_of(t, ids["redis"]),
                    "target": handle_of(t, ids["anchor"]),
                    "relation": "depends_on",
                    "label": "serves",
                },
            ),
            ("add_node", lambda t: {"content": "near redis", "near": handle_of(t, ids["redis"])}),
        ],
    )
    link, add = (Proposal.objects.get(pk=r["proposal_id"]) for r in results)
    assert link.diff["edge"]["source"] == ids["redis"] and link.diff["edge"]["label"] == "serves"
    assert link.refs == [ids["redis"], ids["anchor"]] and link.base_versions == {}
    # placed near redis, not on top of any card
    ghost, redis = add.diff["node"], Node.objects.get(pk=ids["redis"])
    assert abs(ghost["x"] - redis.x) < 800 and abs(ghost["y"] - redis.y) < 600
    assert not any(
        node_rect(x=ghost["x"], y=ghost["y"], content=ghost["content"]).overlaps(
            node_rect(x=n.x, y=n.y, weight=n.weight, content=n.content), gap=0
        )
        for n in Node.objects.filter(canvas=canvas)
    )
    assert client_for(alice).post(f"/api/proposals/{link.pk}/approve/", {}, format="json").status_code == 200
    assert Edge.objects.filter(pk=link.op["edge"]["id"], author_kind="agent").exists()


def test_agent_endpoints_are_in_the_schema_and_in_docs_api_md():
    from pathlib import Path

    from django.conf import settings
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    ours = {
        (path, method): op
        for path, methods in schema["paths"].items()
        for method, op in methods.items()
        if "agent" in op.get("tags", [])
    }
    assert {op["operationId"] for op in ours.values()} == {
        "proposal_list",
        "proposal_approve",
        "proposal_reject",
    }
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    for path, method in ours:
        assert f"{method.upper()} {path}" in text
    protocol = (Path(settings.BASE_DIR) / "docs" / "protocol.md").read_text()
    assert "### agent.action" in protocol and "### agent.proposal" in protocol
