"""Carrying a SyncClient's frames: real WebSockets (`WebSocketRunner`) or a channels
`WebsocketCommunicator` on the in-process ASGI app (`CommunicatorRunner`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .client import SyncClient

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection


class _QueueTransport:
    """Frames go into an asyncio queue that the socket's writer task drains."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self.open = True

    def send(self, frame: dict) -> None:
        if self.open:
            self.queue.put_nowait(json.dumps(frame, ensure_ascii=False))


class WebSocketRunner:
    """Keeps one SyncClient connected over real WebSockets (the `websockets` package).

    `urls` is a callable returning the URL for the next connection attempt (so a
    client can move between server processes); `headers` go on every handshake.
    Reconnects with exponential backoff (50 ms .. 2 s, jittered). `kill()` drops
    the TCP connection without a close handshake (as a crashed network would).
    """

    def __init__(
        self,
        client: SyncClient,
        *,
        urls: Callable[[], str],
        headers: dict,
        origin: str,
        rng: random.Random | None = None,
        tick_interval: float = 0.2,
        max_backoff: float = 2.0,
        open_timeout: float = 5.0,
    ):
        self.client = client
        self.urls = urls
        self.headers = headers
        self.origin = origin
        self.rng = rng or random.Random()
        self.tick_interval = tick_interval
        self.max_backoff = max_backoff
        self.open_timeout = open_timeout
        self.ws: ClientConnection | None = None
        self.transport: _QueueTransport | None = None
        self.stopping = False
        self.connected_event = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.failed_connects = 0
        self.connect_errors: Counter = Counter()
        self.message_log: list[tuple[float, str | bytes]] = []  # (time, frame type) when enabled
        self.record_times = False

    def start(self) -> WebSocketRunner:
        self.task = asyncio.ensure_future(self._run())
        return self

    async def stop(self) -> None:
        self.stopping = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    def kill(self) -> None:
        """Drop the connection abruptly (no close frame): in-flight frames both ways are lost."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.transport.abort()

    async def _run(self) -> None:
        import websockets
        from websockets.typing import Origin

        attempt = 0
        while not self.stopping:
            url = self.urls()
            try:
                ws = self.ws = await websockets.connect(
                    url,
                    origin=Origin(self.origin),
                    additional_headers=self.headers,
                    open_timeout=self.open_timeout,
                    max_size=16 * 1024 * 1024,
                    ping_interval=None,
                    close_timeout=1,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # refused, 500 during a Redis outage, process down...
                self.failed_connects += 1
                self.connect_errors[type(exc).__name__] += 1
                attempt += 1
                delay = min(self.max_backoff, 0.05 * 2**attempt) * (0.8 + 0.4 * self.rng.random())
                await asyncio.sleep(delay)
                continue
            attempt = 0
            transport = self.transport = _QueueTransport()
            self.client.attach(transport)
            self.connected_event.set()
            writer = asyncio.ensure_future(self._writer(ws, transport))
            ticker = asyncio.ensure_future(self._ticker())
            code = None
            try:
                async for message in ws:
                    if self.record_times:
                        self.message_log.append((time.monotonic(), message))
                    self.client.handle(message)
            except asyncio.CancelledError:
                raise
            except Exception:
                pass
            finally:
                code = getattr(ws, "close_code", None)
                transport.open = False
                writer.cancel()
                ticker.cancel()
                self.connected_event.clear()
                self.client.detach(code)
                with contextlib.suppress(Exception):
                    await ws.close()
            if self.client.revoked:
                return
            await asyncio.sleep(0.02 + 0.05 * self.rng.random())

    async def _writer(self, ws, transport: _QueueTransport) -> None:
        with contextlib.suppress(Exception):
            while True:
                text = await transport.queue.get()
                await ws.send(text)

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(self.tick_interval)
            self.client.tick()


async def wait_until(predicate: Callable[[], bool], *, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(interval)
    return predicate()


def all_settled(clients: Iterable[SyncClient]) -> bool:
    return all(c.settled for c in clients)


class CommunicatorRunner:
    """Runs a SyncClient over a channels `WebsocketCommunicator` (the in-process ASGI app).

    `await runner.pump(0.2)` moves frames both ways until nothing arrives for that long.
    """

    def __init__(self, client: SyncClient, communicator):
        self.client = client
        self.ws = communicator
        self.outbox: list[dict] = []
        self.closed_code: int | None = None

    def send(self, frame: dict) -> None:
        self.outbox.append(frame)

    async def connect(self) -> bool:
        connected, _ = await self.ws.connect(timeout=5)
        if connected:
            self.client.attach(self)
        return connected

    async def pump(self, quiet: float = 0.2, *, limit: float = 10.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            while self.outbox:
                await self.ws.send_json_to(self.outbox.pop(0))
            # receive_output() cancels the application on timeout: ask receive_nothing() first.
            if await self.ws.receive_nothing(timeout=quiet, interval=0.01):
                if not self.outbox:
                    return
                continue
            output = await self.ws.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                self.closed_code = output.get("code")
                self.client.detach(self.closed_code)
                return
            if output["type"] == "websocket.send":
                self.client.handle(output.get("text") or output.get("bytes"))
                self.client.tick()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.disconnect()
