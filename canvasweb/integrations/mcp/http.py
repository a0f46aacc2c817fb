"""Streamable HTTP for the MCP server, mounted in the ASGI app at /mcp/<canvas id>/ (config/asgi.py).

Every request is authenticated here, before the SDK sees it: the user's API
token (`Authorization: Bearer <token>`), membership of the canvas and the
canvas's `external_access` switch. A refusal is a JSON error with the HTTP
status (401/403/404) and a security-log row; nothing reaches the MCP server.
An accepted request carries a `Principal` in its scope, and the SDK's session
is bound to that credential (a session id presented with another token or for
another canvas is answered 404 by the SDK).

Daphne does not run ASGI lifespan, so the SDK's session manager is started on
the first request, once per event loop.
"""

from __future__ import annotations

import asyncio
import json
import re

from channels.db import database_sync_to_async
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from canvasweb.common.errors import CanvasError, InvalidOperation, NotFound

from ..access import canvas_id_from, external_canvas, token_from_header, user_for_token
from .server import SCOPE_KEY, Principal, build_server

PREFIX = "/mcp"
_PATH_RE = re.compile(r"^/mcp/(?P<canvas>[^/]+)/?$")
MAX_BODY_BYTES = 1024 * 1024


class McpHttpApp:
    def __init__(self) -> None:
        self._manager: StreamableHTTPSessionManager | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        try:
            principal, token = await self._authenticate(scope)
        except CanvasError as exc:
            await _json_error(send, exc)
            return
        manager = await self._started_manager()
        # The SDK binds each session to this identity: same user, same canvas, or "Session not found".
        scope = {
            **scope,
            SCOPE_KEY: principal,
            "user": AuthenticatedUser(
                AccessToken(
                    token=token,
                    client_id=f"canvasweb-user-{principal.user_id}",
                    scopes=[],
                    subject=f"{principal.user_id}:{principal.canvas_id}",
                )
            ),
        }
        await manager.handle_request(scope, receive, send)

    async def _authenticate(self, scope) -> tuple[Principal, str]:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        domain, _ = split_domain_port(host)
        if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
            raise InvalidOperation(f"host {host[:100]!r} is not in DJANGO_ALLOWED_HOSTS", field="host")
        match = _PATH_RE.match(scope.get("path", ""))
        if match is None:
            raise NotFound("the MCP endpoint is /mcp/<canvas id>/, e.g. /mcp/3/", field="path")
        canvas_id = canvas_id_from(match.group("canvas"), field="path")
        token = token_from_header(headers.get("authorization"))

        def check() -> int:
            user = user_for_token(token)
            external_canvas(user=user, canvas_id=canvas_id, channel="mcp")
            return user.pk

        user_id = await database_sync_to_async(check)()
        session_key = headers.get("mcp-session-id", "http")[:100]
        return Principal(user_id=user_id, canvas_id=canvas_id, session_key=session_key), token or ""

    async def _started_manager(self) -> StreamableHTTPSessionManager:
        loop = asyncio.get_running_loop()
        # The three are set together: _ready and _manager are None only before the first request.
        if self._loop is not loop or self._ready is None or self._manager is None:
            self._loop = loop
            self._ready = asyncio.Event()
            self._manager = StreamableHTTPSessionManager(
                app=build_server(), max_request_body_size=MAX_BODY_BYTES
            )
            # Keep a reference: the loop holds tasks only weakly.
            self._task = loop.create_task(self._run(self._manager, self._ready))
        await self._ready.wait()
        return self._manager

    @staticmethod
    async def _run(manager: StreamableHTTPSessionManager, ready: asyncio.Event) -> None:
        async with manager.run():
            ready.set()
            await asyncio.Event().wait()  # until the loop ends


async def _json_error(send, error: CanvasError) -> None:
    body = json.dumps({"error": error.as_dict()}, ensure_ascii=False).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if error.http_status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="canvasweb"'))
    await send({"type": "http.response.start", "status": error.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


mcp_http_app = McpHttpApp()
