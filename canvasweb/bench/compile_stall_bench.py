"""Does a long chat compile on one canvas delay anyone's edits on another?

In one process (the way one Daphne serves both canvases), over the canvas
WebSocket protocol (channels' WebsocketCommunicator against the real ASGI
application, in-memory channel layer, a temporary SQLite file):

* `baseline`: a client on canvas A sends `node.move` ops in a closed loop
  (next op 20 ms after the previous ack) for `--seconds`; ack latency measured;
* `during`: the same while a client on canvas B asks for a `context.preview`
  whose compile takes `--compile-seconds` of pure-Python CPU (the real compile
  plus a busy loop standing in for a very large canvas), in the configured
  compile mode (`process` by default: a compile worker process);
* `during_thread`: the same with `COMPILE_MODE=thread` (the compile thread pool
  of the first issue-13 round: off the database thread, but sharing the GIL);
* `during_on_db_thread`: the same, with the compile run on the database thread
  as before issue 13 (`database_sync_to_async`), for comparison.

The worker processes are started and warmed before the first phase (a spawn
and `django.setup()` take a second or two), so no phase pays for that.
"""

from __future__ import annotations

import asyncio
import functools
import statistics
import time
import uuid
from typing import Any

from canvasweb.bench.common import percentile, rnd
from canvasweb.bench.socket_clients import join, move_loop


def _busy(seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < deadline:
        for i in range(2000):
            x += i * i


def _slow_preview(compile_seconds: float, **kwargs):
    """The real preview after `compile_seconds` of CPU (module level: it is sent to a worker by reference)."""
    from canvasweb.chat import services

    _busy(compile_seconds)
    original = getattr(services, "_stall_bench_original", services.context_preview)
    return original(**kwargs)


async def _run(*, seconds: float, compile_seconds: float, on_db_thread: bool | None) -> dict[str, Any]:
    from channels.db import database_sync_to_async
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from canvasweb.canvases import services as canvas_services
    from canvasweb.chat import services as chat_services
    from canvasweb.chat import turns
    from canvasweb.config.asgi import application

    def setup():
        user = get_user_model().objects.create_user(username=f"stall-{uuid.uuid4().hex[:8]}", password=None)
        token = Token.objects.get_or_create(user=user)[0].key
        a = canvas_services.canvas_create(user=user, name="edits")
        b = canvas_services.canvas_create(user=user, name="long compile")
        from canvasweb.canvases.actors import user_actor

        node = canvas_services.apply_operation(
            actor=user_actor(user),
            canvas_id=a.pk,
            op={"type": "node.create", "node": {"content": "moving 节点", "x": 0, "y": 0}},
        ).changes[0]["id"]
        return token, a.pk, b.pk, node

    token, canvas_a, canvas_b, node_id = await database_sync_to_async(setup)()

    editor = await join(application, token, canvas_a, timeout=10)
    asker = await join(application, token, canvas_b, timeout=10)
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    original = chat_services.context_preview
    original_off = turns.off_db_thread

    preview_task = None
    if on_db_thread is not None:
        # A bench-only module attribute (not declared by chat.services); _slow_preview reads it back.
        vars(chat_services)["_stall_bench_original"] = original
        chat_services.context_preview = functools.partial(_slow_preview, compile_seconds)
        if on_db_thread:

            async def on_db(fn, /, *args, key=0, **kwargs):
                return await database_sync_to_async(fn)(*args, **kwargs)

            turns.off_db_thread = on_db
        await asker.send_json_to({"type": "context.preview", "request_id": "p", "text": "部署 plan"})
        preview_task = asyncio.ensure_future(asker.receive_json_from(compile_seconds * 4 + 30))
        await asyncio.sleep(0.2)
    try:
        latencies.extend(
            await move_loop(
                editor, node_id, deadline=deadline, timeout=compile_seconds * 4 + 30, require_ack=False
            )
        )
        if preview_task is not None:
            reply = await preview_task
            assert reply["type"] == "context.preview", reply
    finally:
        chat_services.context_preview = original
        turns.off_db_thread = original_off
        await editor.disconnect()
        await asker.disconnect()
    return {
        "ops": len(latencies),
        "ack_p50_ms": rnd(statistics.median(latencies), 2),
        "ack_p90_ms": rnd(percentile(latencies, 0.9), 2),
        "ack_max_ms": rnd(max(latencies), 1),
    }


def run(*, seconds: float, compile_seconds: float, phases: tuple[str, ...] | None = None) -> dict[str, Any]:
    from django.conf import settings

    from canvasweb.chat import executor

    configured = executor.mode()
    plan = [
        ("baseline", None, configured),
        ("during", False, configured),
        ("during_thread", False, "thread"),
        ("during_on_db_thread", True, configured),
    ]
    rows: dict[str, Any] = {}
    saved = settings.CANVASWEB
    try:
        if configured == "process":  # start and warm every worker before measuring anything
            for key in range(max(1, int(settings.CANVASWEB.get("COMPILE_WORKERS", 2)))):
                executor.run(executor.worker_info, key=key)
        for name, on_db, mode in plan:
            if phases and name not in phases:
                continue
            settings.CANVASWEB = {**saved, "COMPILE_MODE": mode}
            rows[name] = asyncio.run(
                _run(seconds=seconds, compile_seconds=compile_seconds, on_db_thread=on_db)
            )
            rows[name]["compile_mode"] = "database thread" if on_db else mode
    finally:
        settings.CANVASWEB = saved
        executor.shutdown()
    base = rows.get("baseline", {}).get("ack_p50_ms")
    for name in rows:
        if name != "baseline":
            rows[name]["p50_over_baseline"] = rnd(rows[name]["ack_p50_ms"] / base, 2) if base else None
    return rows
