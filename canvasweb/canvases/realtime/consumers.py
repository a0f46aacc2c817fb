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
import random
import secrets
import time
import uuid
from typing import Any, NoReturn

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch
from django.contrib.auth.models import User

from canvasweb.canvases import permissions, selectors, services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.visibility import filter_event
from canvasweb.chat.turns import ChatSession
from canvasweb.common.config import canvasweb_config
from canvasweb.common.errors import BadMessage, CanvasError, RateLimited
from canvasweb.common.json_safety import finite_float

from . import daphne_guards
from .committer import committer_for
from .fanout import change_frame, encode_frame
from .frame_safety import unsafe_frame_reply
from .groups import canvas_group

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
CLOSE_TOO_LARGE = 1009
CLOSE_MEMBERSHIP_REVOKED = 4403
CLOSE_CANVAS_DELETED = 4404
# When the op queue is full: about the time a few queued ops take to apply.
QUEUE_FULL_RETRY_MS = 200
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


def _config(name: str) -> int:
    return int(canvasweb_config()[name])


def _sync_check_seconds() -> float:
    """How often each socket rejoins its group and checks it has not missed a revision (0 = never).

    See docs/reliability.md: the channel layer delivers at most once and loses group
    memberships when Redis restarts, so every connection heals itself on this period.
    """
    value = canvasweb_config().get("WS_SYNC_CHECK_SECONDS")
    if value is None:
        value = float(daphne_guards.env_number("CANVASWEB_WS_SYNC_CHECK_SECONDS", 5.0))
    return float(value)


# Guard Daphne against clients that stop reading (django/daphne#170); no-op outside Daphne.
daphne_guards.install()


