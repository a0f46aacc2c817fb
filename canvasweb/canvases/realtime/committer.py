"""Group commit: one committer per canvas per process applies the ops of all its sockets together.

A socket submits each accepted op and gets a future; the committer drains
everything queued for the canvas (every socket, in arrival order), applies it
with `services.apply_operations` in one transaction on a commit thread of its
own (below), then resolves the futures (each socket acks in its own order) and hands the
batch's change events to the canvas's broadcaster. While one batch commits the
next one queues, so a busy canvas commits in larger batches instead of in a
longer line.

The broadcaster sends each batch to the channel layer as one message
(`canvas.changes`, every socket turns it back into one `changes` frame, or a
`change` frame per revision) from an async task: no Redis round trip on the
database thread, and batches leave in commit order. The canvas's sockets in this
process get it at once through their relay (realtime/local_fanout.py).

Commits run on dedicated commit threads (`GROUP_COMMIT_THREADS`, default 1; a canvas always uses
the same one), not on the one thread Channels shares for all `database_sync_to_async` work, so a
commit does not queue behind another socket's hello, catch-up or sync check, nor those behind
commits. Each thread keeps its own Django connection, opened, aged and health-checked around every
call as Channels does (`DatabaseSyncToAsync`), except that a connection that committed the last
batch moments ago is not health-checked again (realtime/commit_health.py). A canvas still commits one batch at a time, so its
order is unchanged. 0 puts commits back on Channels' shared thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from channels.db import DatabaseSyncToAsync, database_sync_to_async
from channels.layers import get_channel_layer

from canvasweb.canvases import services
from canvasweb.common.config import canvasweb_config

from . import commit_health
from .groups import canvas_group
from .local_fanout import local_relay

logger = logging.getLogger(__name__)

BROADCAST_TIMEOUT_SECONDS = 2.0


def max_batch() -> int:
    return int(canvasweb_config().get("GROUP_COMMIT_MAX_OPS", 200))


def per_socket() -> int:
    return int(canvasweb_config().get("GROUP_COMMIT_OPS_PER_SOCKET", 8))


def commit_threads() -> int:
    return int(canvasweb_config().get("GROUP_COMMIT_THREADS", 1))


_EXECUTORS: list[ThreadPoolExecutor] = []
_EXECUTORS_LOCK = threading.Lock()


def commit_executor(canvas_id: int) -> ThreadPoolExecutor | None:
    """The commit thread of this canvas (always the same one for a canvas); None: Channels' shared
    database thread (`GROUP_COMMIT_THREADS` = 0)."""
    count = commit_threads()
    if count <= 0:
        return None
    with _EXECUTORS_LOCK:
        while len(_EXECUTORS) < count:
            _EXECUTORS.append(
                ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"canvasweb-commit-{len(_EXECUTORS)}")
            )
    return _EXECUTORS[canvas_id % count]


def _on_commit_thread(canvas_id: int, func: Any) -> Any:
    executor = commit_executor(canvas_id)
    if executor is None:
        return database_sync_to_async(func)
    # Not thread-sensitive: this executor's one thread, with close_old_connections() before and after.
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=executor)


@dataclass
class _Pending:
    request: services.OpRequest
    future: asyncio.Future[Any]


class CanvasCommitter:
    def __init__(self, canvas_id: int) -> None:
        self.canvas_id = canvas_id
        self.loop = asyncio.get_running_loop()
        # Per source (socket), in arrival order; a batch takes a few ops from each source in turn, so
        # one socket's burst cannot make everyone else's next op wait behind it.
        self.queue: dict[object, list[_Pending]] = {}
        self.task: asyncio.Task[Any] | None = None
        self.outbox: asyncio.Queue[Any] = asyncio.Queue()
        self.sender: asyncio.Task[Any] | None = None
        self.batches = 0
        self.ops = 0

    def submit(self, request: services.OpRequest, *, source: object = None) -> asyncio.Future[Any]:
        future = asyncio.get_running_loop().create_future()
        self.queue.setdefault(source, []).append(_Pending(request=request, future=future))
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._run())
        return future

    async def _run(self) -> None:
        while self.queue:
            await self._commit(self._take_batch())

    def _take_batch(self) -> list[_Pending]:
        limit, share = max_batch(), per_socket()
        if len(self.queue) == 1:
            share = limit  # one busy socket alone: no one to be fair to, take its whole backlog
        batch: list[_Pending] = []
        for source in list(self.queue):
            pending = self.queue[source]
            take = min(share, limit - len(batch))
            batch.extend(pending[:take])
            del pending[:take]
            if not pending:
                del self.queue[source]
            else:  # back of the line for the next batch
                self.queue[source] = self.queue.pop(source)
            if len(batch) >= limit:
                break
        return batch

    async def _commit(self, batch: list[_Pending]) -> None:
        requests = [p.request for p in batch]
        try:
            outcome = await _on_commit_thread(self.canvas_id, commit_health.apply_operations)(
                canvas_id=self.canvas_id, requests=requests
            )
        except Exception:
            if len(batch) > 1:
                # The batch failed as a whole (nothing committed): find the op that breaks it by
                # applying each alone, so the others still commit.
                logger.warning(
                    "group commit of %s ops on canvas %s failed; retrying one by one",
                    len(batch),
                    self.canvas_id,
                    exc_info=True,
                )
                for pending in batch:
                    await self._commit([pending])
                return
            logger.exception("op failed on canvas %s", self.canvas_id)
            outcome = None
        self.batches += 1
        self.ops += len(batch)
        for i, pending in enumerate(batch):
            if pending.future.done():  # the socket went away
                continue
            if outcome is None:
                pending.future.set_exception(RuntimeError("the batch failed"))
            else:
                pending.future.set_result(outcome.results[i])
        if outcome is not None and outcome.events:
            self._broadcast(outcome.events)

    def _broadcast(self, events: list[dict[str, Any]]) -> None:
        # `batch` names this commit for the per-role frame cache (realtime/fanout.py).
        message: dict[str, Any] = {"type": "canvas.changes", "events": events, "batch": uuid.uuid4().hex}
        layer = get_channel_layer()
        relay = local_relay(layer, self.canvas_id) if layer is not None else None
        if relay is not None:
            message["sender"] = relay.channel  # lets the relay tell its own batches from other processes'
        if relay is not None and relay.hands_over_directly():
            # This process's sockets get it now, without a round trip through the layer (nor behind the
            # previous batch's); the copy the layer brings back to the relay is skipped by its `origin`.
            # Two turns of the loop first: the op workers woken by the results above (a callback, then
            # the task) send their acks before the fan-out's frames, so an ack does not wait behind them.
            message["origin"] = relay.channel
            self.loop.call_soon(self.loop.call_soon, relay.deliver, message)
        if layer is not None:
            self.outbox.put_nowait(message)
            if self.sender is None or self.sender.done():
                self.sender = asyncio.ensure_future(self._send_loop())

    async def _send_loop(self) -> None:
        layer = get_channel_layer()
        group = canvas_group(self.canvas_id)
        while not self.outbox.empty():
            message = self.outbox.get_nowait()
            try:
                # Delivery is at most once; a lost batch is caught up by revision (docs/reliability.md).
                await asyncio.wait_for(layer.group_send(group, message), BROADCAST_TIMEOUT_SECONDS)
            except Exception:
                events = message["events"]
                logger.warning(
                    "broadcast of canvas %s revisions %s-%s failed; clients will catch up",
                    self.canvas_id,
                    events[0]["revision"],
                    events[-1]["revision"],
                    exc_info=True,
                )


_COMMITTERS: dict[tuple[int, int], CanvasCommitter] = {}


def committer_for(canvas_id: int) -> CanvasCommitter:
    """This event loop's committer for the canvas (tests run many loops in one process)."""
    loop = asyncio.get_running_loop()
    key = (id(loop), canvas_id)
    committer = _COMMITTERS.get(key)
    if committer is None or committer.loop is not loop:
        if len(_COMMITTERS) > 10_000:
            for stale_key in [
                k for k, c in _COMMITTERS.items() if not c.queue and (c.task is None or c.task.done())
            ]:
                del _COMMITTERS[stale_key]
        committer = _COMMITTERS[key] = CanvasCommitter(canvas_id)
    return committer
