"""Server-rendered entry points: the single-page app shell and a health check.

The SPA (templates/app.html, built from frontend/) does its own routing and
talks to /api/ and /ws/. These views only serve the shell with a CSRF cookie
so the app's first POST (login) can send the token.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_safe

from canvasweb.canvases.serialization import user_ref
from canvasweb.common.config import canvasweb_config

logger = logging.getLogger(__name__)

HEALTH_TIMEOUT_SECONDS = 3.0


@require_safe
@never_cache
@ensure_csrf_cookie
def app(request, canvas_id: int | None = None):
    """The SPA shell for /, /login/ and /canvases/<id>/ (membership is checked by the API, not here)."""
    # window.__canvasweb (frontend/src/lib/testHooks.ts) exists only where CANVASWEB_TEST_HOOKS is on:
    # the browser tests and the browser benchmark, never a normal deployment.
    # The shell says who is logged in (or null), so the first load needs no /api/auth/me/ request,
    # whose 401 on the login page every browser would log as an error.
    user = request.user if request.user.is_authenticated else None
    return render(
        request,
        "app.html",
        {
            "canvas_id": canvas_id,
            "test_hooks": bool(canvasweb_config().get("TEST_HOOKS")),
            "current_user": user_ref(user),
        },
    )


def _check_db() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def _check_channel_layer() -> None:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    channel = await layer.new_channel("healthz.")
    token = secrets.token_hex(8)
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    message = await layer.receive(channel)
    if message.get("token") != token:
        raise RuntimeError("channel layer returned the wrong message")


async def _probe(name: str, check) -> str:
    try:
        await asyncio.wait_for(check(), timeout=HEALTH_TIMEOUT_SECONDS)
        return "ok"
    except Exception as exc:  # report the kind of failure, never its details (URLs, passwords)
        logger.warning("health check %s failed", name, exc_info=True)
        return f"error: {type(exc).__name__}"


@require_safe
@never_cache
async def healthz(request):
    """{"ok": bool, "db": "ok" | "error: …", "channel_layer": "ok" | "error: …"}; 503 unless both are ok."""
    db = await _probe("db", sync_to_async(_check_db, thread_sensitive=True))
    layer = await _probe("channel_layer", _check_channel_layer)
    ok = db == "ok" and layer == "ok"
    return JsonResponse({"ok": ok, "db": db, "channel_layer": layer}, status=200 if ok else 503)
