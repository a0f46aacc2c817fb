"""One group member per canvas per process; the relay fans each message out to the sockets here
(canvases/realtime/local_fanout.py). Real ASGI stack; in-process layer, and Redis when TEST_REDIS_URL is set.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid

import pytest
from channels.layers import InMemoryChannelLayer, channel_layers, get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import re_path

from canvasweb.canvases.realtime import local_fanout
from canvasweb.canvases.realtime.auth import SessionOrTokenAuthMiddleware
from canvasweb.canvases.realtime.broadcast import broadcast_change
from canvasweb.canvases.realtime.consumers import CanvasConsumer
from canvasweb.canvases.realtime.groups import canvas_group
from canvasweb.canvases.realtime.local_fanout import SocketInbox
from canvasweb.canvases.realtime.sync import SyncHandlers

from .test_consumer import join, node_op, receive_type, send_op, setup_canvas

pytestmark = pytest.mark.django_db(transaction=True)

LAYERS = ["memory"] + (["redis"] if os.environ.get("TEST_REDIS_URL") else [])


class SharedMemoryLayer(InMemoryChannelLayer):
    """In-process layers that share their channels and groups: each alias stands for a server process."""

    shared_channels: dict = {}
    shared_groups: dict = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.channels = SharedMemoryLayer.shared_channels
        self.groups = SharedMemoryLayer.shared_groups


@pytest.fixture(params=LAYERS)
def two_processes(request, settings):
    """Layers "default" and "other": two processes' views of one channel layer."""
    if request.param == "redis":
        config = {"hosts": [os.environ["TEST_REDIS_URL"]], "prefix": f"lf{uuid.uuid4().hex[:6]}"}
        backend = "canvasweb.canvases.realtime.redis_layer.OriginSkippingRedisChannelLayer"  # as deployed
        layer = {"BACKEND": backend, "CONFIG": config}
    else:
        SharedMemoryLayer.shared_channels, SharedMemoryLayer.shared_groups = {}, {}
        layer = {"BACKEND": f"{__name__}.SharedMemoryLayer"}
    settings.CHANNEL_LAYERS = {"default": layer, "other": layer}
    channel_layers.backends.clear()
    yield request.param
    channel_layers.backends.clear()


class OtherProcessConsumer(CanvasConsumer):
    channel_layer_alias = "other"


other_process = SessionOrTokenAuthMiddleware(
    URLRouter([re_path(r"^ws/canvases/(?P<canvas_id>[0-9]+)/$", OtherProcessConsumer.as_asgi())])
)


async def join_other(canvas_id, token):
    ws = WebsocketCommunicator(
        other_process, f"/ws/canvases/{canvas_id}/", headers=[(b"authorization", f"Token {token}".encode())]
    )
    assert (await ws.connect())[0]
    await ws.send_json_to({"type": "hello", "last_revision": None})
    assert (await ws.receive_json_from())["type"] == "welcome"
    await ws.receive_json_from()  # the snapshot
    return ws


async def join_all(canvas_id, tokens, *names):
    return [(await join(canvas_id, tokens[name]))[0] for name in names]


async def group_members(layer, group: str) -> list[str]:
    if hasattr(layer, "groups"):  # in-process
        return list(layer.groups.get(group, {}))
    connection = layer.connection(layer.consistent_hash(group))
    return [m.decode() for m in await connection.zrange(layer._group_key(group), 0, -1)]


def count_layer_events(monkeypatch) -> dict[str, int]:
    """How many `canvas.changes` messages each socket handled, by connection id."""
    handled: dict[str, int] = {}
    original = SyncHandlers.canvas_changes

    async def canvas_changes(self, message):
        handled[self.connection_id] = handled.get(self.connection_id, 0) + 1
        await original(self, message)

    monkeypatch.setattr(SyncHandlers, "canvas_changes", canvas_changes)
    return handled


