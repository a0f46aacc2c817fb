"""Fan a committed change out to every socket on the canvas.

Called from `transaction.on_commit`, so nobody hears of a change that did not
commit. Delivery is at most once: if the layer is down the change is still in
the database and clients catch up by revision, so a failure here is logged,
never raised into the write.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import canvas_group

logger = logging.getLogger(__name__)


BROADCAST_TIMEOUT_SECONDS = 2.0


async def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    # This runs inside the write's thread (transaction.on_commit): a hung Redis must not hold up the
    # ack or the process's other database work. The change is committed; clients catch up.
    await asyncio.wait_for(layer.group_send(group, message), BROADCAST_TIMEOUT_SECONDS)


def broadcast_change(*, canvas_id: int, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(_group_send)(layer, canvas_group(canvas_id), {"type": "canvas.change", "event": event})
    except Exception:
        logger.warning(
            "broadcast of canvas %s revision %s failed; clients will catch up",
            canvas_id,
            event.get("revision"),
            exc_info=True,
        )
