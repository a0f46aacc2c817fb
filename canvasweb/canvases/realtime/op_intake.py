"""Ops on the canvas socket: admission (rate limit, queue bound), group commit, acks in order.

Admission happens as frames arrive; the database work runs in this socket's op worker, one op at
a time and in order, through the canvas's committer (realtime/committer.py) and the services.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.visibility import filter_event
from canvasweb.common.errors import BadMessage, CanvasError, RateLimited

from .committer import committer_for
from .socket_base import CanvasSocket, config_int

logger = logging.getLogger(__name__)

# When the op queue is full: about the time a few queued ops take to apply.
QUEUE_FULL_RETRY_MS = 200


class OpHandlers(CanvasSocket):
    """`op` frames: admitted on arrival, applied by the canvas committer, acked in order."""

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
                f"more than {config_int('WS_OPS_PER_SECOND')} ops per second; this op was not applied, resend it",
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
        self.unanswered.append(future)
        if self.op_worker is None or self.op_worker.done():
            self.op_worker = asyncio.ensure_future(self._op_worker())

    async def _op_worker(self) -> None:
        while not self.op_queue.empty():
            client_op_id, future = self.op_queue.get_nowait()
            try:
                await self._answer_op(client_op_id, future)
            finally:
                self.unanswered.popleft()
                self.op_queue.task_done()

    async def acks_first(self) -> None:
        """Wait until every op of this socket whose outcome is known has been answered, so that the
        author gets its ack before the change event of its op (this process's sockets get the change
        straight from the committer, realtime/local_fanout.py, as soon as the ack is due)."""
        while (
            self.unanswered
            and self.unanswered[0].done()
            and self.op_worker is not None
            and not self.op_worker.done()
        ):
            await asyncio.sleep(0)  # the op worker is ready to run: a hop or two

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
