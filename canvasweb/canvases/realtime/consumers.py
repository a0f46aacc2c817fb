"""The canvas WebSocket (protocol in docs/protocol.md).

Thin on purpose: it parses frames, rate-limits, calls the services and
selectors through `database_sync_to_async`, and filters every outgoing change
for this connection's role. It never writes rows itself.

This module holds the socket's lifecycle and frame dispatch; the parts live beside it:
socket_base.py (shared state, channel-layer resilience), sync.py (hello, catch-up,
change events, the sync check), op_intake.py (op admission and acks), presence.py,
token_bucket.py (the rate limit).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from canvasweb.canvases import selectors
from canvasweb.chat.turns import ChatSession
from canvasweb.common.errors import BadMessage, CanvasError

from . import daphne_guards
from .frame_safety import unsafe_frame_reply
from .groups import canvas_group
from .op_intake import OpHandlers
from .presence import PresenceHandlers
from .socket_base import CLOSE_TOO_LARGE, config_int
from .sync import SyncHandlers, sync_check_seconds
from .token_bucket import TokenBucket

logger = logging.getLogger(__name__)

# Guard Daphne against clients that stop reading (django/daphne#170); no-op outside Daphne.
daphne_guards.install()


class CanvasConsumer(SyncHandlers, OpHandlers, PresenceHandlers):
    # --- lifecycle -------------------------------------------------------------------

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.canvas_id = int(self.scope["url_route"]["kwargs"]["canvas_id"])
        self.group = canvas_group(self.canvas_id)
        self.role = None
        self.synced_revision = None  # None until hello has been answered
        self.hello_seen = False  # ops may follow hello at once, also while a resync is under way
        self.welcomed = False
        self.connection_id = secrets.token_hex(4)
        self.presence = None
        self.presence_pending = None
        self.presence_flush = None
        self.last_presence_sent = 0.0
        self.bucket = TokenBucket(config_int("WS_OPS_PER_SECOND"))
        self.op_queue = asyncio.Queue()
        self.op_worker = None
        self.unanswered = deque()
        self.max_queued_ops = max(1, 2 * config_int("WS_OPS_PER_SECOND"))
        self.joined = False
        self.chat = None
        if not isinstance(user, User) or not user.is_authenticated:
            await self.close()  # before accept: the handshake gets HTTP 403
            return
        self.user = user
        self.role = await database_sync_to_async(selectors.user_role)(
            user=self.user, canvas_id=self.canvas_id
        )
        if self.role is None:
            # A signed-in user knocking on a canvas they are not a member of (or that does not exist) is
            # recorded like any other refusal; anonymous handshakes are not (no user, and no DB write for them).
            await database_sync_to_async(_record_refused_connect)(user=self.user, canvas_id=self.canvas_id)
            await self.close()
            return
        self.joined = True
        await self._join_group()  # a layer outage does not refuse the socket; the sync check rejoins
        self.chat = ChatSession(user=self.user, canvas_id=self.canvas_id, send=self.send_json)
        await self.accept()
        interval = sync_check_seconds()
        if interval > 0 and getattr(self, "channel_receive", None) == self._resilient_channel_receive:
            self._maintenance = asyncio.ensure_future(self._maintenance_loop(interval))

    async def disconnect(self, code: int) -> None:
        if self._maintenance is not None:
            self._maintenance.cancel()
        op_worker = getattr(self, "op_worker", None)  # unset when the handshake was refused
        if op_worker is not None:
            op_worker.cancel()  # queued ops are not applied; the client resends them after reconnecting
        if self.presence_flush is not None:
            self.presence_flush.cancel()
        if self.chat is not None:
            await self.chat.close()
        if self.joined:
            try:
                await self._leave_presence()
            except Exception:  # the layer may be down: the others' presence of it times out
                logger.warning("could not announce leaving group %s", self.group, exc_info=True)
            try:
                await self._leave_group()  # this process's relay forgets the socket even then
            except Exception:  # the layer may be down; membership expires on its own
                logger.warning("could not leave group %s", self.group, exc_info=True)

    # --- frames from the client --------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        size = len(text_data.encode("utf-8")) if text_data is not None else len(bytes_data or b"")
        if size > config_int("WS_MAX_FRAME_BYTES"):
            # Under Daphne the protocol layer already refused it with 1009 (daphne_guards); Autobahn
            # does not let an application send 1009, so fall back to 4009 if this ever gets here.
            try:
                await self.close(code=CLOSE_TOO_LARGE)
            except Exception:
                await self.close(code=4009)
            return
        try:
            if text_data is None:
                raise BadMessage("frames must be JSON text, not binary")
            try:
                # NaN / Infinity parse here so that an op holding one is rejected by its client_op_id
                # (unsafe_frame_reply below).
                message = json.loads(text_data)
            except (ValueError, RecursionError):
                raise BadMessage("frame is not valid JSON") from None
            if not isinstance(message, dict):
                raise BadMessage("a frame must be a JSON object")
            kind = message.get("type")
            # `type` may be any JSON value (a list is not even hashable): only strings name handlers.
            handler = self.HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:  # first: an unknown frame is BAD_MESSAGE whatever else it holds
                if "type" not in message:
                    raise BadMessage("type is required", field="type")
                raise BadMessage(f"unknown message type {repr(kind)[:80]}", field="type")
            # Lone surrogates, NUL characters, ints beyond float range: INVALID.
            unsafe = unsafe_frame_reply(message)
            if unsafe is not None:
                await self.send_json(unsafe)
                return
            if not self.hello_seen and message.get("type") in ("op", "catch_up"):
                raise BadMessage("send hello first", field="type")
            await handler(self, message)
        except CanvasError as exc:
            await self.send_json({"type": "error", "error": exc.as_dict()})
        except Exception:
            logger.exception("unhandled error on canvas %s socket", self.canvas_id)
            await self.send_json(
                {
                    "type": "error",
                    "error": {
                        "code": "INTERNAL",
                        "message": "the server could not handle this message",
                        "field": None,
                    },
                }
            )

    def _chat(self) -> ChatSession:
        if self.chat is None:  # frames are handled only on an accepted socket, which has its session
            raise RuntimeError("no chat session before connect")
        return self.chat

    async def handle_ping(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "pong"})

    # The chat panel shares the canvas socket; chat/turns.py does the work.
    async def handle_chat_send(self, message: dict[str, Any]) -> None:
        await self._chat().handle_send(message)

    async def handle_chat_stop(self, message: dict[str, Any]) -> None:
        await self._chat().handle_stop(message)

    async def handle_context_preview(self, message: dict[str, Any]) -> None:
        await self._chat().handle_preview(message)

    HANDLERS = {
        "hello": SyncHandlers.handle_hello,
        "catch_up": SyncHandlers.handle_catch_up,
        "op": OpHandlers.handle_op,
        "presence": PresenceHandlers.handle_presence,
        "ping": handle_ping,
        "chat.send": handle_chat_send,
        "chat.stop": handle_chat_stop,
        "context.preview": handle_context_preview,
    }

    # --- events from the channel layer ---------------------------------------------------

    async def agent_proposal(self, message: dict[str, Any]) -> None:
        # An agent proposal was created or decided (canvasweb/agent/services.py); only roles that may
        # see every node it involves hear of it.
        if self._level() >= message["level"]:
            await self.send_json(message["payload"])


def _record_refused_connect(*, user: User, canvas_id: int) -> None:
    from canvasweb.history.models import SecurityEvent

    try:
        SecurityEvent.objects.create(
            canvas_id_ref=canvas_id,
            user=user,
            actor_kind="user",
            channel="websocket",
            op_type="connect",
            code="NOT_FOUND",
            reason="WebSocket refused: not a member of this canvas (or no such canvas)",
        )
    except Exception:  # the refusal itself must still happen
        logger.exception("could not record a refused WebSocket connect")
