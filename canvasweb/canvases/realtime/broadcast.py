"""Fan a committed change out to every socket on the canvas.

Called from `transaction.on_commit`, so nobody hears of a change that did not
commit. Delivery is at most once: if the layer is down the change is still in
the database and clients catch up by revision, so a failure here is logged,
never raised into the write.
"""
from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import canvas_group

logger = logging.getLogger(__name__)


def broadcast_change(*, canvas_id: int, event: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(canvas_group(canvas_id), {"type": "canvas.change", "event": event})
    except Exception:
        logger.warning("broadcast of canvas %s revision %s failed; clients will catch up", canvas_id,
                       event.get("revision"), exc_info=True)
