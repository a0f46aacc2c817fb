"""One channel-layer group member per canvas per process; the canvas's sockets here share it.

channels_redis already writes a group message once per process, but each socket was a group member
of its own with a receive of its own: every message cost each socket a receive (two tasks, a wait on
the layer's receive lock, a cancel) and a turn of Channels' dispatch loop, and every group_send
listed, packed and unpacked every socket's channel name. Here the sockets of a canvas in one event
loop register with that canvas's `CanvasRelay`: it joins the group once, receives each message once
and puts it in each socket's `SocketInbox`, which the socket drains in order in a task of its own.

A batch committed in this process reaches the relay directly (realtime/committer.py) and also goes
to the group for the other processes; it carries the relay's channel as `origin`, so the relay skips
its own copy when the layer brings it back. The other processes' relays deliver it as any message.
While another process commits on the canvas too, batches from here take the layer's way like theirs:
handed over at once, they would overtake the other process's earlier revisions still on their way,
and every socket here would hold them for the missing revision, then catch up from the database.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from canvasweb.common.config import canvasweb_config

from .groups import canvas_group

logger = logging.getLogger(__name__)


# A batch from another process on the canvas within this many seconds: batches from here go through the
# layer too, in the order the layer brings them.
MIXED_COMMITS_SECONDS = 2.0
CHANGE_MESSAGES = frozenset({"canvas.change", "canvas.changes"})


def local_fanout_enabled() -> bool:
    """Whether sockets share one group member per canvas and process (off: one member per socket)."""
    return bool(canvasweb_config().get("WS_LOCAL_FANOUT", True))


class SocketInbox:
    """Layer messages for one socket, handled in arrival order by `handle` in the inbox's own task.

    Bounded like the layer's own buffer for a socket (its `capacity`): when the socket is stuck, the
    newest messages are dropped, as the Redis layer drops them, and the socket sees a revision gap and
    heals from the database (docs/reliability.md, "Channel layer: back-pressure and capacity").
    """

    def __init__(
        self,
        handle: Callable[[dict[str, Any]], Awaitable[None]],
        *,
        capacity: int,
        on_error: Callable[[BaseException], None],
    ) -> None:
        self.handle = handle
        self.capacity = max(1, capacity)
        self.on_error = on_error
        self.messages: deque[dict[str, Any]] = deque()
        self.dropped = 0
        self.closed = False
        self.task: asyncio.Task[Any] | None = None

    def put(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        if len(self.messages) >= self.capacity:
            self.dropped += 1
            return
        self.messages.append(message)
        if self.task is None:
            self.task = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        try:
            while self.messages:
                await self.handle(self.messages.popleft())
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the socket ends, as it would when its own receive loop raised
            self.messages.clear()
            self.on_error(exc)
        finally:
            self.task = None

    def close(self) -> None:
        self.closed = True
        self.messages.clear()
        if self.task is not None:
            self.task.cancel()
            self.task = None


class CanvasRelay:
    """The group member of one canvas in one event loop, fanning each message out to its sockets."""

    def __init__(self, layer: Any, canvas_id: int, channel: str) -> None:
        self.layer = layer
        self.loop = asyncio.get_running_loop()
        self.canvas_id = canvas_id
        self.group = canvas_group(canvas_id)
        self.channel = channel  # this relay's channel in the layer, also the `origin` of local batches
        self.inboxes: dict[str, SocketInbox] = {}  # by the socket's own channel name
        self.receiver: asyncio.Task[Any] | None = None
        self._layer_down_since: float | None = None
        self.other_commits_at = -MIXED_COMMITS_SECONDS  # when a change from elsewhere last came in

    async def join(self, socket_channel: str, inbox: SocketInbox) -> None:
        """Register the socket and (re)join the group; raises when the layer is down (the socket's sync
        check calls this again). Idempotent: it refreshes the membership's expiry."""
        self.inboxes[socket_channel] = inbox
        if self.receiver is None:
            self.receiver = asyncio.ensure_future(self._receive_loop())
        await self.layer.group_add(self.group, self.channel)

    async def leave(self, socket_channel: str) -> None:
        """Unregister the socket; the last one out takes the relay out of the group (the layer may
        fail that; the registry is emptied first all the same)."""
        if self.forget(socket_channel):
            await self.layer.group_discard(self.group, self.channel)

    def forget(self, socket_channel: str) -> bool:
        """Unregister the socket here and now; True when it was the last (then the relay is closed and
        only the layer's membership is left to discard)."""
        inbox = self.inboxes.pop(socket_channel, None)
        if inbox is not None:
            inbox.close()
        if self.inboxes or self.receiver is None:
            return False
        key = _key(self.loop, self.layer, self.canvas_id)
        if _RELAYS.get(key) is self:
            del _RELAYS[key]  # a socket that connects from now on makes a new relay
        self.receiver.cancel()
        self.receiver = None
        return True

    def discard_in_background(self) -> None:
        task = asyncio.ensure_future(self._discard())
        _BACKGROUND.add(task)  # held until done (the loop keeps only weak references to tasks)
        task.add_done_callback(_BACKGROUND.discard)

    async def _discard(self) -> None:
        try:
            await self.layer.group_discard(self.group, self.channel)
        except Exception:  # the layer may be down; the membership expires on its own
            logger.warning("could not leave group %s", self.group, exc_info=True)

    def deliver(self, message: dict[str, Any]) -> None:
        for inbox in list(self.inboxes.values()):
            inbox.put(message)

    async def _receive_loop(self) -> None:
        delay = 0.1
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer is down: retry with backoff, as each socket's receive does
                if self._layer_down_since is None:
                    self._layer_down_since = time.monotonic()
                    logger.warning("channel layer receive failed on %s; retrying", self.group, exc_info=True)
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 1.0)
                continue
            delay = 0.1
            if self._layer_down_since is not None:
                logger.warning("channel layer receive works again on %s", self.group)
                self._layer_down_since = None
            if message.get("origin") == self.channel:
                continue  # a batch committed here: its sockets already have it
            if message.get("type") in CHANGE_MESSAGES and message.get("sender") != self.channel:
                self.other_commits_at = time.monotonic()
            self.deliver(message)

    def hands_over_directly(self) -> bool:
        """Whether a batch committed here may go to the sockets here at once (no other process has
        committed on the canvas lately)."""
        return time.monotonic() - self.other_commits_at > MIXED_COMMITS_SECONDS


