"""`python manage.py mcp_server --canvas ID`: the Canvasweb MCP server over stdio (Claude Desktop, Cursor...).

The user is the owner of the API token in CANVASWEB_TOKEN; they get exactly
what that token gets over HTTP at /mcp/ID/ (docs/integrations.md). stdout
carries the MCP protocol only; logs go to stderr.
"""

from __future__ import annotations

import os

import anyio
from django.core.management.base import BaseCommand, CommandError
from mcp.server.stdio import stdio_server

from canvasweb.common.errors import CanvasError
from canvasweb.integrations.access import canvas_id_from, external_canvas, user_for_token
from canvasweb.integrations.mcp.server import Principal, build_server

TOKEN_ENV = "CANVASWEB_TOKEN"


class Command(BaseCommand):
    help = "Serve one canvas to an MCP client over stdio, as the user whose API token is in $CANVASWEB_TOKEN."

    def add_arguments(self, parser):
        parser.add_argument("--canvas", required=True, help="canvas id (or canvas:<id>)")

    def handle(self, *args, **options):
        try:
            canvas_id = canvas_id_from(options["canvas"], field="--canvas")
            user = user_for_token(os.environ.get(TOKEN_ENV, "").strip() or None)
            canvas, role = external_canvas(user=user, canvas_id=canvas_id, channel="mcp")
        except CanvasError as exc:
            hint = f" (set {TOKEN_ENV} to your API token)" if exc.code == "UNAUTHENTICATED" else ""
            raise CommandError(f"{exc.code}: {exc.message}{hint}") from None
        self.stderr.write(
            f"canvasweb MCP server: canvas {canvas.pk} ({canvas.name}) as {user.get_username()} "
            f"({role}), on stdio"
        )
        token = os.environ[TOKEN_ENV].strip()
        server = build_server(
            principal=Principal(user_id=user.pk, canvas_id=canvas.pk, session_key="stdio", token=token)
        )

        async def serve() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve)
