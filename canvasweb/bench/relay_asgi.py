"""The floor for `bench_sync --floor`: a bare Channels relay with the app's socket shape, nothing else.

No authentication, no database, no validation: `hello` gets a `welcome` and an
empty `snapshot`; each `op` is sent to the canvas group on the channel layer
(one `group_send`, as the app does per committed batch) and acknowledged to its
sender; every socket in the group forwards it as a `change` frame. Run under
Daphne with the same Redis channel layer and the same clients as the app, it
shows what the machine, Daphne and channels-redis cost without the app.
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


class RelayConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        self.group = f"relay-{self.scope['url_route']['kwargs']['canvas_id']}"
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
            await self.channel_layer.group_send(self.group, {"type": "relay.change", "event": event})
            await self.send(
                text_data=json.dumps(
                    {
                        "type": "ack",
                        "client_op_id": message.get("client_op_id"),
                        "revision": revision,
                        "duplicate": False,
                        "changes": [],
                    }
                )
            )

    async def relay_change(self, message: dict) -> None:
        await self.send(text_data=json.dumps(message["event"], ensure_ascii=False))


application = ProtocolTypeRouter(
    {
        "websocket": URLRouter([path("ws/canvases/<int:canvas_id>/", RelayConsumer.as_asgi())]),
    }
)
