"""Guards on Daphne's WebSocket protocol that the ASGI application cannot express itself.

Installed once (`install()`, called when the consumers module loads); outside Daphne (tests on
WebsocketCommunicator) nothing changes. See docs/reliability.md.

1. Incoming frame limit at the protocol layer. `WS_MAX_FRAME_BYTES` (64 KiB) is applied to
   Autobahn's `maxMessagePayloadSize`/`maxFramePayloadSize` for every connection, so an oversized
   frame is refused with close code 1009 while it is still arriving, before it is buffered or
   decoded. (The consumer's own size check cannot send 1009 through Daphne: Autobahn only lets an
   application close with 1000 or 3000-4999, and raises otherwise, which Daphne turns into 1011.)

2. No limit on outgoing messages. Daphne >= 4.2.2 passes `--websocket-max-message-size` (default
   1 MiB, CVE-2026-44545) to Autobahn, which also applies it to messages the server *sends*: a
   snapshot or a catch-up over 1 MiB raised PayloadExceededError and the client never got its
   state. What the server sends is sized by the server; only incoming messages are limited.

3. Cutting off clients that stop reading. Daphne (Twisted) writes every outgoing frame into the
   connection's transport buffer and never refuses one; when a client stops reading, that buffer
   (server memory) grows for as long as the canvas is busy (django/daphne#170). Daphne's ping
   timeout does not catch it: any frame the client still sends (the web client pings every 25 s)
   cancels the pending ping timeout. After each frame we measure the bytes still waiting in the
   transport. The connection is aborted (no close handshake: the client is not reading it) when
   more than WS_SEND_BUFFER_SOFT_BYTES are waiting and not one byte has drained for
   WS_SEND_STALL_SECONDS, or when more than WS_SEND_BUFFER_HARD_BYTES were already waiting before
   the frame being sent. The consumer gets `websocket.disconnect`; the client, when it notices,
   reconnects with its last revision and catches up. A slow link that keeps reading is never
   "stalled", and one large frame (a 20 MB snapshot of a big canvas) does not count against the
   hard limit by itself: only a backlog that was already there does.

4. Time for the closing handshake. When the server closes (1009, or the app's own close codes)
   the client gets WS_CLOSE_HANDSHAKE_SECONDS (10 s, Autobahn's default is 1 s) to answer before
   the TCP connection is aborted; an abort sooner can discard the close frame on a busy client.

5. Write-through (realtime/write_through.py): a frame is sent at once when nothing is queued on its
   connection, instead of waiting for a reactor turn that registers and unregisters the socket with
   epoll around every frame. WS_WRITE_THROUGH = 0 turns it off.

Values come from settings.CANVASWEB, else from the environment variables CANVASWEB_<NAME>.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from typing import Any

from . import write_through

logger = logging.getLogger(__name__)

DEFAULTS = {
    "WS_MAX_FRAME_BYTES": 64 * 1024,
    "WS_SEND_BUFFER_SOFT_BYTES": 1024 * 1024,
    "WS_SEND_BUFFER_HARD_BYTES": 16 * 1024 * 1024,
    "WS_SEND_STALL_SECONDS": 10.0,
    "WS_CLOSE_HANDSHAKE_SECONDS": 10.0,
    "WS_WRITE_THROUGH": 1,
}
STATS: Counter[str] = Counter()


def env_number(name: str, default: float) -> float:
    value = os.environ.get(name)
    try:
        return float(value) if value not in (None, "") else default
    except ValueError:
        return default


def limit(name: str) -> float:
    try:
        from django.conf import settings

        value = getattr(settings, "CANVASWEB").get(name)  # noqa: B009 (settings may be unconfigured here)
    except Exception:  # settings not configured
        value = None
    if value is None:
        value = env_number(f"CANVASWEB_{name}", DEFAULTS[name])
    return float(value)


def buffered_bytes(transport: Any) -> int:
    """Bytes written to a Twisted transport that the kernel has not taken yet."""
    try:
        return int(len(transport.dataBuffer) - transport.offset + transport._tempDataLen)
    except AttributeError:  # not a plain Twisted TCP transport
        return 0


def check(protocol: Any, *, frame_bytes: int = 0, now: float | None = None) -> bool:
    """Abort `protocol`'s connection if its client has stopped reading. True if it was cut off.

    `frame_bytes` is the size of the frame just written; it is not part of the backlog the hard
    limit judges (a client cannot have read a frame that was queued a moment ago).
    """
    transport = getattr(protocol, "transport", None)
    if transport is None:
        return False
    waiting = buffered_bytes(transport)
    if waiting <= limit("WS_SEND_BUFFER_SOFT_BYTES"):
        protocol._canvasweb_backlog_since = None
        protocol._canvasweb_backlog_bytes = waiting
        return False
    now = time.monotonic() if now is None else now
    waiting_before = max(0, waiting - frame_bytes)
    since = getattr(protocol, "_canvasweb_backlog_since", None)
    previous = getattr(protocol, "_canvasweb_backlog_bytes", None)
    if since is None or (previous is not None and waiting_before < previous):
        # First time over the soft limit, or the client read something since the last frame:
        # it is slow, not stalled. Start (again) the stall clock.
        protocol._canvasweb_backlog_since = since = now
    protocol._canvasweb_backlog_bytes = waiting
    stalled_for = now - since
    if waiting_before > limit("WS_SEND_BUFFER_HARD_BYTES") or stalled_for > limit("WS_SEND_STALL_SECONDS"):
        STATS["cut_off"] += 1
        logger.warning(
            "cutting off %s: %d bytes unread, none read for %.1f s (the client stopped reading)",
            getattr(protocol, "client_addr", "?"),
            waiting,
            stalled_for,
        )
        protocol._canvasweb_cut = True
        protocol.dropConnection(abort=True)
        return True
    return False


def apply_connection_limits(protocol: Any) -> None:
    """Set the per-connection Autobahn options (called once the handshake is accepted)."""
    frame_limit = int(limit("WS_MAX_FRAME_BYTES"))
    if frame_limit > 0:
        for name in ("maxMessagePayloadSize", "maxFramePayloadSize"):
            current = getattr(protocol, name, 0) or 0
            setattr(protocol, name, min(current, frame_limit) if current > 0 else frame_limit)
        # Fail with a close frame (1009 for an oversized message), not by dropping the TCP
        # connection: the client should learn why.
        protocol.failByDrop = False
    # Autobahn waits 1 s for the client's close reply, then aborts the TCP connection. A busy
    # client (still writing the rest of its oversized frame) misses that second, and the abort's
    # RST discards the close frame from its receive buffer before it is read: the client sees a
    # dropped connection with no code. Give the handshake the time a loaded client needs.
    protocol.closeHandshakeTimeout = limit("WS_CLOSE_HANDSHAKE_SECONDS")
    if limit("WS_WRITE_THROUGH"):
        write_through.enable(getattr(protocol, "transport", None))


def install() -> bool:
    """Patch Daphne's WebSocketProtocol (idempotent). False when Daphne is not installed."""
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # pragma: no cover - daphne is a dependency
        return False
    if getattr(WebSocketProtocol, "_canvasweb_guards", False):
        return True
    original_connect = WebSocketProtocol.onConnect
    original_send = WebSocketProtocol.serverSend

    def onConnect(self: Any, request: Any) -> Any:
        result = original_connect(self, request)
        apply_connection_limits(self)
        return result

    def serverSend(self: Any, content: bytes, binary: bool = False) -> None:
        if getattr(self, "_canvasweb_cut", False):
            return  # aborted: frames for it are dropped until Daphne sees the close
        incoming_limit = self.maxMessagePayloadSize
        self.maxMessagePayloadSize = 0  # the limit is for what clients send, not for what we send
        transport = getattr(self, "transport", None)
        before = buffered_bytes(transport) if transport is not None else 0
        try:
            original_send(self, content, binary)
        finally:
            self.maxMessagePayloadSize = incoming_limit
        after = buffered_bytes(transport) if transport is not None else 0
        check(self, frame_bytes=max(0, after - before))

    WebSocketProtocol.onConnect = onConnect
    WebSocketProtocol.serverSend = serverSend
    WebSocketProtocol._canvasweb_guards = True
    return True
