"""Refuse WebSocket frames holding lone surrogates, NUL characters, integers too large for a float, NaN or Infinity.

Frames are parsed with NaN / Infinity allowed so that an op holding one can still be answered by its
`client_op_id`. The other values are well-formed JSON but would fail deep inside a handler (the audit
hash, a float check). An op gets `reject` INVALID naming the field inside the op; a `chat.send` gets
`chat.error` INVALID with its `request_id` (and `message_id: null`), as every other refused question
does, so the chat panel that waits for that id is released; any other frame an `error` naming the field
in the frame (BAD_MESSAGE for NaN / Infinity, which are not JSON; INVALID for the rest), with the
frame's `request_id` when it has a usable one (`context.preview`: the preview waits for that id). The
socket stays open.
"""

from __future__ import annotations

from typing import Any

from canvasweb.common.errors import BadMessage, InvalidOperation
from canvasweb.common.json_safety import find_unsafe, has_lone_surrogate


def unsafe_frame_reply(message: dict[str, Any]) -> dict[str, Any] | None:
    """The frame to answer with, or None when `message` is safe to hand to its handler."""
    # NaN / Infinity first: not JSON, like any other unparsable frame, whatever else the frame holds.
    error_class: type[BadMessage | InvalidOperation] = BadMessage
    found = find_unsafe(message, only_non_finite=True)
    if found is None:
        found = find_unsafe(message)
        error_class = InvalidOperation
    if found is None:
        return None
    path, text = found
    client_op_id = message.get("client_op_id")
    # A NUL character can be echoed back (escaped) but not stored: such an id gets its reject too,
    # naming client_op_id as REST does; a lone surrogate cannot even be echoed.
    op_id_ok = (
        isinstance(client_op_id, str)
        and 1 <= len(client_op_id) <= 64
        and not has_lone_surrogate(client_op_id)
    )
    if message.get("type") == "op" and op_id_ok:
        if path == "op" or path.startswith(("op.", "op[")):  # "op.x", or "op[0]" when the body is a list
            error = InvalidOperation(text, field=path[2:].lstrip(".") or None)
            return {"type": "reject", "client_op_id": client_op_id, "error": error.as_dict()}
        if path == "client_op_id":
            error = InvalidOperation(text, field=path)
            return {"type": "reject", "client_op_id": client_op_id, "error": error.as_dict()}
    request_id = message.get("request_id")
    if not (isinstance(request_id, str) and len(request_id) <= 64 and not has_lone_surrogate(request_id)):
        request_id = None
    if message.get("type") == "chat.send" and path != "request_id":
        error = InvalidOperation(text, field=path or None)
        return {"type": "chat.error", "request_id": request_id, "message_id": None, "error": error.as_dict()}
    reply: dict[str, Any] = {"type": "error", "error": error_class(text, field=path or None).as_dict()}
    if request_id is not None and path != "request_id":
        reply["request_id"] = request_id
    return reply
