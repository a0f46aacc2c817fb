"""Frames in protocol order: a change that overtakes an earlier revision is held for it, so the socket
sends revisions in order (realtime/sync.py); one whose predecessor never comes is sent after the hold,
gap and all; presence never comes before the answer to hello."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.realtime.groups import canvas_group

from .test_consumer import channel_layer, communicator, join, node_op, receive_type, setup_canvas

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["channel_layer"]  # the fixture, imported for its parametrization


@database_sync_to_async
def committed_unbroadcast(canvas, user, count):
    """`count` node creates committed one by one without a broadcast: their change events."""
    events = []
    for i in range(count):
        outcome = services.apply_operations(
            canvas_id=canvas.pk,
            requests=[services.OpRequest(actor=user_actor(user), op=node_op(f"held note {i}"))],
        )
        events += outcome.events
    return events


async def deliver(canvas, *events):
    await get_channel_layer().group_send(
        canvas_group(canvas.pk), {"type": "canvas.changes", "events": list(events), "batch": None}
    )


async def test_overtaking_revisions_reach_the_client_in_order(channel_layer):
    canvas, users, tokens = await setup_canvas()
    ws, _, state = await join(canvas.pk, tokens["bob"])
    first, second, third = await committed_unbroadcast(canvas, users["alice"], 3)
    assert first["revision"] == state["revision"] + 1
    await deliver(canvas, third)
    await deliver(canvas, second)
    await deliver(canvas, first)
    got = [(await receive_type(ws, "change"))["revision"] for _ in range(3)]
    assert got == [first["revision"], second["revision"], third["revision"]]
    await ws.disconnect()


async def test_a_revision_whose_predecessor_is_lost_is_sent_after_the_hold(channel_layer, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_REORDER_HOLD_MS": 20}
    canvas, users, tokens = await setup_canvas()
    ws, _, state = await join(canvas.pk, tokens["bob"])
    _lost, later = await committed_unbroadcast(canvas, users["alice"], 2)
    await deliver(canvas, later)
    change = await receive_type(ws, "change")
    assert change["revision"] == later["revision"] == state["revision"] + 2  # the client sees the gap
    await ws.disconnect()


async def test_presence_that_arrives_before_the_hello_is_answered_never_precedes_the_welcome(channel_layer):
    canvas, _users, tokens = await setup_canvas()
    ws = communicator(canvas.pk, tokens["bob"])
    connected, _ = await ws.connect()
    assert connected
    # someone else leaves while this socket is in its group but has not said hello yet
    await get_channel_layer().group_send(
        canvas_group(canvas.pk), {"type": "presence.leave", "connection_id": "gone1234"}
    )
    await ws.send_json_to({"type": "hello", "last_revision": None})
    first = await ws.receive_json_from()
    second = await ws.receive_json_from()
    assert first["type"] == "welcome" and second["type"] == "snapshot", (first, second)
    await ws.disconnect()
