"""One benchmark WebSocket client: connects, sends ops, and records acks and fan-out arrivals.

Every op carries a unique `client_op_id`; its send time is kept in the phase, and every `change`
event with that id arriving at another client gives one fan-out sample (arrival - send, same clock).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

ORIGIN = "http://127.0.0.1"


# --------------------------------------------------------------------------- clients
# --------------------------------------------------------------------------- clients
@dataclass
class PhaseState:
    name: str
    tag: str = ""  # unique per phase in a run: prefixes client_op_ids
    paced_rate: float | None = None
    window: int = 1  # unacked ops a client may have in flight (closed-loop phases)
    sent: dict[str, tuple[int, float]] = field(default_factory=dict)  # cid -> (client index, send time)
    acked: dict[str, float] = field(default_factory=dict)  # cid -> ack latency ms
    ack_revision: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    rejected: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    fanout: list[float] = field(default_factory=list)
    delivered_late: int = 0  # reached a client only through the `changes` answer to its catch_up
    fanout_cross: list[float] = field(default_factory=list)
    delivered: set = field(default_factory=set)  # (cid, receiver)
    # receiver -> the newest snapshot it got in this phase: the server answers a catch-up from too far
    # behind (over CATCH_UP_MAX_REVISIONS) with the whole state, which holds every earlier revision.
    snapshot_revision: dict[int, int] = field(default_factory=dict)
    waiters: dict[str, asyncio.Future] = field(default_factory=dict)
    drain_ms: float | None = None  # after the last send: until every ack and delivery was in
    drained: bool = False  # all of them arrived (else the 15-s bound or the phase's time limit hit)
    first_send: float | None = None
    last_ack: float | None = None
    # CPU seconds of the server processes (all threads, main threads) from the phase's start until it
    # drained (sync/server_cpu.py); None when not measured.
    server_cpu: tuple[float, float] | None = None


class BenchClient:
    def __init__(self, index: int, *, url: str, token: str, server: int, servers_of: dict[int, int]) -> None:
        self.index = index
        self.url = url
        self.token = token
        self.server = server
        self.servers_of = servers_of
        self.ws: ClientConnection | None = None
        self.phase: PhaseState | None = None
        self.reader: asyncio.Task | None = None
        self.node_id: str | None = None
        self.closed_reason: str | None = None
        self.revision = 0  # the newest revision this client has seen
        self.catch_up_since: int | None = None  # the `since` of the catch_up waiting for its answer

    async def connect(self) -> None:
        import websockets
        from websockets.typing import Origin

        ws = self.ws = await websockets.connect(
            self.url,
            origin=Origin(ORIGIN),
            additional_headers={"Authorization": f"Token {self.token}"},
            max_size=2**22,
            open_timeout=20,
        )
        await ws.send(json.dumps({"type": "hello", "last_revision": None}))
        welcome = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if welcome.get("type") != "welcome":
            raise RuntimeError(f"client {self.index}: expected welcome, got {welcome}")
        snapshot = json.loads(await asyncio.wait_for(ws.recv(), 20))
        self.revision = int(snapshot.get("revision") or 0)
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        import websockets

        try:
            async for raw in self._socket():
                now = time.perf_counter()
                phase = self.phase
                if phase is None:
                    continue
                msg = json.loads(raw)
                kind = msg.get("type")
                cid = msg.get("client_op_id")
                if kind == "change":
                    revision = msg.get("revision") or 0
                    await self._follow(revision - 1, revision)
                    self._delivered(phase, cid, now)
                elif kind == "changes":
                    # The answer to a catch_up, or a group commit of several revisions sent live.
                    answer = self.catch_up_since is not None and msg.get("from") == self.catch_up_since
                    if answer:
                        self.catch_up_since = None
                    else:
                        await self._follow(msg.get("from") or 0, msg.get("to") or 0)
                    for event in msg.get("events") or ():
                        if self._delivered(phase, event.get("client_op_id"), now) and answer:
                            phase.delivered_late += 1
                    self.revision = max(self.revision, msg.get("to") or 0)
                elif kind in ("ack", "reject") and cid in phase.sent:
                    if kind == "ack":
                        phase.acked[cid] = (now - phase.sent[cid][1]) * 1000
                        phase.ack_revision[cid] = msg.get("revision")
                        phase.duplicates += int(bool(msg.get("duplicate")))
                        phase.last_ack = now
                    else:
                        phase.rejected[(msg.get("error") or {}).get("code", "?")] += 1
                    fut = phase.waiters.pop(cid, None)
                    if fut is not None and not fut.done():
                        fut.set_result(kind)
                elif kind == "error":
                    phase.errors[f"error:{(msg.get('error') or {}).get('code', '?')}"] += 1
                elif kind == "snapshot":  # too far behind: the whole state instead of the changes
                    self.catch_up_since = None
                    revision = int(msg.get("revision") or 0)
                    phase.snapshot_revision[self.index] = max(
                        phase.snapshot_revision.get(self.index, 0), revision
                    )
                    self.revision = max(self.revision, revision)
                elif kind == "resync":
                    phase.errors["resync"] += 1
        except websockets.ConnectionClosed as exc:
            self.closed_reason = f"closed {exc.code}"
        except Exception as exc:  # pragma: no cover - reported, never hangs the run
            self.closed_reason = f"reader failed: {exc!r}"

    async def _follow(self, before: int, last: int) -> None:
        """Live revisions after `before` up to `last` arrived. One past the newest seen is a gap, as
        docs/protocol.md tells clients to handle it (with two servers a later commit can overtake an
        earlier one, which the socket then skips): catch up."""
        if before > self.revision and self.catch_up_since is None:
            self.catch_up_since = self.revision
            await self._socket().send(json.dumps({"type": "catch_up", "since": self.revision}))
        self.revision = max(self.revision, last)

    def _delivered(self, phase: PhaseState, cid: str | None, now: float) -> bool:
        origin = phase.sent.get(cid) if cid else None
        if origin is None or origin[0] == self.index or (cid, self.index) in phase.delivered:
            return False
        phase.delivered.add((cid, self.index))
        ms = (now - origin[1]) * 1000
        phase.fanout.append(ms)
        if self.servers_of[origin[0]] != self.server:
            phase.fanout_cross.append(ms)
        return True

    def _socket(self) -> ClientConnection:
        if self.ws is None:  # the callers run only after connect(); they report the failure
            raise RuntimeError(f"client {self.index} is not connected")
        return self.ws

    def _op(self, k: int) -> dict:
        if self.node_id is None or k % 5 == 0:
            self.node_id = str(uuid.uuid4())
            return {
                "type": "node.create",
                "node": {
                    "id": self.node_id,
                    "content": f"bench client {self.index} op {k}",
                    "x": float(self.index * 50),
                    "y": float(k * 10),
                },
            }
        return {"type": "node.move", "id": self.node_id, "x": float(self.index * 50 + k), "y": float(k * 10)}

    async def send_op(self, phase: PhaseState, k: int, *, wait: bool, timeout: float) -> None:
        ack = await self.start_op(phase, k, wait=wait)
        if ack is not None:
            await self.await_ack(phase, ack, timeout=timeout)

    async def start_op(self, phase: PhaseState, k: int, *, wait: bool) -> asyncio.Future | None:
        """Send op `k`; with `wait`, a future that the reader resolves with its ack or reject."""
        cid = f"{phase.tag}-{self.index}-{k}-{uuid.uuid4().hex[:12]}"
        frame = json.dumps({"type": "op", "client_op_id": cid, "op": self._op(k)})
        fut = asyncio.get_running_loop().create_future() if wait else None
        if fut is not None:
            phase.waiters[cid] = fut
        now = time.perf_counter()
        phase.sent[cid] = (self.index, now)
        if phase.first_send is None:
            phase.first_send = now
        try:
            await self._socket().send(frame)
        except Exception:
            phase.errors["send_failed"] += 1
            phase.waiters.pop(cid, None)
            return None
        return fut

    @staticmethod
    async def await_ack(phase: PhaseState, ack: asyncio.Future, *, timeout: float) -> None:
        try:
            await asyncio.wait_for(ack, timeout)
        except TimeoutError:
            phase.errors["ack_timeout"] += 1

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 5)
            except (TimeoutError, asyncio.CancelledError):
                self.reader.cancel()
