"""The message list carries what a reload must redraw: agent chips, node handles, captured suggestions."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.chat import services
from tests.agent.conftest import call, create_node, handle_of, prepare_turn, run_calls

pytestmark = pytest.mark.django_db


def _agent_turn(user, canvas, text, conversation_id=None):
    """A turn whose agent proposes a node and has one call refused (a handle it was never given)."""
    turn = prepare_turn(user, canvas.pk, text=text, conversation_id=conversation_id)
    _, events, runner, _ = run_calls(
        user,
        canvas.pk,
        [
            call("add_node", {"content": "灰度发布先放 5% 流量 Canary at 5 percent"}, "c-add"),
            call("update_node", {"node": "n977", "content": "x"}, "c-bad"),
        ],
        turn=turn,
    )
    services.turn_finish(turn=turn, text="已提议 [n1]。", usage=None, latency_ms=1, handles=runner.handles)
    return turn, events


def _list(client, conversation_id, query=""):
    response = client.get(f"/api/conversations/{conversation_id}/messages/{query}")
    assert response.status_code == 200, response.content
    return response


def test_replies_come_back_with_agent_actions_and_handles(canvas, alice, client_for, matches_schema):
    port = create_node(alice, canvas.pk, "预发布数据库端口 6543 staging DB port", x=20, y=20)
    turn, live = _agent_turn(alice, canvas, "预发布的端口是多少？")
    response = _list(client_for(alice), turn.conversation.pk)
    matches_schema(response, "conversation_messages")
    question, reply = response.json()
    assert reply["id"] == turn.assistant_message.pk
    assert [(a["tool"], a["outcome"], a["call_id"]) for a in reply["agent_actions"]] == [
        ("add_node", "proposed", "c-add"),
        ("update_node", "refused", "c-bad"),
    ]
    proposed, refused = reply["agent_actions"]
    # the same facts the live agent.action frames carried
    assert proposed["proposal_id"] == live[0]["proposal_id"] and proposed["proposal_id"] is not None
    assert refused["error"]["code"] == live[1]["error"]["code"] and refused["error"]["message"]
    assert reply["handles"][handle_of(turn, port)] == port
    assert "agent_actions" not in question and question["suggestions"] == []


def test_suggestions_keep_their_state_under_their_question(canvas, alice, apply, scripted_llm, client_for):
    scripted_llm.push({"content": "ok"})
    first = services.turn_prepare(
        user=alice,
        canvas_id=canvas.pk,
        viewport=None,
        text="The staging DB port is 6543. The cache TTL is 90 seconds.",
    )
    services.turn_finish(turn=first, text="ok", usage=None, latency_ms=1)
    assert len(first.suggestions) >= 2, first.suggestions
    taken, dropped = first.suggestions[0], first.suggestions[1]
    client = client_for(alice)
    assert (
        client.post(f"/api/suggestions/{taken['id']}/accept/", {"x": 1, "y": 1}, format="json").status_code
        == 200
    )
    assert client.post(f"/api/suggestions/{dropped['id']}/dismiss/", {}, format="json").status_code == 200
    question, _ = _list(client, first.conversation.pk).json()
    states = {s["id"]: s["status"] for s in question["suggestions"]}
    assert states[taken["id"]] == "accepted" and states[dropped["id"]] == "dismissed"
    assert next(s for s in question["suggestions"] if s["id"] == taken["id"])["created_node_id"]
    rest = set(states) - {taken["id"], dropped["id"]}
    assert all(states[i] == "pending" for i in rest)


def test_handles_of_nodes_the_reader_may_no_longer_see_drop_out(canvas, alice, bob, client_for):
    internal = create_node(
        alice, canvas.pk, "内部预算 internal budget 40k", x=30, y=30, sensitivity="internal"
    )
    turn = prepare_turn(bob, canvas.pk, text="预算是多少？")
    services.turn_finish(turn=turn, text="见 [n1]", usage=None, latency_ms=1)
    handle = handle_of(turn, internal)
    assert _list(client_for(bob), turn.conversation.pk).json()[1]["handles"][handle] == internal
    canvas_services.member_set(actor=user_actor(alice), canvas_id=canvas.pk, role="viewer", user_id=bob.pk)
    assert handle not in _list(client_for(bob), turn.conversation.pk).json()[1]["handles"]


def test_the_list_asks_the_same_number_of_queries_with_more_chips(canvas, alice, client_for):
    create_node(alice, canvas.pk, "发布窗口 release window Friday", x=10, y=10)
    small, _ = _agent_turn(alice, canvas, "第一个问题 about the window?")
    large, _ = _agent_turn(alice, canvas, "另一个问题 about the window?")
    for i in range(4):
        _agent_turn(alice, canvas, f"追问 {i} about the window?", conversation_id=large.conversation.pk)
    client = client_for(alice)

    def count(conversation_id):
        with CaptureQueriesContext(connection) as queries:
            body = _list(client, conversation_id).json()
        return len(queries.captured_queries), body

    few, _ = count(small.conversation.pk)
    many, body = count(large.conversation.pk)
    assert few == many
    assert sum(len(m.get("agent_actions", [])) for m in body) == 10
