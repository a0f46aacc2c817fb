"""ASGI entry point: HTTP through Django, the MCP server at /mcp/, WebSockets through Channels."""

import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canvasweb.config.settings")
django_asgi_app = get_asgi_application()

# The database thread (commits) and the event loop (every socket's frames) share the GIL. After each
# round trip to the database the commit needs it back; with Python's 5-ms switch interval it waits up
# to that long whenever the loop is busy, so one commit of two round trips took 10 ms instead of 2.
from canvasweb.common.config import canvasweb_config

sys.setswitchinterval(canvasweb_config()["GIL_SWITCH_INTERVAL_US"] / 1_000_000)

# Load the Chinese word segmenter's dictionary now, not inside the first chat turn: that load holds the
# GIL for a second or more, long enough on a busy machine for every socket on this process to miss its
# heartbeat.
from canvasweb.context.lexical import warm_up as warm_up_segmenter

warm_up_segmenter()

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from canvasweb.canvases.realtime.auth import SessionOrTokenAuthMiddleware
from canvasweb.canvases.realtime.routing import websocket_urlpatterns
from canvasweb.integrations.mcp.http import PREFIX as MCP_PREFIX
from canvasweb.integrations.mcp.http import mcp_http_app


async def http_app(scope, receive, send):
    """/mcp/<canvas id>/ is the MCP server (streamable HTTP, docs/integrations.md); the rest is Django."""
    path = scope.get("path", "")
    if path == MCP_PREFIX or path.startswith(MCP_PREFIX + "/"):
        await mcp_http_app(scope, receive, send)
    else:
        await django_asgi_app(scope, receive, send)


# Everything loaded so far (Django, the app's modules, the segmenter's dictionary: about 200,000
# objects) lives as long as the process. Left with the collector, each full collection scans it all
# and holds the GIL for 85-150 ms, every few seconds under load: every socket's frames wait (the
# 50-client paced fan-out p99 of bench_sync was such pauses). Frozen, a full collection scans only
# what was made since.
gc.collect()
gc.freeze()

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(
            SessionOrTokenAuthMiddleware(URLRouter(websocket_urlpatterns))
        ),
    }
)
