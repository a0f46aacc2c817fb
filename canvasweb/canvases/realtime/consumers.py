"""The canvas WebSocket (protocol in docs/protocol.md).

Thin on purpose: it parses frames, rate-limits, calls the services and
selectors through `database_sync_to_async`, and filters every outgoing change
for this connection's role. It never writes rows itself.
"""
from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import time
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from canvasweb.canvases import permissions, selectors, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.visibility import filter_event
from canvasweb.chat.turns import ChatSession
from canvasweb.common.errors import BadMessage, CanvasError, RateLimited

from .groups import canvas_group

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
CLOSE_TOO_LARGE = 1009
CLOSE_MEMBERSHIP_REVOKED = 4403
CLOSE_CANVAS_DELETED = 4404
PRESENCE_COLORS = ("#e76f51", "#2a9d8f", "#e9c46a", "#264653", "#f4a261", "#6d597a", "#3a86ff", "#8338ec",
                   "#ff006e", "#06d6a0")


def _config(name: str) -> int:
    return settings.CANVASWEB[name]


class TokenBucket:
    """Allows `rate` ops per second with bursts of `rate`; refuses beyond."""

    def __init__(self, rate: int):
        self.rate = float(rate)
        self.tokens = float(rate)
        self.updated = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.rate, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class CanvasConsumer(AsyncWebsocketConsumer):
    # --- lifecycle -------------------------------------------------------------------

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.canvas_id = int(self.scope["url_route"]["kwargs"]["canvas_id"])
        self.group = canvas_group(self.canvas_id)
        self.role: str | None = None
        self.synced_revision: int | None = None  # None until hello has been answered
        self.connection_id = secrets.token_hex(4)
        self.presence: dict | None = None
        self.presence_pending: dict | None = None
        self.presence_flush: asyncio.TimerHandle | None = None
        self.last_presence_sent = 0.0
        self.bucket = TokenBucket(_config("WS_OPS_PER_SECOND"))
        self.joined = False
        self.chat: ChatSession | None = None
        if not getattr(self.user, "is_authenticated", False):
            await self.close()  # before accept: the handshake gets HTTP 403
            return
        self.role = await database_sync_to_async(selectors.user_role)(user=self.user, canvas_id=self.canvas_id)
        if self.role is None:
            await self.close()
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined = True
        self.chat = ChatSession(user=self.user, canvas_id=self.canvas_id, send=self.send_json)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.presence_flush is not None:
            self.presence_flush.cancel()
        if self.chat is not None:
            await self.chat.close()
        if self.joined:
            try:
                await self.channel_layer.group_send(
                    self.group, {"type": "presence.leave", "connection_id": self.connection_id})
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # the layer may be down; membership expires on its own
                logger.warning("could not leave group %s", self.group, exc_info=True)

    # --- frames from the client --------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        size = len(text_data.encode("utf-8")) if text_data is not None else len(bytes_data or b"")
        if size > _config("WS_MAX_FRAME_BYTES"):
            await self.close(code=CLOSE_TOO_LARGE)
            return
        try:
            if text_data is None:
                raise BadMessage("frames must be JSON text, not binary")
            try:
                message = json.loads(text_data, parse_constant=_reject_constant)
            except (ValueError, RecursionError):
                raise BadMessage("frame is not valid JSON") from None
            if not isinstance(message, dict):
                raise BadMessage("a frame must be a JSON object")
            handler = self.HANDLERS.get(message.get("type"))
            if handler is None:
                raise BadMessage(f"unknown message type {message.get('type')!r}", field="type")
            if message.get("type") != "hello" and self.synced_revision is None and message.get("type") in (
                    "op", "catch_up"):
                raise BadMessage("send hello first", field="type")
            await handler(self, message)
        except CanvasError as exc:
            await self.send_json({"type": "error", "error": exc.as_dict()})
        except Exception:
            logger.exception("unhandled error on canvas %s socket", self.canvas_id)
            await self.send_json({"type": "error", "error": {
                "code": "INTERNAL", "message": "the server could not handle this message", "field": None}})

    async def handle_hello(self, message: dict) -> None:
        last = message.get("last_revision")
        if last is not None and (isinstance(last, bool) or not isinstance(last, int) or not 0 <= last < 2**53):
            raise BadMessage("last_revision must be null or a non-negative integer", field="last_revision")
        state = await database_sync_to_async(self._load_state)(since=last)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        await self.send_json({
            "type": "welcome", "protocol": PROTOCOL_VERSION, "canvas": state["canvas"],
            "user": {"id": self.user.pk, "username": self.user.get_username()}, "role": self.role,
            "connection_id": self.connection_id,
        })
        await self._send_state(state)
        await self.channel_layer.group_send(
            self.group, {"type": "presence.query", "reply_to": self.channel_name,
                         "connection_id": self.connection_id})

    async def handle_catch_up(self, message: dict) -> None:
        since = message.get("since")
        if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since < 2**53:
            raise BadMessage("since must be a non-negative integer", field="since")
        state = await database_sync_to_async(self._load_state)(since=since)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        await self._send_state(state)

    async def handle_op(self, message: dict) -> None:
        client_op_id = message.get("client_op_id")
        if not isinstance(client_op_id, str) or not 1 <= len(client_op_id) <= 64:
            raise BadMessage("client_op_id must be a string of 1-64 characters", field="client_op_id")
        if "op" not in message:
            raise BadMessage("op is required", field="op")
        try:
            if not self.bucket.take():
                raise RateLimited(
                    f"more than {_config('WS_OPS_PER_SECOND')} ops per second; this op was not applied, resend it")
            result = await database_sync_to_async(services.apply_operation)(
                actor=user_actor(self.user, channel="websocket"), canvas_id=self.canvas_id, op=message["op"],
                client_op_id=client_op_id)
        except CanvasError as exc:
            await self.send_json({"type": "reject", "client_op_id": client_op_id, "error": exc.as_dict()})
            return
        except Exception:
            logger.exception("op failed on canvas %s", self.canvas_id)
            await self.send_json({"type": "reject", "client_op_id": client_op_id, "error": {
                "code": "INTERNAL", "message": "the server failed to apply this op; nothing was changed",
                "field": None}})
            return
        visible, _ = filter_event({"changes": result.changes}, level=self._level())
        await self.send_json({"type": "ack", "client_op_id": client_op_id, "revision": result.revision,
                              "duplicate": result.duplicate, "changes": visible["changes"]})

    async def handle_presence(self, message: dict) -> None:
        viewport = _clean_point(message.get("viewport"), ("x", "y", "zoom", "width", "height"), "viewport")
        cursor = message.get("cursor")
        cursor = None if cursor is None else _clean_point(cursor, ("x", "y"), "cursor")
        self.presence = {
            "type": "presence", "connection_id": self.connection_id,
            "user": {"id": self.user.pk, "username": self.user.get_username()},
            "color": PRESENCE_COLORS[self.user.pk % len(PRESENCE_COLORS)],
            "viewport": viewport, "cursor": cursor,
        }
        interval = _config("PRESENCE_MIN_INTERVAL_MS") / 1000
        wait = self.last_presence_sent + interval - time.monotonic()
        if wait <= 0:
            await self._publish_presence()
        elif self.presence_flush is None:
            # Throttled, not dropped: the latest position goes out when the interval ends.
            loop = asyncio.get_running_loop()
            self.presence_flush = loop.call_later(wait, lambda: asyncio.ensure_future(self._publish_presence()))

    async def handle_ping(self, message: dict) -> None:
        await self.send_json({"type": "pong"})

    # The chat panel shares the canvas socket; chat/turns.py does the work.
    async def handle_chat_send(self, message: dict) -> None:
        await self.chat.handle_send(message)

    async def handle_chat_stop(self, message: dict) -> None:
        await self.chat.handle_stop(message)

    async def handle_context_preview(self, message: dict) -> None:
        await self.chat.handle_preview(message)

    HANDLERS = {
        "hello": handle_hello,
        "catch_up": handle_catch_up,
        "op": handle_op,
        "presence": handle_presence,
        "ping": handle_ping,
        "chat.send": handle_chat_send,
        "chat.stop": handle_chat_stop,
        "context.preview": handle_context_preview,
    }

    # --- events from the channel layer ---------------------------------------------------

    async def canvas_change(self, message: dict) -> None:
        event = message["event"]
        if self._membership_changed(event):
            role = await database_sync_to_async(selectors.user_role)(user=self.user, canvas_id=self.canvas_id)
            if role is None:
                await self.close(code=CLOSE_CANVAS_DELETED if self._canvas_deleted(event)
                                 else CLOSE_MEMBERSHIP_REVOKED)
                return
            if role != self.role:
                self.role = role
                if self.synced_revision is not None:
                    await self.send_json({"type": "resync", "reason": "your role changed"})
                    self.synced_revision = None
                return
        if self.synced_revision is None or event["revision"] <= self.synced_revision:
            return  # before hello (the hello answer will include it) or already sent
        filtered, needs_resync = filter_event(event, level=self._level())
        if needs_resync:
            await self.send_json({"type": "resync", "reason": "visibility changed"})
            self.synced_revision = None
            return
        self.synced_revision = event["revision"]
        await self.send_json(filtered)

    async def agent_proposal(self, message: dict) -> None:
        # An agent proposal was created or decided (canvasweb/agent/services.py); only roles that may
        # see every node it involves hear of it.
        if self._level() >= message["level"]:
            await self.send_json(message["payload"])

    async def presence_update(self, message: dict) -> None:
        if message["payload"]["connection_id"] != self.connection_id:
            await self.send_json(message["payload"])

    async def presence_leave(self, message: dict) -> None:
        if message["connection_id"] != self.connection_id:
            await self.send_json({"type": "presence_leave", "connection_id": message["connection_id"]})

    async def presence_query(self, message: dict) -> None:
        if message["connection_id"] != self.connection_id and self.presence is not None:
            await self.channel_layer.send(message["reply_to"], {"type": "presence.state", "payload": self.presence})

    async def presence_state(self, message: dict) -> None:
        await self.send_json(message["payload"])

    # --- helpers -------------------------------------------------------------------------

    def _level(self) -> int:
        return permissions.role_level(self.role) if self.role else -1

    def _load_state(self, *, since: int | None) -> dict | None:
        """Snapshot or missed changes, read in one place (runs in a worker thread)."""
        try:
            canvas, role = selectors.canvas_for_member(user=self.user, canvas_id=self.canvas_id)
        except CanvasError:
            return None
        self.role = role
        canvas_info = {"id": canvas.pk, "name": canvas.name, "revision": canvas.revision}
        too_far = since is None or since > canvas.revision or canvas.revision - since > _config(
            "CATCH_UP_MAX_REVISIONS")
        if not too_far:
            changes = selectors.changes_since(canvas=canvas, role=role, since=since)
            if not changes["needs_resync"] and not changes["has_more"]:
                return {"canvas": canvas_info, "changes": changes}
        return {"canvas": canvas_info, "snapshot": selectors.canvas_snapshot(canvas=canvas, role=role)}

    async def _send_state(self, state: dict) -> None:
        if "snapshot" in state:
            snapshot = state["snapshot"]
            self.synced_revision = snapshot["revision"]
            await self.send_json({"type": "snapshot", **snapshot})
        else:
            changes = state["changes"]
            self.synced_revision = max(self.synced_revision or 0, changes["to"])
            await self.send_json({"type": "changes", "from": changes["from"], "to": changes["to"],
                                  "events": changes["events"]})

    async def _publish_presence(self) -> None:
        self.presence_flush = None
        self.last_presence_sent = time.monotonic()
        if self.presence is not None:
            try:
                await self.channel_layer.group_send(self.group, {"type": "presence.update",
                                                                 "payload": self.presence})
            except Exception:
                logger.warning("presence broadcast failed", exc_info=True)

    def _membership_changed(self, event: dict) -> bool:
        return any(c["entity"] == "member" and c["id"] == str(self.user.pk) for c in event["changes"]) or \
            self._canvas_deleted(event)

    @staticmethod
    def _canvas_deleted(event: dict) -> bool:
        return any(c["entity"] == "canvas" and c["action"] == "deleted" for c in event["changes"])

    async def send_json(self, content: Any) -> None:
        await self.send(text_data=json.dumps(content, ensure_ascii=False, allow_nan=False))


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _clean_point(value: Any, keys: tuple[str, ...], name: str) -> dict:
    if not isinstance(value, dict):
        raise BadMessage(f"{name} must be an object with {', '.join(keys)}", field=name)
    clean = {}
    for key in keys:
        number = value.get(key)
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number) \
                or abs(number) > 1e7:
            raise BadMessage(f"{name}.{key} must be a finite number", field=f"{name}.{key}")
        clean[key] = float(number)
    return clean
