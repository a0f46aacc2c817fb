"""An edit on one server process reaches a client on the other; reconnects catch up exactly."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
import websockets

from canvasweb.testing.fixtures import setup_canvas_in

pytestmark = [pytest.mark.crossprocess, pytest.mark.redis, pytest.mark.postgres]


async def connect(cluster, index, canvas_id, token, last_revision=None):
    ws = await websockets.connect(
        cluster.ws_url(index, canvas_id),
        origin="http://127.0.0.1",
        additional_headers={"Authorization": f"Token {token}"},
    )
    await ws.send(json.dumps({"type": "hello", "last_revision": last_revision}))
    welcome = json.loads(await ws.recv())
    state = json.loads(await ws.recv())
    assert welcome["type"] == "welcome", welcome
    return ws, state


async def next_of(ws, wanted, timeout=2.0, revision=None):
    """The next message of type `wanted` (and revision, if given); senders also get their own changes."""

    async def loop():
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == wanted and (revision is None or message.get("revision") == revision):
                return message

    return await asyncio.wait_for(loop(), timeout)


async def op(ws, body):
    client_op_id = uuid.uuid4().hex
    await ws.send(json.dumps({"type": "op", "client_op_id": client_op_id, "op": body}))
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if message.get("client_op_id") == client_op_id and message["type"] in ("ack", "reject"):
            assert message["type"] == "ack", message
            return message


async def test_edit_on_one_process_arrives_on_the_other(cluster):
    data = setup_canvas_in(cluster, users=["alice", "bob"], owner="alice", members={"bob": "editor"})
    canvas_id, tokens = data["canvas_id"], data["tokens"]
    a, _ = await connect(cluster, 0, canvas_id, tokens["alice"])
    b, _ = await connect(cluster, 1, canvas_id, tokens["bob"])
    ack = await op(a, {"type": "node.create", "node": {"content": "跨进程 fan-out", "x": 1, "y": 2}})
    seen = await next_of(b, "change", revision=ack["revision"])
    assert seen["changes"][0]["data"]["content"] == "跨进程 fan-out"
    node_id = ack["changes"][0]["id"]
    moved = await op(b, {"type": "node.move", "id": node_id, "x": 300, "y": 400})
    seen = await next_of(a, "change", revision=moved["revision"])
    assert seen["changes"][0]["data"]["x"] == 300
    await a.close()
    await b.close()


async def test_reconnect_with_old_revision_gets_exactly_the_missed_changes(cluster):
    data = setup_canvas_in(cluster, users=["carol", "dave"], owner="carol", members={"dave": "editor"})
    canvas_id, tokens = data["canvas_id"], data["tokens"]
    b, state = await connect(cluster, 1, canvas_id, tokens["dave"])
    last = state["revision"]
    await b.close()
    a, _ = await connect(cluster, 0, canvas_id, tokens["carol"])
    acks = [
        await op(a, {"type": "node.create", "node": {"content": f"while away {i}", "x": i, "y": 0}})
        for i in range(4)
    ]
    b, state = await connect(cluster, 1, canvas_id, tokens["dave"], last_revision=last)
    assert state["type"] == "changes"
    assert [e["revision"] for e in state["events"]] == [ack["revision"] for ack in acks]
    assert [e["changes"][0]["data"]["content"] for e in state["events"]] == [
        f"while away {i}" for i in range(4)
    ]
    await a.close()
    await b.close()
