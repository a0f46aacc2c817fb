"""The floor for `bench_sync --floor`: a bare Channels relay with the app's socket shape, nothing else.

No authentication, no database, no validation: `hello` gets a `welcome` and an
empty `snapshot`; each `op` is sent to the canvas group on the channel layer
(one `group_send`, as the app does per committed batch) and acknowledged to its
sender; every socket in the group forwards it as a `change` frame. Run under
Daphne with the same Redis channel layer and the same clients as the app, it
shows what the machine, Daphne and channels-redis cost without the app.

Two kinds (`bench_sync --floor` runs both, one after the other):

* the *lossy* relay (the default, and the only floor before stop 41): the ack goes out at once, the
  layer's usual capacity (200 messages per process in Redis and per socket in the process) drops
  what its sockets have not taken in time, so it can acknowledge ops faster than it delivers them;
* the *lossless* relay (`CANVASWEB_RELAY_LOSSLESS=1`, run with a capacity that never fills): an op's
  ack is sent by the sender's own socket when the op's group message reaches it, behind every
  change frame queued for that socket before it. A closed-loop client then waits for the relay to
  deliver, and nothing is dropped: the same "0 missed deliveries" rule the app is held to.
"""

from __future__ import annotations

import itertools
import json
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canvasweb.config.settings")

import django

django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.urls import path

_revisions = itertools.count(1)


def lossless() -> bool:
    return os.environ.get("CANVASWEB_RELAY_LOSSLESS", "") not in ("", "0", "false")


class RelayConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"relay-{self.scope['url_route']['kwargs']['canvas_id']}"
        self.lossless = lossless()
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        message = json.loads(text_data or "{}")
        kind = message.get("type")
        if kind == "hello":
            await self.send(text_data=json.dumps({"type": "welcome", "protocol": 1, "role": "editor"}))
            await self.send(
                text_data=json.dumps({"type": "snapshot", "revision": 0, "nodes": [], "edges": []})
            )
        elif kind == "op":
            revision = next(_revisions)
            event = {
                "type": "change",
                "revision": revision,
                "client_op_id": message.get("client_op_id"),
                "changes": [{"entity": "node", "op": message.get("op")}],
            }
            if self.lossless:
                # The ack rides in the group message and is sent by this socket when its copy arrives.
                await self.channel_layer.group_send(
                    self.group, {"type": "relay.change", "event": event, "sender": self.channel_name}
                )
                return
            await self.channel_layer.group_send(self.group, {"type": "relay.change", "event": event})
            await self.send(text_data=_ack(event))

    async def relay_change(self, message: dict) -> None:
        if message.get("sender") == self.channel_name:
            await self.send(text_data=_ack(message["event"]))
            return
        await self.send(text_data=json.dumps(message["event"], ensure_ascii=False))


def _ack(event: dict) -> str:
    return json.dumps(
        {
            "type": "ack",
            "client_op_id": event["client_op_id"],
            "revision": event["revision"],
            "duplicate": False,
            "changes": [],
        }
    )


application = ProtocolTypeRouter(
    {
        "websocket": URLRouter([path("ws/canvases/<int:canvas_id>/", RelayConsumer.as_asgi())]),
    }
)
