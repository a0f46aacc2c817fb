"""Item 9: a broadcast the channel layer drops (capacity reached) is detected as a revision gap and
healed by catch_up; and, with no later change to reveal it, by the consumer's periodic sync check.

The observer's consumer is kept busy (its `ping` handler blocks) while another member commits eight
ops; the layer holds at most `capacity` = 2 messages for it and silently drops the rest (group_send
never raises ChannelFull). Runs on the in-process layer and on Redis (TEST_REDIS_URL).
"""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from canvasweb.canvases import selectors, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas
from canvasweb.canvases.realtime.consumers import CanvasConsumer
from canvasweb.testing.sync_client import CommunicatorRunner, SyncClient, document_diff

from .conftest import require_env

pytestmark = pytest.mark.django_db(transaction=True)

LAYERS = ["memory", "redis"] if (os.environ.get("TEST_REDIS_URL") or os.environ.get("CI")) else ["memory"]


@pytest.fixture(params=LAYERS)
def tiny_layer(request, settings):
    if request.param == "redis":
        url = require_env("TEST_REDIS_URL")
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [url], "capacity": 2, "prefix": f"bp{uuid.uuid4().hex[:6]}"},
            }
        }
    else:
        settings.CHANNEL_LAYERS = {
            "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 2}}
        }
    from channels.layers import channel_layers

    channel_layers.backends.clear()  # pick up the new settings
    yield request.param
    channel_layers.backends.clear()


async def _setup():
    def run():
        User = get_user_model()
        writer = User.objects.create_user(username=f"bp-w-{uuid.uuid4().hex[:6]}", password="pass-12345")
        observer = User.objects.create_user(username=f"bp-o-{uuid.uuid4().hex[:6]}", password="pass-12345")
        canvas = services.canvas_create(user=writer, name="backpressure")
        services.member_set(actor=user_actor(writer), canvas_id=canvas.pk, user_id=observer.pk, role="editor")
        return writer, observer, canvas.pk, Token.objects.create(user=observer).key

    return await database_sync_to_async(run)()


async def _write(user, canvas_id, n: int) -> None:
    for i in range(n):
        await database_sync_to_async(services.apply_operation)(
            actor=user_actor(user),
            canvas_id=canvas_id,
            op={"type": "node.create", "node": {"content": f"burst {i}", "x": i, "y": 0}},
        )


async def _db_doc(canvas_id):
    def read():
        snap = selectors.canvas_snapshot(canvas=Canvas.objects.get(pk=canvas_id), role="editor")
        return {
            "revision": snap["revision"],
            "nodes": {n["id"]: n for n in snap["nodes"]},
            "edges": {e["id"]: e for e in snap["edges"]},
        }

    return await database_sync_to_async(read)()


async def _observer_with_blocked_consumer(canvas_id, token, monkeypatch, observer):
    from canvasweb.config.asgi import application

    release = asyncio.Event()
    blocked = asyncio.Event()
    original = CanvasConsumer.handle_ping

    async def handle_ping(self, message):
        if self.user.pk == observer.pk and not release.is_set():
            blocked.set()
            await release.wait()  # the consumer is busy: layer messages pile up for it
        await original(self, message)

    monkeypatch.setattr(CanvasConsumer, "handle_ping", handle_ping)
    monkeypatch.setitem(CanvasConsumer.HANDLERS, "ping", handle_ping)
    ws = WebsocketCommunicator(
        application,
        f"/ws/canvases/{canvas_id}/",
        headers=[(b"origin", b"http://localhost"), (b"authorization", f"Token {token}".encode())],
    )
    runner = CommunicatorRunner(SyncClient("observer", lag_grace=60.0), ws)
    assert await runner.connect()
    await runner.pump()
    runner.send({"type": "ping"})
    await runner.pump(0.1)
    await asyncio.wait_for(blocked.wait(), 5)
    return runner, release


async def test_dropped_broadcasts_are_detected_as_a_gap_and_healed_by_catch_up(
    tiny_layer, settings, monkeypatch, record_figures
):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_SYNC_CHECK_SECONDS": 0}  # only the client heals here
    writer, observer, canvas_id, token = await _setup()
    runner, release = await _observer_with_blocked_consumer(canvas_id, token, monkeypatch, observer)
    start = runner.client.revision
    await _write(writer, canvas_id, 8)
    release.set()
    await runner.pump(0.3)
    received = runner.client.stats["in:change"]
    assert received < 8, "the tiny capacity should have dropped some broadcasts"
    # Which broadcasts survive depends on the layer: Redis refuses new messages past capacity, but
    # channels-redis's local receive buffer drops its oldest. When the newest survives, it reveals
    # the gap at once; otherwise the next change does.
    await _write(writer, canvas_id, 1)
    # Pump until healed (a loaded machine may need more than one short pump for the catch-up).
    for _ in range(25):
        await runner.pump(0.2)
        if runner.client.revision == start + 9:
            break
    doc = await _db_doc(canvas_id)
    assert runner.client.revision == doc["revision"] == start + 9
    assert not document_diff(doc, runner.client.document())
    stats = runner.client.stats
    assert stats["gap_events"] >= 1 and stats["catch_ups"] >= 1
    record_figures(
        f"forced_drop_{tiny_layer}",
        {
            "capacity": 2,
            "committed": 9,
            "delivered_live": received + 1,
            "dropped": 9 - received - 1,
            "gaps_detected": stats["gap_events"],
            "catch_ups": stats["catch_ups"],
            "healed": True,
        },
    )
    await runner.close()


async def test_dropped_last_broadcasts_are_healed_by_the_sync_check(tiny_layer, settings, monkeypatch):
    settings.CANVASWEB = {**settings.CANVASWEB, "WS_SYNC_CHECK_SECONDS": 0.3}
    writer, observer, canvas_id, token = await _setup()
    runner, release = await _observer_with_blocked_consumer(canvas_id, token, monkeypatch, observer)
    start = runner.client.revision
    await _write(writer, canvas_id, 8)
    release.set()
    # No further change: only the server's periodic check can reveal what was dropped.
    for _ in range(20):
        await runner.pump(0.2)
        if runner.client.revision == start + 8:
            break
    doc = await _db_doc(canvas_id)
    assert runner.client.revision == doc["revision"] == start + 8
    assert not document_diff(doc, runner.client.document())
    await runner.close()
