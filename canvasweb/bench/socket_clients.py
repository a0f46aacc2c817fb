"""In-process WebSocket clients for the benchmarks that time acks against the real ASGI app.

`join` opens a socket on a canvas and reads the welcome and the snapshot; `move_loop` sends
`node.move` in a closed loop (the next op `pause` seconds after the ack) until a deadline and returns
each ack's latency in ms. Used by bench_compile_stall and scripts/bench_commit_*.py.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any


async def join(application: Any, token: str, canvas_id: int, *, timeout: float = 30) -> Any:
    from channels.testing import WebsocketCommunicator

    ws = WebsocketCommunicator(
        application,
        f"/ws/canvases/{canvas_id}/",
        headers=[(b"origin", b"http://localhost"), (b"authorization", f"Token {token}".encode())],
    )
    connected, _ = await ws.connect()
    assert connected
    await ws.send_json_to({"type": "hello", "last_revision": None})
    await ws.receive_json_from(timeout)  # welcome
    await ws.receive_json_from(timeout)  # snapshot
    return ws


async def move_loop(
    ws: Any,
    node_id: str,
    *,
    deadline: float,
    timeout: float = 30,
    pause: float = 0.02,
    require_ack: bool = True,
) -> list[float]:
    """Ack latencies (ms) of `node.move`s sent one at a time until `time.monotonic()` passes `deadline`."""
    latencies: list[float] = []
    k = 0
    while time.monotonic() < deadline:
        k += 1
        t0 = time.perf_counter()
        await ws.send_json_to(
            {
                "type": "op",
                "client_op_id": uuid.uuid4().hex,
                "op": {"type": "node.move", "id": node_id, "x": float(k), "y": 1.0},
            }
        )
        while True:
            msg = await ws.receive_json_from(timeout)
            if msg["type"] in ("ack", "reject"):
                assert msg["type"] == "ack" or not require_ack, msg
                break
        latencies.append((time.perf_counter() - t0) * 1000)
        if pause:
            await asyncio.sleep(pause)
    return latencies