async def test_sockets_of_one_process_share_one_group_member(two_processes, monkeypatch):
    canvas, _users, tokens = await setup_canvas()
    alice, bob = await join_all(canvas.pk, tokens, "alice", "bob")
    layer, group = get_channel_layer(), canvas_group(canvas.pk)
    relay = local_fanout.local_relay(layer, canvas.pk)
    assert relay is not None and len(relay.inboxes) == 2
    assert await group_members(layer, group) == [relay.channel]  # one member, not one per socket
    # One group message (a write outside the sockets, e.g. REST) reaches both sockets.
    sent = []
    original_send = type(layer).group_send

    async def group_send(self, group_name, message):
        sent.append(message["type"])
        await original_send(self, group_name, message)

    monkeypatch.setattr(type(layer), "group_send", group_send)
    event = {"type": "change", "revision": 99, "client_op_id": None, "changes": []}
    await asyncio.get_running_loop().run_in_executor(
        None, lambda: broadcast_change(canvas_id=canvas.pk, event=event)
    )
    assert sent == ["canvas.change"]
    for ws in (alice, bob):
        assert (await receive_type(ws, "change"))["revision"] == 99
    for ws in (alice, bob):
        await ws.disconnect()


async def test_a_batch_committed_here_is_handled_once_per_socket(two_processes, monkeypatch):
    handled = count_layer_events(monkeypatch)
    canvas, _users, tokens = await setup_canvas()
    alice, welcome_a, _ = await join(canvas.pk, tokens["alice"])
    bob, welcome_b, _ = await join(canvas.pk, tokens["bob"])
    ack = await send_op(alice, node_op("一次"))
    assert (await receive_type(alice, "change"))["revision"] == ack["revision"]  # the ack came first
    assert (await receive_type(bob, "change"))["revision"] == ack["revision"]
    await asyncio.sleep(0.3)  # time for the layer's copy to come back to the relay
    # Delivered straight from the committer; the layer's copy (origin = this relay) is skipped.
    assert handled == {welcome_a["connection_id"]: 1, welcome_b["connection_id"]: 1}
    for ws in (alice, bob):
        await ws.disconnect()


async def test_a_viewer_in_the_same_process_gets_the_filtered_frame(two_processes):
    canvas, _users, tokens = await setup_canvas()
    alice, vic, bob = await join_all(canvas.pk, tokens, "alice", "vic", "bob")
    internal = await send_op(alice, node_op("internal roadmap 2027", sensitivity="internal"))
    seen_by_vic = await receive_type(vic, "change")
    seen_by_bob = await receive_type(bob, "change")
    assert seen_by_vic["revision"] == seen_by_bob["revision"] == internal["revision"]
    assert seen_by_vic["changes"] == [] and "roadmap" not in json.dumps(seen_by_vic)
    assert "roadmap" in json.dumps(seen_by_bob)
    for ws in (alice, vic, bob):
        await ws.disconnect()


async def test_the_last_socket_out_takes_the_relay_out_of_the_group(two_processes):
    canvas, _users, tokens = await setup_canvas()
    alice, bob = await join_all(canvas.pk, tokens, "alice", "bob")
    layer, group = get_channel_layer(), canvas_group(canvas.pk)
    relay = local_fanout.local_relay(layer, canvas.pk)
    assert relay is not None
    await alice.disconnect()
    assert len(relay.inboxes) == 1 and await group_members(layer, group) == [relay.channel]
    await bob.disconnect()
    assert not relay.inboxes and relay.receiver is None
    assert local_fanout.local_relay(layer, canvas.pk) is None
    assert not any(key[2] == canvas.pk for key in local_fanout._RELAYS)
    assert await group_members(layer, group) == []
    # A socket that comes later gets a new relay and a new membership.
    carol, _, _ = await join(canvas.pk, tokens["bob"])
    fresh = local_fanout.local_relay(layer, canvas.pk)
    assert fresh is not None and fresh is not relay
    assert await group_members(layer, group) == [fresh.channel]
    await carol.disconnect()


