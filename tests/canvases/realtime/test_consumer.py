"""The canvas WebSocket through the real ASGI stack (auth, origin check, router, consumer).

Runs on the in-process channel layer, and again on Redis when TEST_REDIS_URL is set.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Node
from canvasweb.config.asgi import application
from canvasweb.history.models import SecurityEvent

pytestmark = pytest.mark.django_db(transaction=True)

LAYERS = ["memory"] + (["redis"] if os.environ.get("TEST_REDIS_URL") else [])


@pytest.fixture(params=LAYERS)
def channel_layer(request, settings):
    if request.param == "redis":
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [os.environ["TEST_REDIS_URL"]]},
            }
        }
    else:
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return request.param


@database_sync_to_async
def setup_canvas():
    User = get_user_model()
    users = {
        name: User.objects.create_user(username=name, password="pass-12345")
        for name in ("alice", "bob", "vic", "mallory")
    }
    canvas = services.canvas_create(user=users["alice"], name="ws canvas")
    owner = user_actor(users["alice"])
    services.member_set(actor=owner, canvas_id=canvas.pk, username="bob", role="editor")
    services.member_set(actor=owner, canvas_id=canvas.pk, username="vic", role="viewer")
    tokens = {name: Token.objects.create(user=user).key for name, user in users.items()}
    return canvas, users, tokens


def communicator(canvas_id, token=None, origin="http://localhost", path=None):
    headers = []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if token is not None:
        headers.append((b"authorization", f"Token {token}".encode()))
    return WebsocketCommunicator(application, path or f"/ws/canvases/{canvas_id}/", headers=headers)


async def join(canvas_id, token, last_revision=None):
    ws = communicator(canvas_id, token)
    connected, _ = await ws.connect()
    assert connected
    await ws.send_json_to({"type": "hello", "last_revision": last_revision})
    welcome = await ws.receive_json_from()
    assert welcome["type"] == "welcome"
    state = await ws.receive_json_from()
    return ws, welcome, state


async def receive_type(ws, wanted, timeout=2):
    """Next message of type `wanted`, skipping presence chatter."""
    while True:
        message = await ws.receive_json_from(timeout=timeout)
        if message["type"] == wanted:
            return message
        assert message["type"].startswith("presence"), message


async def send_op(ws, op, client_op_id=None):
    client_op_id = client_op_id or uuid.uuid4().hex
    await ws.send_json_to({"type": "op", "client_op_id": client_op_id, "op": op})
    while True:
        message = await ws.receive_json_from(timeout=3)
        if message["type"] in ("ack", "reject") and message["client_op_id"] == client_op_id:
            return message


def node_op(content="hello", **extra):
    return {"type": "node.create", "node": {"content": content, "x": 0, "y": 0, **extra}}


async def test_handshake_refusals(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    cases = [
        communicator(canvas.pk, None),  # anonymous
        communicator(canvas.pk, "not-a-token"),  # bad token
        communicator(canvas.pk, tokens["mallory"]),  # not a member
        communicator(canvas.pk + 999, tokens["alice"]),  # unknown canvas
        communicator(canvas.pk, tokens["alice"], origin="http://evil.example"),
        communicator(canvas.pk, tokens["alice"], origin=None),
        communicator(canvas.pk, tokens["alice"], origin="null"),
    ]
    for ws in cases:
        connected, _ = await ws.connect()
        assert not connected
        await ws.disconnect()


async def test_hello_snapshot_op_ack_and_broadcast(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    alice, welcome, snapshot = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    assert welcome["role"] == "owner" and snapshot["type"] == "snapshot" and snapshot["nodes"] == []
    ack = await send_op(alice, node_op("数据库端口是 5433"))
    assert ack["type"] == "ack" and ack["revision"] == snapshot["revision"] + 1 and not ack["duplicate"]
    change = await receive_type(bob, "change")
    assert change["revision"] == ack["revision"]
    assert change["changes"][0]["data"]["content"] == "数据库端口是 5433"
    assert change["actor"]["user"]["username"] == "alice"
    assert "_vb" not in json.dumps(change)
    await alice.disconnect()
    await bob.disconnect()


async def test_resend_is_acked_as_duplicate_and_applied_once(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["bob"])
    first = await send_op(ws, node_op("once"), client_op_id="same-id")
    again = await send_op(ws, node_op("once"), client_op_id="same-id")
    assert again["duplicate"] and again["revision"] == first["revision"]
    assert await database_sync_to_async(Node.objects.count)() == 1
    await ws.disconnect()


async def test_reject_codes_and_connection_survives(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    missing = str(uuid.uuid4())
    cases = [
        ({"type": "node.delete", "id": missing}, "NOT_FOUND", "id"),
        ({"type": "node.create", "node": {"content": "x", "x": 1e9, "y": 0}}, "INVALID", "node.x"),
        (
            {"type": "node.create", "node": {"content": "x" * 10_001, "x": 0, "y": 0}},
            "INVALID",
            "node.content",
        ),
        (
            {"type": "node.create", "node": {"content": "x", "x": 0, "y": 0, "weight": 99}},
            "INVALID",
            "node.weight",
        ),
        ({"type": "node.jump"}, "INVALID", "type"),
    ]
    for op, code, field in cases:
        reject = await send_op(bob, op)
        assert (
            reject["type"] == "reject"
            and reject["error"]["code"] == code
            and reject["error"]["field"] == field
        )
    # Infinity and NaN are not JSON, but an op holding one is still answered by its client_op_id.
    await bob.send_to(
        text_data='{"type": "op", "client_op_id": "inf-1", "op": {"type": "node.create", '
        '"node": {"content": "x", "x": Infinity, "y": 0}}}'
    )
    reject = await receive_type(bob, "reject")
    assert reject["client_op_id"] == "inf-1"
    assert reject["error"] == {"code": "INVALID", "message": "x must be a finite number", "field": "node.x"}
    await bob.send_to(text_data='{"type": "presence", "dragging": {"id": "a", "x": 1, "y": NaN}}')
    error = await receive_type(bob, "error")
    assert (error["error"]["code"], error["error"]["field"]) == ("BAD_MESSAGE", "dragging.y")
    await bob.send_to(text_data='{"type": -Infinity}')
    error = await receive_type(bob, "error")
    assert (error["error"]["code"], error["error"]["field"]) == ("BAD_MESSAGE", "type")
    await bob.send_to(text_data="{not json")
    assert (await receive_type(bob, "error"))["error"]["code"] == "BAD_MESSAGE"
    await bob.send_json_to({"type": "op", "op": node_op()})
    assert (await receive_type(bob, "error"))["error"]["field"] == "client_op_id"
    await bob.send_json_to({"type": "dance"})
    assert (await receive_type(bob, "error"))["error"] == {
        "code": "BAD_MESSAGE",
        "message": "unknown message type 'dance'",
        "field": "type",
    }
    await bob.send_json_to({"op": node_op()})  # was "unknown message type None"
    assert (await receive_type(bob, "error"))["error"] == {
        "code": "BAD_MESSAGE",
        "message": "type is required",
        "field": "type",
    }
    await bob.send_json_to({"type": "ping"})
    assert (await receive_type(bob, "pong"))["type"] == "pong"
    assert await database_sync_to_async(Node.objects.count)() == 0
    await bob.disconnect()


async def test_viewer_write_is_forbidden_and_logged(channel_layer):
    canvas, users, tokens = await setup_canvas()
    vic, welcome, _ = await join(canvas.pk, tokens["vic"])
    assert welcome["role"] == "viewer"
    reject = await send_op(vic, node_op("mine"))
    assert reject["error"]["code"] == "FORBIDDEN"
    assert (
        await database_sync_to_async(
            SecurityEvent.objects.filter(user=users["vic"], code="FORBIDDEN", channel="websocket").count
        )()
        == 1
    )
    await vic.disconnect()


async def test_edge_to_another_canvas_is_not_found(channel_layer):
    canvas, users, tokens = await setup_canvas()
    other = await database_sync_to_async(services.canvas_create)(user=users["alice"], name="other")
    foreign = await database_sync_to_async(services.apply_operation)(
        actor=user_actor(users["alice"]), canvas_id=other.pk, op=node_op("elsewhere")
    )
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    local = await send_op(alice, node_op("here"))
    reject = await send_op(
        alice,
        {
            "type": "edge.create",
            "edge": {"source": local["changes"][0]["id"], "target": foreign.changes[0]["id"]},
        },
    )
    assert reject["error"]["code"] == "NOT_FOUND" and reject["error"]["field"] == "edge.target"
    await alice.disconnect()


async def test_node_create_with_another_canvas_id_answers_like_a_reserved_id(channel_layer):
    canvas, users, tokens = await setup_canvas()
    other = await database_sync_to_async(services.canvas_create)(user=users["alice"], name="其他")
    foreign = (
        await database_sync_to_async(services.apply_operation)(
            actor=user_actor(users["alice"]), canvas_id=other.pk, op=node_op("别处")
        )
    ).changes[0]["id"]
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    answers = []
    for used in (foreign, "00000000-0000-0000-0000-000000000000"):
        reject = await send_op(
            bob, {"type": "node.create", "node": {"id": used, "content": "新", "x": 0, "y": 0}}
        )
        assert reject["type"] == "reject", reject
        answers.append({**reject["error"], "message": reject["error"]["message"].replace(used, "<id>")})
    assert answers[0] == answers[1] and answers[0]["code"] == "INVALID" and answers[0]["field"] == "node.id"
    assert (await send_op(bob, node_op("still connected")))["type"] == "ack"
    await bob.disconnect()


async def test_an_op_id_not_in_the_canonical_form_is_invalid(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    created = await send_op(bob, node_op("大写"))
    node_id = created["changes"][0]["id"]
    for spelling, field in (
        (node_id.upper(), "id"),
        ("{" + node_id + "}", "id"),
        ("urn:uuid:" + node_id, "id"),
    ):
        reject = await send_op(bob, {"type": "node.move", "id": spelling, "x": 1, "y": 1})
        assert reject["type"] == "reject", reject
        assert (reject["error"]["code"], reject["error"]["field"]) == ("INVALID", field)
    reject = await send_op(bob, node_op("new", id=str(uuid.uuid4()).upper()))
    assert (reject["error"]["code"], reject["error"]["field"]) == ("INVALID", "node.id")
    await bob.disconnect()


async def test_frame_over_limit_closes_1009(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["bob"])
    await ws.send_to(text_data=json.dumps({"type": "op", "client_op_id": "big", "op": node_op("x" * 70_000)}))
    closed = await ws.receive_output(timeout=2)
    assert closed == {"type": "websocket.close", "code": 1009}
    assert await database_sync_to_async(Node.objects.count)() == 0


async def test_viewer_never_receives_internal_or_secret_content(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    vic, _, _snap = await join(canvas.pk, tokens["vic"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    internal = await send_op(alice, node_op("internal roadmap 2027", sensitivity="internal"))
    secret = await send_op(alice, node_op("secret hunter2", sensitivity="secret"))
    public = await send_op(alice, node_op("public fact"))
    seen = [await receive_type(vic, "change") for _ in range(3)]
    assert [c["revision"] for c in seen] == [internal["revision"], secret["revision"], public["revision"]]
    assert seen[0]["changes"] == [] and seen[1]["changes"] == []
    assert "roadmap" not in json.dumps(seen) and "hunter2" not in json.dumps(seen)
    bob_seen = [await receive_type(bob, "change") for _ in range(3)]
    assert "roadmap" in json.dumps(bob_seen) and "hunter2" not in json.dumps(bob_seen)
    # Raising a public node's sensitivity removes it for the viewer without leaking the new text.
    node_id = public["changes"][0]["id"]
    await send_op(
        alice,
        {
            "type": "node.update",
            "id": node_id,
            "fields": {"sensitivity": "internal", "content": "now private"},
        },
    )
    removal = await receive_type(vic, "change")
    assert removal["changes"] == [
        {"entity": "node", "action": "removed", "id": node_id, "fields": [], "data": None}
    ]
    for ws in (alice, vic, bob):
        await ws.disconnect()


async def test_reconnect_with_old_revision_gets_exactly_the_missed_changes(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    bob, _, snap = await join(canvas.pk, tokens["bob"])
    start = snap["revision"]
    await bob.disconnect()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    acks = [await send_op(alice, node_op(f"missed {i}")) for i in range(3)]
    bob, _welcome, state = await join(canvas.pk, tokens["bob"], last_revision=start)
    assert state["type"] == "changes" and state["from"] == start and state["to"] == acks[-1]["revision"]
    assert [e["revision"] for e in state["events"]] == [a["revision"] for a in acks]
    assert [e["changes"][0]["data"]["content"] for e in state["events"]] == [
        "missed 0",
        "missed 1",
        "missed 2",
    ]
    # A client that notices a gap asks explicitly.
    await bob.send_json_to({"type": "catch_up", "since": start + 1})
    caught = await receive_type(bob, "changes")
    assert [e["revision"] for e in caught["events"]] == [a["revision"] for a in acks[1:]]
    for ws in (alice, bob):
        await ws.disconnect()


async def test_far_behind_or_unknown_revision_gets_a_snapshot(channel_layer, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "CATCH_UP_MAX_REVISIONS": 2}
    canvas, _users, tokens = await setup_canvas()
    alice, _, snap = await join(canvas.pk, tokens["alice"])
    for i in range(3):
        await send_op(alice, node_op(f"n{i}"))
    _, _, state = await join(canvas.pk, tokens["bob"], last_revision=snap["revision"])
    assert state["type"] == "snapshot" and len(state["nodes"]) == 3
    _, _, state = await join(canvas.pk, tokens["bob"], last_revision=10_000)
    assert state["type"] == "snapshot"


async def test_presence_is_relayed_and_replayed_to_newcomers(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    alice, a_welcome, _ = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    await alice.send_json_to(
        {
            "type": "presence",
            "viewport": {"x": 1, "y": 2, "zoom": 1, "width": 800, "height": 600},
            "cursor": {"x": 5, "y": 6},
        }
    )
    seen = await bob.receive_json_from(timeout=2)
    assert (
        seen["type"] == "presence"
        and seen["user"]["username"] == "alice"
        and seen["cursor"] == {"x": 5, "y": 6}
    )
    vic, _, _ = await join(canvas.pk, tokens["vic"])
    replayed = await vic.receive_json_from(timeout=2)
    assert replayed["type"] == "presence" and replayed["connection_id"] == a_welcome["connection_id"]
    await alice.send_json_to({"type": "presence", "viewport": {"x": float("nan")}, "cursor": None})
    assert (await receive_type(alice, "error"))["error"]["code"] == "BAD_MESSAGE"
    await alice.disconnect()
    leave = await bob.receive_json_from(timeout=2)
    while leave["type"] == "presence":  # presence is state, so a repeat is harmless
        leave = await bob.receive_json_from(timeout=2)
    assert leave == {"type": "presence_leave", "connection_id": a_welcome["connection_id"]}
    for ws in (bob, vic):
        await ws.disconnect()


async def test_removed_member_is_disconnected(channel_layer):
    canvas, users, tokens = await setup_canvas()
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    await database_sync_to_async(services.member_remove)(
        actor=user_actor(users["alice"]), canvas_id=canvas.pk, user_id=users["bob"].pk
    )
    output = await bob.receive_output(timeout=2)
    while output["type"] != "websocket.close":
        output = await bob.receive_output(timeout=2)
    assert output["code"] == 4403


async def test_ops_beyond_the_rate_limit_are_refused(channel_layer, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_OPS_PER_SECOND": 3}
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["bob"])
    results = [await send_op(ws, node_op(f"n{i}")) for i in range(6)]
    codes = [r.get("error", {}).get("code") for r in results]
    assert codes.count("RATE_LIMITED") >= 2 and codes[:3] == [None, None, None]
    # The reject says when to come back: at 3 ops/s the next token is at most a third of a second away.
    waits = [
        r["error"]["retry_after_ms"] for r in results if r.get("error", {}).get("code") == "RATE_LIMITED"
    ]
    assert all(isinstance(w, int) and 1 <= w <= 334 for w in waits)
    await asyncio.sleep(1.1)
    assert (await send_op(ws, node_op("after")))["type"] == "ack"
    await ws.disconnect()