class TokenBucket:
    """Allows `rate` ops per second with bursts of `rate`; refuses beyond.

    A client refused faster than `rate` times a second for about a second (it ignores
    `retry_after_ms`) is flooding: for FLOOD_PENALTY_SECONDS it refills at a quarter of the rate,
    so its ops and their broadcasts do not crowd out everyone else on the canvas. A client that
    backs off is never penalised.
    """

    FLOOD_PENALTY_SECONDS = 2.0

    def __init__(self, rate: int):
        self.rate = float(rate)
        self.tokens = float(rate)
        self.updated = time.monotonic()
        self.refused = 0.0  # refusals, leaking away at `rate` per second
        self.penalty_until = 0.0

    def _refill_rate(self, now: float) -> float:
        return self.rate / 4 if now < self.penalty_until else self.rate

    def take(self) -> bool:
        now = time.monotonic()
        elapsed = now - self.updated
        self.tokens = min(self.rate, self.tokens + elapsed * self._refill_rate(now))
        self.refused = max(0.0, self.refused - elapsed * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 2  # leaks at `rate` a second: only refusals faster than rate/2 a second pile up
        if self.refused >= 2 * self.rate:
            self.penalty_until = now + self.FLOOD_PENALTY_SECONDS
            self.refused = 0.0
        return False

    def retry_after_ms(self) -> int:
        """How long until the next op would be admitted."""
        now = time.monotonic()
        return max(1, math.ceil((1 - self.tokens) / self._refill_rate(now) * 1000))


class CanvasConsumer(AsyncWebsocketConsumer):
    # --- lifecycle -------------------------------------------------------------------

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Handlers, layer events and the periodic sync check run one at a time.
        self._dispatch_lock = asyncio.Lock()
        self._maintenance: asyncio.Task[Any] | None = None
        self._layer_down_since: float | None = None
        self.last_event_at = time.monotonic()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """AsyncConsumer.__call__, except that a channel-layer failure does not end the socket.

        With channels_redis, a Redis outage makes `receive` raise; the stock consumer
        then dies and Daphne closes every socket with 1011. Here the socket stays up
        (ops still commit and ack from the database), the receive is retried with
        backoff, and the periodic sync check rejoins the group and pushes whatever
        was missed once the layer is back.
        """
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.base_send = send
        try:
            if self.channel_layer is None:
                await await_many_dispatch([receive], self.dispatch)
                return
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = self._resilient_channel_receive
            await await_many_dispatch([receive, self.channel_receive], self.dispatch)
        except StopConsumer:
            pass
        finally:
            for task in (self._maintenance, getattr(self, "op_worker", None)):
                if task is not None:
                    task.cancel()

    async def _resilient_channel_receive(self) -> dict[str, Any]:
        delay = 0.1
        while True:
            try:
                message: dict[str, Any] = await self.channel_layer.receive(self.channel_name)
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._layer_down_since is None:
                    self._layer_down_since = time.monotonic()
                    logger.warning(
                        "channel layer receive failed on canvas %s; retrying",
                        getattr(self, "canvas_id", None),
                        exc_info=True,
                    )
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 1.0)
                continue
            if self._layer_down_since is not None:
                logger.warning(
                    "channel layer receive works again on canvas %s after %.1f s",
                    getattr(self, "canvas_id", None),
                    time.monotonic() - self._layer_down_since,
                )
                self._layer_down_since = None
            return message

    async def dispatch(self, message: dict[str, Any]) -> None:
        # AsyncConsumer.dispatch without its `aclose_old_connections()`: that hops to the (single,
        # shared) database thread for every frame, so a busy database slowed down *reading* the socket
        # and the rate limiter saw a flood only as fast as the database worked. Every database call
        # here goes through database_sync_to_async, which closes stale connections itself.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        async with self._dispatch_lock:
            await handler(message)

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.canvas_id = int(self.scope["url_route"]["kwargs"]["canvas_id"])
        self.group = canvas_group(self.canvas_id)
        self.role: str | None = None
        self.synced_revision: int | None = None  # None until hello has been answered
        self.hello_seen = False  # ops may follow hello at once, also while a resync is under way
        self.connection_id = secrets.token_hex(4)
        self.presence: dict[str, Any] | None = None
        self.presence_pending: dict[str, Any] | None = None
        self.presence_flush: asyncio.TimerHandle | None = None
        self.last_presence_sent = 0.0
        self.bucket = TokenBucket(_config("WS_OPS_PER_SECOND"))
        self.op_queue: asyncio.Queue[Any] = asyncio.Queue()
        self.op_worker: asyncio.Task[Any] | None = None
        self.max_queued_ops = max(1, 2 * _config("WS_OPS_PER_SECOND"))
        self.joined = False
        self.chat: ChatSession | None = None
        if not isinstance(user, User) or not user.is_authenticated:
            await self.close()  # before accept: the handshake gets HTTP 403
            return
        self.user: User = user
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
        interval = _sync_check_seconds()
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
                await self.channel_layer.group_send(
                    self.group, {"type": "presence.leave", "connection_id": self.connection_id}
                )
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # the layer may be down; membership expires on its own
                logger.warning("could not leave group %s", self.group, exc_info=True)

    # --- frames from the client --------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        size = len(text_data.encode("utf-8")) if text_data is not None else len(bytes_data or b"")
        if size > _config("WS_MAX_FRAME_BYTES"):
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
                message = json.loads(text_data, parse_constant=_reject_constant)
            except (ValueError, RecursionError):
                raise BadMessage("frame is not valid JSON") from None
            if not isinstance(message, dict):
                raise BadMessage("a frame must be a JSON object")
            unsafe = unsafe_frame_reply(message)  # lone surrogates, ints beyond float range: INVALID
            if unsafe is not None:
                await self.send_json(unsafe)
                return
            kind = message.get("type")
            # `type` may be any JSON value (a list is not even hashable): only strings name handlers.
            handler = self.HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise BadMessage(f"unknown message type {repr(kind)[:80]}", field="type")
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

    async def handle_hello(self, message: dict[str, Any]) -> None:
        last = message.get("last_revision")
        if last is not None and (
            isinstance(last, bool) or not isinstance(last, int) or not 0 <= last < 2**53
        ):
            raise BadMessage("last_revision must be null or a non-negative integer", field="last_revision")
        self.hello_seen = True
        state = await database_sync_to_async(self._load_state)(since=last)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        await self.send_json(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "canvas": state["canvas"],
                "user": {"id": self.user.pk, "username": self.user.get_username()},
                "role": self.role,
                "connection_id": self.connection_id,
            }
        )
        await self._send_state(state)
        try:
            await self.channel_layer.group_send(
                self.group,
                {
                    "type": "presence.query",
                    "reply_to": self.channel_name,
                    "connection_id": self.connection_id,
                },
            )
        except Exception:  # presence is a nicety; the layer may be down
            logger.warning("presence query failed on canvas %s", self.canvas_id, exc_info=True)

    async def handle_catch_up(self, message: dict[str, Any]) -> None:
        since = message.get("since")
        if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since < 2**53:
            raise BadMessage("since must be a non-negative integer", field="since")
        state = await database_sync_to_async(self._load_state)(since=since)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        await self._send_state(state)

    async def handle_op(self, message: dict[str, Any]) -> None:
        client_op_id = message.get("client_op_id")
        if not isinstance(client_op_id, str) or not 1 <= len(client_op_id) <= 64:
            raise BadMessage("client_op_id must be a string of 1-64 characters", field="client_op_id")
        if "op" not in message:
            raise BadMessage("op is required", field="op")
        # Admission happens as frames arrive; the database work runs in this socket's op worker, one op
        # at a time and in order. (Applied inline, a slow database held up reading the socket: the
        # token bucket then saw frames only as fast as they were applied and never refused a flood,
        # which queued without bound in Daphne. See docs/reliability.md, "flood".)
        error = None
        if not self.bucket.take():
            error = RateLimited(
                f"more than {_config('WS_OPS_PER_SECOND')} ops per second; this op was not applied, resend it",
                retry_after_ms=self.bucket.retry_after_ms(),
            )
        elif self.op_queue.qsize() >= self.max_queued_ops:
            error = RateLimited(
                f"{self.max_queued_ops} ops are already waiting to be applied; "
                "this op was not applied, resend it",
                retry_after_ms=QUEUE_FULL_RETRY_MS,
            )
        if error is not None:
            await self.send_json({"type": "reject", "client_op_id": client_op_id, "error": error.as_dict()})
            return
        # Group commit: the canvas's committer applies this op together with whatever every other
        # socket on the canvas queued meanwhile; this socket acks its own ops in order.
        future = committer_for(self.canvas_id).submit(
            services.OpRequest(
                actor=user_actor(self.user, channel="websocket"), op=message["op"], client_op_id=client_op_id
            ),
            source=self.connection_id,
        )
        self.op_queue.put_nowait((client_op_id, future))
        if self.op_worker is None or self.op_worker.done():
            self.op_worker = asyncio.ensure_future(self._op_worker())

    async def _op_worker(self) -> None:
        while not self.op_queue.empty():
            client_op_id, future = self.op_queue.get_nowait()
            try:
                await self._answer_op(client_op_id, future)
            finally:
                self.op_queue.task_done()

    async def ops_idle(self) -> None:
        """Wait until every accepted op has been applied and answered (tests drive sockets step by step)."""
        while self.op_worker is not None and not self.op_worker.done():
            await asyncio.shield(self.op_worker)

    async def _answer_op(self, client_op_id: str, future: asyncio.Future[Any]) -> None:
        try:
            result = await asyncio.shield(future)  # a closing socket must not cancel the batch's future
        except Exception:
            result = None
        if isinstance(result, CanvasError):
            await self.send_json({"type": "reject", "client_op_id": client_op_id, "error": result.as_dict()})
            return
        if not isinstance(result, services.ApplyResult):
            if result is not None:
                logger.error("op failed on canvas %s", self.canvas_id, exc_info=result)
            await self.send_json(
                {
                    "type": "reject",
                    "client_op_id": client_op_id,
                    "error": {
                        "code": "INTERNAL",
                        "message": "the server failed to apply this op; nothing was changed",
                        "field": None,
                    },
                }
            )
            return
        visible, _ = filter_event({"changes": result.changes}, level=self._level())
        # An op that changed nothing (a field set to its current value) made no revision: `revision` is
        # the current one, whose change event is someone else's. Flag it like a duplicate so clients do
        # not take this ack for that revision's event (docs/reliability.md, "no-op acks").
        noop = result.event is None and not result.duplicate
        await self.send_json(
            {
                "type": "ack",
                "client_op_id": client_op_id,
                "revision": result.revision,
                "duplicate": result.duplicate or noop,
                "changes": visible["changes"],
            }
        )

    async def handle_presence(self, message: dict[str, Any]) -> None:
        viewport = _clean_point(message.get("viewport"), ("x", "y", "zoom", "width", "height"), "viewport")
        cursor = message.get("cursor")
        cursor = None if cursor is None else _clean_point(cursor, ("x", "y"), "cursor")
        editing = _clean_node_id(message.get("editing"), "editing")
        dragging = message.get("dragging")
        if dragging is not None:
            dragging = {
                "id": _clean_node_id(
                    dragging.get("id") if isinstance(dragging, dict) else None, "dragging.id", required=True
                ),
                **_clean_point(dragging, ("x", "y"), "dragging"),
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
        interval = _config("PRESENCE_MIN_INTERVAL_MS") / 1000
        wait = self.last_presence_sent + interval - time.monotonic()
        if wait <= 0:
            await self._publish_presence()
        elif self.presence_flush is None:
            # Throttled, not dropped: the latest position goes out when the interval ends.
            loop = asyncio.get_running_loop()
            self.presence_flush = loop.call_later(
                wait, lambda: asyncio.ensure_future(self._publish_presence())
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

    async def canvas_change(self, message: dict[str, Any], *, key: tuple[str, int] | None = None) -> None:
        event = message["event"]
        if self._membership_changed(event):
            role = await database_sync_to_async(selectors.user_role)(user=self.user, canvas_id=self.canvas_id)
            if role is None:
                await self.close(
                    code=CLOSE_CANVAS_DELETED if self._canvas_deleted(event) else CLOSE_MEMBERSHIP_REVOKED
                )
                return
            if role != self.role:
                self.role = role
                if self.synced_revision is not None:
                    await self.send_json({"type": "resync", "reason": "your role changed"})
                    self.synced_revision = None
                return
        self.last_event_at = time.monotonic()
        if self.synced_revision is None or event["revision"] <= self.synced_revision:
            return  # before hello (the hello answer will include it) or already sent
        text, needs_resync = change_frame(event, level=self._level(), key=key)
        if needs_resync or text is None:
            await self.send_json({"type": "resync", "reason": "visibility changed"})
            self.synced_revision = None
            return
        self.synced_revision = event["revision"]
        await self.send(text_data=text)

    async def canvas_changes(self, message: dict[str, Any]) -> None:
        # One layer message per group commit (realtime/committer.py); one `change` frame per revision,
        # encoded once per role level in this process (realtime/fanout.py).
        batch = message.get("batch")
        for index, event in enumerate(message["events"]):
            await self.canvas_change(
                {"type": "canvas.change", "event": event},
                key=(batch, index) if isinstance(batch, str) else None,
            )

    async def agent_proposal(self, message: dict[str, Any]) -> None:
        # An agent proposal was created or decided (canvasweb/agent/services.py); only roles that may
        # see every node it involves hear of it.
        if self._level() >= message["level"]:
            await self.send_json(message["payload"])

    async def presence_update(self, message: dict[str, Any]) -> None:
        if message["payload"]["connection_id"] != self.connection_id:
            await self.send_json(message["payload"])

    async def presence_leave(self, message: dict[str, Any]) -> None:
        if message["connection_id"] != self.connection_id:
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
        await self.send_json(message["payload"])

    # --- helpers -------------------------------------------------------------------------

    def _level(self) -> int:
        return permissions.role_level(self.role) if self.role else -1

    def _load_state(self, *, since: int | None, only_if_behind: bool = False) -> dict[str, Any] | None:
        """Snapshot or missed changes, read in one place (runs in a worker thread).

        None when the user is no longer a member. With `only_if_behind`, {"canvas", "role"}
        alone when the canvas is not past `since`.
        """
        try:
            canvas, role = selectors.canvas_for_member(user=self.user, canvas_id=self.canvas_id)
        except CanvasError:
            return None
        canvas_info = {"id": canvas.pk, "name": canvas.name, "revision": canvas.revision}
        if only_if_behind and (since is None or canvas.revision <= since or role != self.role):
            return {"canvas": canvas_info, "role": role}
        self.role = role
        too_far = (
            since is None
            or since > canvas.revision
            or canvas.revision - since > _config("CATCH_UP_MAX_REVISIONS")
        )
        if not too_far and since is not None:
            # needs_resync covers a change of this user's own role in the range: start from a snapshot.
            changes = selectors.changes_since(canvas=canvas, role=role, since=since, user_id=self.user.pk)
            if not changes["needs_resync"] and not changes["has_more"]:
                return {"canvas": canvas_info, "changes": changes}
        return {"canvas": canvas_info, "snapshot": selectors.canvas_snapshot(canvas=canvas, role=role)}

    async def _join_group(self) -> bool:
        """(Re)join the canvas group; idempotent, and it refreshes the membership's expiry."""
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception:
            if self._layer_down_since is None:
                self._layer_down_since = time.monotonic()
                logger.warning("could not join group %s; will retry", self.group, exc_info=True)
            return False
        return True

    async def _maintenance_loop(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval * (0.75 + 0.5 * random.random()))
            try:
                async with self._dispatch_lock:
                    await self.sync_check(quiet_for=interval)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("sync check failed on canvas %s", self.canvas_id, exc_info=True)

    async def sync_check(self, *, quiet_for: float = 0.0) -> None:
        """Self-healing, run every WS_SYNC_CHECK_SECONDS: rejoin the group (Redis may have lost it) and,
        if no change event arrived for `quiet_for` seconds, push any revision this socket missed.

        The channel layer delivers at most once; a lost broadcast is normally noticed by the client as a
        gap at the next change, but the last changes before a quiet spell would otherwise stay missing.
        """
        await self._join_group()
        if self.synced_revision is None or time.monotonic() - self.last_event_at < quiet_for:
            return
        since, role = self.synced_revision, self.role
        state = await database_sync_to_async(self._load_state)(since=since, only_if_behind=True)
        if state is None:
            await self.close(code=CLOSE_MEMBERSHIP_REVOKED)
            return
        if state.get("role", role) != role:
            self.role = state["role"]
            await self.send_json({"type": "resync", "reason": "your role changed"})
            self.synced_revision = None
            return
        if "snapshot" in state or "changes" in state:
            if self.synced_revision != since:  # pragma: no cover - guarded by the dispatch lock
                return
            await self._send_state(state)

    async def _send_state(self, state: dict[str, Any]) -> None:
        if "snapshot" in state:
            snapshot = state["snapshot"]
            self.synced_revision = snapshot["revision"]
            await self.send_json({"type": "snapshot", **snapshot})
        else:
            changes = state["changes"]
            self.synced_revision = max(self.synced_revision or 0, changes["to"])
            await self.send_json(
                {"type": "changes", "from": changes["from"], "to": changes["to"], "events": changes["events"]}
            )

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

    def _membership_changed(self, event: dict[str, Any]) -> bool:
        return any(
            c["entity"] == "member" and c["id"] == str(self.user.pk) for c in event["changes"]
        ) or self._canvas_deleted(event)

    @staticmethod
    def _canvas_deleted(event: dict[str, Any]) -> bool:
        return any(c["entity"] == "canvas" and c["action"] == "deleted" for c in event["changes"])

    async def send_json(self, content: Any) -> None:
        await self.send(text_data=encode_frame(content))


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


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _clean_node_id(value: Any, name: str, *, required: bool = False) -> str | None:
    """A node id in a presence frame: a UUID string (or null). Not looked up: presence is a hint."""
    if value is None and not required:
        return None
    try:
        return str(uuid.UUID(value)) if isinstance(value, str) else _bad_node_id(name)
    except ValueError:
        return _bad_node_id(name)


def _bad_node_id(name: str) -> NoReturn:
    raise BadMessage(
        f"{name} must be a node id (a UUID string){'' if name == 'dragging.id' else ' or null'}", field=name
    )


def _clean_point(value: Any, keys: tuple[str, ...], name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadMessage(f"{name} must be an object with {', '.join(keys)}", field=name)
    clean = {}
    for key in keys:
        number = finite_float(value.get(key))
        if number is None or abs(number) > 1e7:
            raise BadMessage(f"{name}.{key} must be a finite number", field=f"{name}.{key}")
        clean[key] = number
    return clean
