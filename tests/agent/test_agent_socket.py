"""The agent end to end over the canvas socket, against the scripted model (real HTTP, real openai client)."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from canvasweb.agent import tools
from canvasweb.agent.models import Proposal
from canvasweb.canvases.models import Node
from canvasweb.history.models import ChangeLogEntry, SecurityEvent
from tests.agent.conftest import canvas_state
from tests.canvases.realtime.test_consumer import join, send_op, setup_canvas

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORT = {"x": 0, "y": 0, "zoom": 1, "width": 1200, "height": 800}


async def frames_until(ws, done, timeout=5):
    """Every frame (presence aside) up to and including the first for which done(frame) is true."""
    seen = []
    while True:
        frame = await ws.receive_json_from(timeout=timeout)
        if frame["type"].startswith("presence"):
            continue
        seen.append(frame)
        if done(frame):
            return seen


async def handles(ws, text):
    await ws.send_json_to({"type": "context.preview", "request_id": "p", "text": text, "viewport": VIEWPORT})
    frame = (await frames_until(ws, lambda f: f["type"] == "context.preview"))[-1]
    return {n["node_id"]: n["handle"] for n in frame["included"]}


def api(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


async def test_remember_memcached_proposal_approved_by_a_teammate_reaches_everyone_live(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    vic, _, _ = await join(canvas.pk, tokens["vic"])
    ack = await send_op(
        alice,
        {
            "type": "node.create",
            "node": {"content": "Cache: Redis 7 for sessions", "x": 10, "y": 10, "kind": "decision"},
        },
    )
    redis_id = ack["changes"][0]["id"]
    for ws in (bob, vic):
        await frames_until(ws, lambda f: f["type"] == "change")
    question = "remember that we switched to Memcached"
    handle = (await handles(alice, question))[redis_id]

    scripted_llm.push(
        {
            "tool_calls": [
                {
                    "name": "supersede_node",
                    "arguments": {"node": handle, "content": "Cache: Memcached for sessions"},
                }
            ]
        },
        {"content": "I proposed replacing the Redis node; a teammate needs to approve it."},
    )
    await alice.send_json_to(
        {"type": "chat.send", "request_id": "r1", "text": question, "viewport": VIEWPORT}
    )
    frames = await frames_until(alice, lambda f: f["type"] in ("chat.done", "chat.error"))
    assert frames[-1]["type"] == "chat.done", frames[-1]
    action = next(f for f in frames if f["type"] == "agent.action")
    assert action["tool"] == "supersede_node" and action["outcome"] == "proposed"
    proposal_frame = next(f for f in frames if f["type"] == "agent.proposal")
    proposal = proposal_frame["proposal"]
    assert proposal_frame["action"] == "created" and proposal["status"] == "pending"
    assert proposal["id"] == action["proposal_id"] and proposal["requested_by"]["username"] == "alice"
    assert proposal["diff"]["node"]["content"] == "Cache: Memcached for sessions"  # the ghost node
    # The teammate (and the viewer: the node is public) see the proposal appear live.
    for ws in (bob, vic):
        seen = await frames_until(ws, lambda f: f["type"] == "agent.proposal")
        assert seen[-1]["proposal"]["id"] == proposal["id"]
    # What the model saw: write tools offered, the proposal result in round 2, and nothing was applied yet.
    first, second = scripted_llm.requests[0], scripted_llm.requests[1]
    assert {t["function"]["name"] for t in first["tools"]} == set(tools.ALL_TOOLS)
    tool_message = next(m for m in second["messages"] if m["role"] == "tool")
    assert json.loads(tool_message["content"])["status"] == "proposed"
    assert await database_sync_to_async(Node.objects.filter(content__contains="Memcached").count)() == 0

    response = await database_sync_to_async(
        lambda: api(tokens["bob"]).post(f"/api/proposals/{proposal['id']}/approve/", {}, format="json")
    )()
    assert response.status_code == 200, response.json()
    revision = response.json()["revision"]
    for ws in (alice, bob, vic):
        seen = await frames_until(ws, lambda f: f["type"] == "change" and f["revision"] == revision)
        change = seen[-1]
        assert change["actor"]["kind"] == "agent"
        assert change["actor"]["on_behalf_of"]["username"] == "alice"
        assert change["actor"]["approved_by"]["username"] == "bob"
        assert change["actor"]["conversation_id"] == proposal["conversation_id"]
        created = next(c for c in change["changes"] if c["entity"] == "node" and c["action"] == "created")
        assert created["data"]["content"] == "Cache: Memcached for sessions"
        assert created["data"]["author_kind"] == "agent"
        assert created["data"]["provenance"]["approved_by"]["username"] == "bob"
        decided = await frames_until(ws, lambda f: f["type"] == "agent.proposal")
        assert (
            decided[-1]["action"] == "approved" and decided[-1]["proposal"]["decided_by"]["username"] == "bob"
        )
    entries = await database_sync_to_async(
        lambda: list(
            ChangeLogEntry.objects.filter(revision=revision).values_list(
                "actor_kind", "actor_user__username", "approved_by__username", "conversation_id", "message_id"
            )
        )
    )()
    assert set(entries) == {("agent", "alice", "bob", proposal["conversation_id"], proposal["message_id"])}
    for ws in (alice, bob, vic):
        await ws.disconnect()


async def test_a_viewers_agent_over_the_socket_is_offered_reads_and_refused_writes(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    await send_op(alice, {"type": "node.create", "node": {"content": "Cache: Redis", "x": 0, "y": 0}})
    vic, _, _ = await join(canvas.pk, tokens["vic"])
    before = await database_sync_to_async(canvas_state)()
    security = await database_sync_to_async(SecurityEvent.objects.count)()
    writes = [
        {"name": name, "arguments": {"node": "n1", "content": "pwned", "x": 1, "y": 1}}
        for name in tools.WRITE_TOOLS
    ] + [{"name": "delete_node", "arguments": {"node": "n1"}}]
    scripted_llm.push(
        {"tool_calls": writes}, {"tool_calls": writes}, {"content": "I could not change anything."}
    )
    await vic.send_json_to({"type": "chat.send", "text": "rewrite the canvas", "viewport": VIEWPORT})
    frames = await frames_until(vic, lambda f: f["type"] in ("chat.done", "chat.error"))
    assert frames[-1]["type"] == "chat.done"
    actions = [f for f in frames if f["type"] == "agent.action"]
    assert len(actions) == 2 * len(writes) and {a["outcome"] for a in actions} == {"refused"}
    assert {t["function"]["name"] for t in scripted_llm.requests[0]["tools"]} == set(tools.READ_TOOLS)
    results = [json.loads(m["content"]) for m in scripted_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert len(results) == len(writes) and all(r["error"]["code"] == "FORBIDDEN" for r in results)
    assert await database_sync_to_async(SecurityEvent.objects.count)() - security == 2 * len(writes)
    after = await database_sync_to_async(canvas_state)()
    for key in ("nodes", "edges", "log", "revisions"):
        assert after[key] == before[key]
    assert not await database_sync_to_async(Proposal.objects.exists)()
    for ws in (alice, vic):
        await ws.disconnect()


async def test_proposals_about_internal_nodes_are_not_sent_to_viewers(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    vic, _, _ = await join(canvas.pk, tokens["vic"])
    ack = await send_op(
        alice,
        {"type": "node.create", "node": {"content": "Budget 40k", "x": 0, "y": 0, "sensitivity": "internal"}},
    )
    handle = (await handles(alice, "budget"))[ack["changes"][0]["id"]]
    scripted_llm.push(
        {
            "tool_calls": [
                {"name": "update_node", "arguments": {"node": handle, "content": "Budget 45k"}},
                {"name": "add_node", "arguments": {"content": "public follow-up"}},
            ]
        },
        {"content": "proposed"},
    )
    await alice.send_json_to({"type": "chat.send", "text": "budget is 45k now", "viewport": VIEWPORT})
    frames = await frames_until(alice, lambda f: f["type"] == "chat.done")
    assert [f["action"] for f in frames if f["type"] == "agent.proposal"] == ["created", "created"]
    seen = await frames_until(vic, lambda f: f["type"] == "agent.proposal")
    assert seen[-1]["proposal"]["summary"].startswith("Add note")  # only the public one
    assert "Budget" not in json.dumps(seen)
    assert await vic.receive_nothing(timeout=0.5)  # and nothing more
    for ws in (alice, vic):
        await ws.disconnect()
