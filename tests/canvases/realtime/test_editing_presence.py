"""Over the socket: a stale content edit gets a CONFLICT reject; presence carries `editing` and `dragging`."""

from __future__ import annotations

import uuid

import pytest

from tests.canvases.realtime.test_consumer import join, receive_type, send_op, setup_canvas

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORT = {"x": 0, "y": 0, "zoom": 1, "width": 800, "height": 600}


async def test_stale_content_edit_is_rejected_with_the_current_node():
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    created = await send_op(
        alice, {"type": "node.create", "node": {"content": "发布日期 3 月 1 日", "x": 0, "y": 0}}
    )
    node_id = created["changes"][0]["id"]
    ack = await send_op(
        alice,
        {
            "type": "node.update",
            "id": node_id,
            "base_version": 1,
            "fields": {"content": "发布日期 3 月 8 日"},
        },
    )
    assert ack["type"] == "ack"
    reject = await send_op(
        bob,
        {
            "type": "node.update",
            "id": node_id,
            "base_version": 1,
            "fields": {"content": "发布日期 3 月 15 日"},
        },
    )
    assert reject["type"] == "reject"
    error = reject["error"]
    assert error["code"] == "CONFLICT" and error["field"] == "fields.content"
    assert error["current"]["content"] == "发布日期 3 月 8 日" and error["current"]["version"] == 2
    # Position is not guarded: a move on the stale base goes through.
    moved = await send_op(bob, {"type": "node.update", "id": node_id, "base_version": 1, "fields": {"x": 40}})
    assert moved["type"] == "ack"
    for ws in (alice, bob):
        await ws.disconnect()


async def test_presence_relays_editing_and_dragging():
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    node_id = str(uuid.uuid4())
    await alice.send_json_to(
        {
            "type": "presence",
            "viewport": VIEWPORT,
            "cursor": None,
            "editing": node_id,
            "dragging": {"id": node_id, "x": 12.5, "y": -3},
        }
    )
    seen = await receive_type(bob, "presence")
    assert seen["editing"] == node_id and seen["dragging"] == {"id": node_id, "x": 12.5, "y": -3.0}
    # Old clients that send neither field keep working: both come out as null.
    await alice.send_json_to({"type": "presence", "viewport": VIEWPORT, "cursor": None})
    while True:
        seen = await receive_type(bob, "presence")
        if seen["editing"] is None:
            break
    assert seen["dragging"] is None
    for ws in (alice, bob):
        await ws.disconnect()


@pytest.mark.parametrize(
    "extra, field",
    [
        ({"editing": "n1"}, "editing"),
        ({"editing": 5}, "editing"),
        # Only the lowercase hyphenated form is a node id (as in ops and paths).
        ({"editing": str(uuid.uuid4()).upper()}, "editing"),
        ({"dragging": {"id": "{" + str(uuid.uuid4()) + "}", "x": 1, "y": 2}}, "dragging.id"),
        ({"dragging": {"id": None, "x": 1, "y": 2}}, "dragging.id"),
        ({"dragging": {"id": str(uuid.uuid4()), "x": 5e9, "y": 2}}, "dragging.x"),
        ({"dragging": "somewhere"}, "dragging"),
        ({"dragging": [1, 2]}, "dragging"),
        ({"dragging": {"id": str(uuid.uuid4()), "x": 1, "y": 2, "z": 3}}, "dragging.z"),
        ({"viewport": {**VIEWPORT, "rotation": 90}}, "viewport.rotation"),
        ({"viewport": {**VIEWPORT, "zoom": 0}}, "viewport.zoom"),
        ({"viewport": {**VIEWPORT, "width": -800}}, "viewport.width"),
        ({"viewport": {"x": 0, "y": 0, "zoom": 1, "width": 800}}, "viewport.height"),
        ({"cursor": {"x": 1, "y": 2, "pressure": 0.5}}, "cursor.pressure"),
        ({"cursor": {"x": -4, "y": "NaN"}}, "cursor.y"),
    ],
)
async def test_bad_presence_activity_is_a_bad_message(extra, field):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])
    bob, _, _ = await join(canvas.pk, tokens["bob"])
    await alice.send_json_to({"type": "presence", "viewport": VIEWPORT, "cursor": None, **extra})
    error = (await receive_type(alice, "error"))["error"]
    assert error["code"] == "BAD_MESSAGE" and error["field"] == field
    assert field in error["message"]
    # Not relayed, and the socket goes on: the next good frame is relayed.
    await alice.send_json_to({"type": "presence", "viewport": VIEWPORT, "cursor": {"x": -4, "y": 0.5}})
    seen = await receive_type(bob, "presence")
    assert seen["cursor"] == {"x": -4.0, "y": 0.5}
    for ws in (alice, bob):
        await ws.disconnect()