async def test_each_process_delivers_through_its_own_member(two_processes):
    canvas, _users, tokens = await setup_canvas()
    alice, _, _ = await join(canvas.pk, tokens["alice"])  # process "default"
    bob = await join_other(canvas.pk, tokens["bob"])  # process "other"
    vic = await join_other(canvas.pk, tokens["vic"])
    here, there = get_channel_layer(), get_channel_layer("other")
    relay_here = local_fanout.local_relay(here, canvas.pk)
    relay_there = local_fanout.local_relay(there, canvas.pk)
    assert relay_here is not None and relay_there is not None and relay_here is not relay_there
    members = await group_members(here, canvas_group(canvas.pk))
    assert sorted(members) == sorted([relay_here.channel, relay_there.channel])
    # Committed here, it reaches the other process through the layer, filtered per role there.
    ack = await send_op(alice, node_op("internal roadmap", sensitivity="internal"))
    seen_by_bob = await receive_type(bob, "change", timeout=5)
    seen_by_vic = await receive_type(vic, "change", timeout=5)
    assert seen_by_bob["revision"] == seen_by_vic["revision"] == ack["revision"]
    assert "roadmap" in json.dumps(seen_by_bob) and seen_by_vic["changes"] == []
    assert (await receive_type(alice, "change"))["revision"] == ack["revision"]  # her own, from here
    # And the other way round.
    assert relay_here.hands_over_directly() and not relay_there.hands_over_directly()  # saw alice's
    ack = await send_op(bob, node_op("from the other process"))
    assert (await receive_type(alice, "change", timeout=5))["revision"] == ack["revision"]
    assert (await receive_type(bob, "change", timeout=5))["revision"] == ack["revision"]  # his own
    # (One event loop holds both "processes" here, so that op was committed by this loop's committer.)
    # Another process commits on the canvas: for a while a batch from here takes the layer's way, in
    # line with theirs (handed over at once it could overtake their earlier revisions).
    past = {"type": "change", "revision": 1, "client_op_id": None, "changes": []}
    batch = {"type": "canvas.changes", "events": [past], "batch": "elsewhere", "sender": relay_there.channel}
    await there.group_send(canvas_group(canvas.pk), batch)
    for _ in range(100):
        if not relay_here.hands_over_directly():
            break
        await asyncio.sleep(0.02)
    assert not relay_here.hands_over_directly()
    ack = await send_op(alice, node_op("in line"))
    assert (await receive_type(alice, "change", timeout=5))["revision"] == ack["revision"]
    assert (await receive_type(bob, "change", timeout=5))["revision"] == ack["revision"]
    relay_here.other_commits_at -= local_fanout.MIXED_COMMITS_SECONDS
    assert relay_here.hands_over_directly()
    for ws in (alice, bob, vic):
        await ws.disconnect()


async def test_with_the_relay_off_each_socket_is_a_member(two_processes, settings):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_LOCAL_FANOUT": False}
    canvas, _users, tokens = await setup_canvas()
    alice, bob = await join_all(canvas.pk, tokens, "alice", "bob")
    layer = get_channel_layer()
    assert local_fanout.local_relay(layer, canvas.pk) is None
    assert len(await group_members(layer, canvas_group(canvas.pk))) == 2
    ack = await send_op(alice, node_op("hello"))
    assert (await receive_type(bob, "change"))["revision"] == ack["revision"]
    for ws in (alice, bob):
        await ws.disconnect()


async def test_an_inbox_keeps_order_and_drops_the_newest_when_its_socket_is_stuck():
    release = asyncio.Event()
    handled: list[int] = []
    errors: list[BaseException] = []

    async def handle(message):
        await release.wait()
        handled.append(message["n"])

    inbox = SocketInbox(handle, capacity=3, on_error=errors.append)
    inbox.put({"n": 0})
    await asyncio.sleep(0)  # the first is being handled (and stuck); three more fit in the inbox
    for n in range(1, 7):
        inbox.put({"n": n})
    release.set()
    for _ in range(10):
        await asyncio.sleep(0)
    # As the Redis layer does for a stuck consumer: the oldest are kept, the newest dropped; the
    # socket sees the gap at the next change and catches up.
    assert handled == [0, 1, 2, 3] and inbox.dropped == 3 and not errors
    inbox.close()
    inbox.put({"n": 7})
    await asyncio.sleep(0)
    assert handled == [0, 1, 2, 3]


