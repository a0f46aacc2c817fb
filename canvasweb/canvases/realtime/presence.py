"""Presence on the canvas socket: cursors, viewports, who edits or drags which node.

Presence is a hint, never stored: frames are checked for shape (not looked up), throttled to
PRESENCE_MIN_INTERVAL_MS per socket and relayed through the channel layer; a layer failure
only loses presence.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, NoReturn

from canvasweb.common.errors import BadMessage
from canvasweb.common.ids import canonical_uuid
from canvasweb.common.json_safety import finite_float

from .socket_base import CanvasSocket, config_int

logger = logging.getLogger(__name__)

PRESENCE_COLORS = (
    "#e76f51",
    "#2a9d8f",
    "#e9c46a",
    "#264653",
    "#f4a261",
    "#6d597a",
    "#3a86ff",
    "#8338ec",
    "#ff006e",
    "#06d6a0",
)


VIEWPORT_SIZES = frozenset({"zoom", "width", "height"})


class PresenceHandlers(CanvasSocket):
    """`presence` frames from the client and the presence events from the layer."""

    async def handle_presence(self, message: dict[str, Any]) -> None:
        viewport = clean_point(
            message.get("viewport"),
            ("x", "y", "zoom", "width", "height"),
            "viewport",
            positive=VIEWPORT_SIZES,
        )
        cursor = message.get("cursor")
        cursor = None if cursor is None else clean_point(cursor, ("x", "y"), "cursor")
        editing = clean_node_id(message.get("editing"), "editing")
        dragging = message.get("dragging")
        if dragging is not None and not isinstance(dragging, dict):
            raise BadMessage("dragging must be an object with id, x, y, or null", field="dragging")
        if dragging is not None:
            dragging = {
                "id": clean_node_id(dragging.get("id"), "dragging.id", required=True),
                **clean_point(dragging, ("x", "y"), "dragging", extra=("id",)),
            }
        self.presence = {
            "type": "presence",
            "connection_id": self.connection_id,
            "user": {"id": self.user.pk, "username": self.user.get_username()},
            "color": PRESENCE_COLORS[self.user.pk % len(PRESENCE_COLORS)],
            "viewport": viewport,
            "cursor": cursor,
            "editing": editing,
            "dragging": dragging,
        }
        interval = config_int("PRESENCE_MIN_INTERVAL_MS") / 1000
        wait = self.last_presence_sent + interval - time.monotonic()
        if wait <= 0:
            await self._publish_presence()
        elif self.presence_flush is None:
            # Throttled, not dropped: the latest position goes out when the interval ends.
            loop = asyncio.get_running_loop()
            self.presence_flush = loop.call_later(
                wait, lambda: asyncio.ensure_future(self._publish_presence())
            )

    # Presence reaches a socket from the moment it joins its group, before its hello is answered; the
    # protocol's first frame is `welcome`, and the presence of everyone there follows it (presence.query).
    async def presence_update(self, message: dict[str, Any]) -> None:
        if self.welcomed and message["payload"]["connection_id"] != self.connection_id:
            await self.send_json(message["payload"])

    async def presence_leave(self, message: dict[str, Any]) -> None:
        if self.welcomed and message["connection_id"] != self.connection_id:
            await self.send_json({"type": "presence_leave", "connection_id": message["connection_id"]})

    async def presence_query(self, message: dict[str, Any]) -> None:
        if message["connection_id"] != self.connection_id and self.presence is not None:
            try:
                await self.channel_layer.send(
                    message["reply_to"], {"type": "presence.state", "payload": self.presence}
                )
            except Exception:  # ChannelFull or the layer down: presence is a nicety
                logger.warning("presence reply failed on canvas %s", self.canvas_id, exc_info=True)

    async def presence_state(self, message: dict[str, Any]) -> None:
        if self.welcomed:
            await self.send_json(message["payload"])

    async def _publish_presence(self) -> None:
        self.presence_flush = None
        self.last_presence_sent = time.monotonic()
        if self.presence is not None:
            try:
                await self.channel_layer.group_send(
                    self.group, {"type": "presence.update", "payload": self.presence}
                )
            except Exception:
                logger.warning("presence broadcast failed", exc_info=True)

    async def _leave_presence(self) -> None:
        """Tell the others this connection is gone (part of leaving the group)."""
        await self.channel_layer.group_send(
            self.group, {"type": "presence.leave", "connection_id": self.connection_id}
        )


def clean_node_id(value: Any, name: str, *, required: bool = False) -> str | None:
    """A node id in a presence frame: a UUID string (or null). Not looked up: presence is a hint."""
    if value is None and not required:
        return None
    parsed = canonical_uuid(value)
    return str(parsed) if parsed is not None else _bad_node_id(name)


def _bad_node_id(name: str) -> NoReturn:
    raise BadMessage(
        f"{name} must be a node id (a UUID string){'' if name == 'dragging.id' else ' or null'}", field=name
    )


def clean_point(
    value: Any,
    keys: tuple[str, ...],
    name: str,
    *,
    positive: frozenset[str] = frozenset(),
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """`value`'s numbers under `keys` (all required). A key outside `keys` + `extra` is refused, as in
    every other viewport the server reads (chat.send, context.preview, REST): a typo must not pass
    silently. The `positive` ones (zoom and size) must be > 0: others divide by them to draw it."""
    if not isinstance(value, dict):
        raise BadMessage(f"{name} must be an object with {', '.join(keys)}", field=name)
    unknown = sorted(str(key) for key in value.keys() - {*keys, *extra})
    if unknown:
        raise BadMessage(f"unknown field {name}.{unknown[0]}", field=f"{name}.{unknown[0]}")
    clean = {}
    for key in keys:
        number = finite_float(value.get(key))
        if number is None or abs(number) > 1e7:
            raise BadMessage(f"{name}.{key} must be a finite number", field=f"{name}.{key}")
        if key in positive and number <= 0:
            raise BadMessage(f"{name}.{key} must be a positive number", field=f"{name}.{key}")
        clean[key] = number
    return clean
