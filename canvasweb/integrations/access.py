"""Who is calling from outside the page, and may they use this canvas?

Both interfaces (the MCP server and the OpenAI-compatible endpoint) authenticate
with the user's DRF API token and then ask the same questions the page asks:
is the user a member (role), and does the canvas let tools outside the page in
(`agent_policy.external_access`). Refusals go to the security log like every
other refusal.
"""

from __future__ import annotations

from typing import Any

from rest_framework.authtoken.models import Token

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases.models import Canvas
from canvasweb.common.errors import CanvasError, Forbidden, InvalidOperation, NotFound
from canvasweb.history.models import SecurityEvent

MAX_TOKEN_CHARS = 200


class Unauthenticated(CanvasError):
    code = "UNAUTHENTICATED"
    http_status = 401


def token_from_header(value: str | None) -> str | None:
    """The key from `Authorization: Bearer <key>` (or DRF's `Token <key>`), or None."""
    if not value:
        return None
    scheme, _, key = value.strip().partition(" ")
    if scheme.lower() not in ("bearer", "token"):
        return None
    key = key.strip()
    return key if key and len(key) <= MAX_TOKEN_CHARS else None


def user_for_token(key: str | None):
    """The active user who owns this API token; raises Unauthenticated otherwise."""
    if not key:
        raise Unauthenticated(
            "an API token is required: send 'Authorization: Bearer <token>' "
            "(get one with POST /api/auth/token/ or manage.py api_token)"
        )
    token = Token.objects.select_related("user").filter(key=key[:MAX_TOKEN_CHARS]).first()
    if token is None or not token.user.is_active:
        raise Unauthenticated("invalid API token")
    return token.user


def canvas_id_from(value: Any, *, field: str = "canvas") -> int:
    """A canvas id from `canvas:<id>`, `<id>` or an int; InvalidOperation otherwise."""
    if isinstance(value, bool):
        raise InvalidOperation("the canvas id must be a positive integer", field=field)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip()
        if text.lower().startswith("canvas:"):
            text = text[len("canvas:") :]
        if not text.isascii() or not text.isdigit() or len(text) > 18:
            raise InvalidOperation(f"{field} must name a canvas as canvas:<id>, e.g. canvas:3", field=field)
        number = int(text)
    else:
        raise InvalidOperation(f"{field} must name a canvas as canvas:<id>", field=field)
    if number <= 0:
        raise InvalidOperation("the canvas id must be a positive integer", field=field)
    return number


def external_canvas(*, user, canvas_id: int, channel: str) -> tuple[Canvas, str]:
    """The canvas and the user's role, if the user is a member and external access is on."""
    try:
        canvas, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    except NotFound as exc:
        record_refusal(user=user, canvas_id=canvas_id, channel=channel, op_type=f"{channel}.open", error=exc)
        raise
    if not canvas.agent_external_access:
        error = Forbidden("MCP and API access is switched off on this canvas (agent_policy.external_access)")
        record_refusal(
            user=user, canvas_id=canvas_id, channel=channel, op_type=f"{channel}.open", error=error
        )
        raise error
    return canvas, role


def record_refusal(
    *,
    user,
    canvas_id: int | None,
    channel: str,
    op_type: str,
    error: CanvasError,
    detail: dict | None = None,
    conversation_id: int | None = None,
) -> None:
    SecurityEvent.objects.create(
        canvas_id_ref=canvas_id if isinstance(canvas_id, int) and canvas_id < 2**62 else None,
        user=user if getattr(user, "pk", None) else None,
        actor_kind="user",
        channel=channel[:20],
        op_type=op_type[:40],
        code=error.code[:20],
        reason=error.message,
        detail={"field": error.field, **(detail or {})},
        conversation_id=conversation_id,
    )
