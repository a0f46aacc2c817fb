"""Agent writes go to free spots: ghost cards of pending proposals never overlap cards or each other,
and an approval moves the new node if its spot was filled in the meantime."""

from __future__ import annotations

import itertools

import pytest
from rest_framework.test import APIClient

from canvasweb.agent.models import Proposal
from canvasweb.canvases.models import Node
from canvasweb.canvases.placement import node_rect
from tests.agent.conftest import call, create_node, handle_of, prepare_turn, run_calls, set_policy

pytestmark = pytest.mark.django_db


def ghost_rect(proposal):
    body = proposal.op["node"]
    return node_rect(x=body["x"], y=body["y"], weight=body.get("weight"), content=body["content"])


def test_two_proposals_at_one_spot_get_separate_free_places(canvas, alice, bob):
    anchor = create_node(alice, canvas.pk, "Queue: 消息队列用 NATS", x=0, y=0)
    set_policy(alice, canvas.pk, mode="propose")
    turn = prepare_turn(alice, canvas.pk, text="add two notes next to the queue")
    near = handle_of(turn, anchor)
    run_calls(
        alice,
        canvas.pk,
        [
            call("add_node", {"content": "NATS cluster has three members", "near": near}),
            call("add_node", {"content": "JetStream 保留 7 天", "near": near}),
            call("add_node", {"content": "placed right on the anchor", "x": 0, "y": 0}),
        ],
        turn=turn,
    )
    proposals = list(Proposal.objects.filter(canvas=canvas).order_by("pk"))
    assert len(proposals) == 3
    live = [
        node_rect(x=n.x, y=n.y, weight=n.weight, content=n.content)
        for n in Node.objects.filter(canvas=canvas)
    ]
    ghosts = [ghost_rect(p) for p in proposals]
    for g in ghosts:
        assert not any(g.overlaps(r, gap=0) for r in live)
    for a, b in itertools.combinations(ghosts, 2):
        assert not a.overlaps(b, gap=0)
    # near the anchor: within two card widths
    assert all(abs(g.x) < 700 and abs(g.y) < 500 for g in ghosts)


def test_approval_moves_the_new_node_when_its_spot_was_filled(canvas, alice, bob):
    set_policy(alice, canvas.pk, mode="propose")
    turn = prepare_turn(alice, canvas.pk, text="note the backup window")
    run_calls(
        alice,
        canvas.pk,
        [call("add_node", {"content": "Backups run at 02:00 UTC", "x": 400, "y": 400})],
        turn=turn,
    )
    proposal = Proposal.objects.get(canvas=canvas)
    assert (proposal.op["node"]["x"], proposal.op["node"]["y"]) == (400, 400)
    create_node(bob, canvas.pk, "bob wrote here first", x=410, y=410)
    client = APIClient()
    client.force_authenticate(bob)
    response = client.post(f"/api/proposals/{proposal.pk}/approve/", {}, format="json")
    assert response.status_code == 200, response.json()
    new = Node.objects.get(pk=proposal.op["node"]["id"])
    bobs = Node.objects.get(content="bob wrote here first")
    assert not node_rect(x=new.x, y=new.y, content=new.content).overlaps(
        node_rect(x=bobs.x, y=bobs.y, content=bobs.content), gap=0
    )
