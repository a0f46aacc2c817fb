"""Write-through for Daphne's WebSocket connections: send a frame at once when nothing is queued.

Twisted's `FileDescriptor.write` never sends: it appends to the transport's buffer and registers the
socket for writing (`startWriting`, an `epoll_ctl` through the asyncio reactor); a later reactor turn
calls `doWrite`, which sends and unregisters it (`stopWriting`, `epoll_ctl` again). Daphne pays that
per frame per socket: at 50 clients about 9 % of the event loop's samples (docs/benchmarks.md,
issue 13, stop 41). asyncio's own transports try `send()` first when their buffer is empty.

`enable(transport)` gives one plain TCP server transport that behaviour: when its buffer is empty the
frame is sent right away; whatever the kernel does not take (a partial send, EAGAIN), and any write
while bytes are still queued, goes to Twisted's buffer as before, so the order of bytes never
changes. A send error (closed or reset socket) is not handled here: the frame is buffered and
Twisted's own write path meets the error and closes the connection as it always did. TLS transports
and other transport types are left alone. Off with `WS_WRITE_THROUGH` = 0 (settings.CANVASWEB or
CANVASWEB_WS_WRITE_THROUGH); `daphne_guards.install` applies it when a WebSocket handshake arrives.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

STATS: Counter[str] = Counter()


def _tcp_server_class() -> type | None:
    try:
        from twisted.internet.tcp import Server
    except ImportError:  # pragma: no cover - twisted comes with daphne
        return None
    return Server


def write(transport: Any, data: bytes) -> None:
    """`transport.write(data)`, sending at once when nothing is queued before it."""
    if (
        isinstance(data, bytes)
        and data
        and transport.connected
        and not transport.disconnecting
        and not transport._writeDisconnected
        and not transport.TLS
        and not transport._tempDataLen
        and transport.offset == len(transport.dataBuffer)
    ):
        # Twisted's own send: up to SEND_LIMIT bytes; 0 on EAGAIN; an exception object on an error.
        sent = transport.writeSomeData(data)
        if type(sent) is int and sent > 0:
            if sent == len(data):
                STATS["sent"] += 1
                return
            STATS["partial"] += 1
            data = data[sent:]
        else:
            STATS["buffered"] += 1
    type(transport).write(transport, data)  # Twisted's buffered write (also raises on non-bytes)


def enable(transport: Any) -> bool:
    """Make `transport.write` write through; True when done. Only for a plain (non-TLS) TCP server
    connection of Twisted; anything else keeps its own write."""
    server: Any = _tcp_server_class()
    if server is None or type(transport) is not server or getattr(transport, "TLS", True):
        return False
    if "write" not in vars(transport):
        transport.write = functools.partial(write, transport)
    return True


def disable(transport: Any) -> None:
    vars(transport).pop("write", None)
