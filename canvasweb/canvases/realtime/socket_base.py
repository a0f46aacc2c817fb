"""The canvas socket's shared state and its channel-layer resilience.

`CanvasSocket` declares what every part of the canvas consumer (consumers.py, sync.py,
op_intake.py, presence.py) reads and writes on `self`, and keeps the socket up when the
channel layer (Redis) fails: the receive is retried with backoff and the group is rejoined.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch
from django.contrib.auth.models import User

from canvasweb.canvases import permissions
from canvasweb.chat.turns import ChatSession
from canvasweb.common.config import canvasweb_config

from .fanout import encode_frame
from .local_fanout import CanvasRelay, SocketInbox, local_fanout_enabled, relay_for
from .token_bucket import TokenBucket

logger = logging.getLogger(__name__)

CLOSE_TOO_LARGE = 1009
CLOSE_MEMBERSHIP_REVOKED = 4403
CLOSE_CANVAS_DELETED = 4404


def config_int(name: str) -> int:
    return int(canvasweb_config()[name])


class CanvasSocket(AsyncWebsocketConsumer):
    """The base of CanvasConsumer: shared state and a receive loop that survives layer outages."""

    # Set in CanvasConsumer.connect(); declared here for the parts that use them.
    user: User
    canvas_id: int
    group: str
    role: str | None
    synced_revision: int | None  # None until hello has been answered
    hello_seen: bool
    welcomed: bool  # the last hello answered (welcome + changes/snapshot): presence may follow, not precede
    connection_id: str
    presence: dict[str, Any] | None
    presence_pending: dict[str, Any] | None
    presence_flush: asyncio.TimerHandle | None
    last_presence_sent: float
    bucket: TokenBucket
    op_queue: asyncio.Queue[Any]
    op_worker: asyncio.Task[Any] | None
    unanswered: deque[asyncio.Future[Any]]  # the futures of the queued ops, in order, until answered
    max_queued_ops: int
    joined: bool
    chat: ChatSession | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Handlers, layer events and the periodic sync check run one at a time.
        self._dispatch_lock = asyncio.Lock()
        self._maintenance: asyncio.Task[Any] | None = None
        self._layer_down_since: float | None = None
        self.last_event_at = time.monotonic()
        # Change events that arrived before an earlier revision, by revision (realtime/sync.py).
        self._held: dict[int, tuple[dict[str, Any], tuple[str, int] | None]] = {}
        self._held_release: asyncio.Task[Any] | None = None
        # Group messages through this process's relay of the canvas (realtime/local_fanout.py), set up in
        # __call__; None (sockets driven without __call__, as in the simulated network): a group
        # membership of the socket's own.
        self._inbox: SocketInbox | None = None
        self._relay: CanvasRelay | None = None
        self._inbox_error: BaseException | None = None

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
            if local_fanout_enabled():
                serving = asyncio.current_task()
                self._inbox = SocketInbox(
                    self.dispatch,
                    capacity=int(getattr(self.channel_layer, "capacity", 100)),
                    on_error=lambda exc: self._inbox_failed(exc, serving),
                )
            # The socket's own channel still takes messages sent to it alone (presence replies).
            await await_many_dispatch([receive, self.channel_receive], self.dispatch)
        except StopConsumer:
            pass
        except asyncio.CancelledError:
            if self._inbox_error is not None:
                raise self._inbox_error from None
            raise
        finally:
            for task in (self._maintenance, getattr(self, "op_worker", None), self._held_release):
                if task is not None:
                    task.cancel()
            if self._inbox is not None:
                self._inbox.close()
            if self._relay is not None and self._relay.forget(self.channel_name):
                # Ended without a disconnect (cancelled, or a handler raised): the last socket of the
                # canvas here still takes the relay out of the group.
                self._relay.discard_in_background()
            self._relay = None

    def _inbox_failed(self, exc: BaseException, serving: asyncio.Task[Any] | None) -> None:
        # A group message's handler raised: end the socket as Channels ends it when a handler of its
        # own receive loop raises (Daphne logs it and closes the connection).
        self._inbox_error = exc
        if serving is not None:
            serving.cancel()

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

    async def _join_group(self) -> bool:
        """(Re)join the canvas group; idempotent, and it refreshes the membership's expiry."""
        try:
            if self._inbox is None:
                await self.channel_layer.group_add(self.group, self.channel_name)
            else:
                self._relay = await relay_for(self.channel_layer, self.canvas_id)
                await self._relay.join(self.channel_name, self._inbox)
        except Exception:
            if self._layer_down_since is None:
                self._layer_down_since = time.monotonic()
                logger.warning("could not join group %s; will retry", self.group, exc_info=True)
            return False
        return True

    async def _leave_group(self) -> None:
        """Leave the canvas group (through the relay: the last socket of the process takes it out)."""
        if self._inbox is None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        elif self._relay is not None:
            relay, self._relay = self._relay, None
            await relay.leave(self.channel_name)

    async def acks_first(self) -> None:
        """Defined in op_intake.py (OpHandlers)."""

    def _level(self) -> int:
        return permissions.role_level(self.role) if self.role else -1

    async def send_json(self, content: Any) -> None:
        await self.send(text_data=encode_frame(content))