async def test_a_failing_handler_is_reported_and_the_inbox_stops():
    errors: list[BaseException] = []
    handled: list[int] = []

    async def handle(message):
        if message["n"] == 1:
            raise ValueError("boom")
        handled.append(message["n"])

    inbox = SocketInbox(handle, capacity=10, on_error=errors.append)
    for n in range(3):
        inbox.put({"n": n})
    for _ in range(5):
        await asyncio.sleep(0)
    assert handled == [0] and [str(e) for e in errors] == ["boom"]


async def test_redis_does_not_bring_a_batch_back_to_the_process_that_committed_it(settings, monkeypatch):
    url = os.environ.get("TEST_REDIS_URL")
    if not url:
        pytest.skip("needs TEST_REDIS_URL")
    backend = "canvasweb.canvases.realtime.redis_layer.OriginSkippingRedisChannelLayer"
    config = {"hosts": [url], "prefix": f"lf{uuid.uuid4().hex[:6]}"}
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": backend, "CONFIG": config}}
    channel_layers.backends.clear()
    try:
        canvas, _users, tokens = await setup_canvas()
        alice, bob = await join_all(canvas.pk, tokens, "alice", "bob")
        layer = get_channel_layer()
        relay = local_fanout.local_relay(layer, canvas.pk)
        assert relay is not None
        received: list[dict] = []
        original_receive = type(layer).receive

        async def receive(self, channel):
            message = await original_receive(self, channel)
            if channel == relay.channel:
                received.append(message)
            return message

        monkeypatch.setattr(type(layer), "receive", receive)
        ack = await send_op(alice, node_op("不回流"))
        assert (await receive_type(bob, "change"))["revision"] == ack["revision"]
        await asyncio.sleep(0.3)
        assert [m for m in received if m.get("origin") == relay.channel] == []
        # A message from elsewhere (no origin) still comes through the relay.
        event = {"type": "change", "revision": 99, "client_op_id": None, "changes": []}
        await layer.group_send(canvas_group(canvas.pk), {"type": "canvas.change", "event": event})
        assert (await receive_type(bob, "change"))["revision"] == 99
        for ws in (alice, bob):
            await ws.disconnect()
    finally:
        channel_layers.backends.clear()


async def test_the_author_is_acked_before_the_fan_out_of_its_batch(two_processes, monkeypatch):
    sent: list[tuple[str, str]] = []
    original_send = CanvasConsumer.send

    async def send(self, text_data=None, bytes_data=None, close=False):
        sent.append((self.user.username, json.loads(text_data)["type"] if text_data else "?"))
        await original_send(self, text_data=text_data, bytes_data=bytes_data, close=close)

    monkeypatch.setattr(CanvasConsumer, "send", send)
    canvas, _users, tokens = await setup_canvas()
    alice, bob, vic = await join_all(canvas.pk, tokens, "alice", "bob", "vic")
    sent.clear()
    ack = await send_op(alice, node_op("先回执"))
    for ws in (bob, vic):
        assert (await receive_type(ws, "change"))["revision"] == ack["revision"]
    frames = [entry for entry in sent if entry[1] in ("ack", "change")]
    # The ack goes out first; the change frames of the batch (the author's too) follow.
    assert frames[0] == ("alice", "ack") and sorted(frames[1:]) == [
        ("alice", "change"),
        ("bob", "change"),
        ("vic", "change"),
    ]
    for ws in (alice, bob, vic):
        await ws.disconnect()