_RELAYS: dict[tuple[int, int, int], CanvasRelay] = {}
_BACKGROUND: set[asyncio.Task[Any]] = set()


def _key(loop: asyncio.AbstractEventLoop, layer: Any, canvas_id: int) -> tuple[int, int, int]:
    return (id(loop), id(layer), canvas_id)


async def relay_for(layer: Any, canvas_id: int) -> CanvasRelay:
    """This event loop's relay for the canvas on `layer`, made on first use."""
    loop = asyncio.get_running_loop()
    key = _key(loop, layer, canvas_id)
    relay = _RELAYS.get(key)
    if relay is None or relay.loop is not loop or relay.layer is not layer:
        channel = await layer.new_channel()
        relay = _RELAYS.get(key)  # another socket may have made it meanwhile
        if relay is None or relay.loop is not loop or relay.layer is not layer:
            relay = _RELAYS[key] = CanvasRelay(layer, canvas_id, channel)
    return relay


def local_relay(layer: Any, canvas_id: int) -> CanvasRelay | None:
    """The relay of the canvas in this event loop, if any socket of it is here."""
    loop = asyncio.get_running_loop()
    relay = _RELAYS.get(_key(loop, layer, canvas_id))
    if relay is None or relay.loop is not loop or not relay.inboxes:
        return None
    return relay
