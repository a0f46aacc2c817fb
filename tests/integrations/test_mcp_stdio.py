"""`manage.py mcp_server --canvas ID` over stdio, driven by the SDK's own stdio client; `manage.py api_token`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from mcp import Client, StdioServerParameters
from rest_framework.authtoken.models import Token

from .conftest import ANCHOR, SECRET_VALUE

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def stdio_params(canvas_id, token: str | None) -> StdioServerParameters:
    env = {
        **os.environ,
        "CANVASWEB_SQLITE_PATH": str(connection.settings_dict["NAME"]),
        "DJANGO_SETTINGS_MODULE": "canvasweb.config.settings",
    }
    env.pop("CANVASWEB_TOKEN", None)
    if token:
        env["CANVASWEB_TOKEN"] = token
    return StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_server", "--canvas", str(canvas_id)],
        env=env,
        cwd=str(ROOT),
    )


def test_stdio_server_lists_tools_and_compiles(planted, canvas, tokens):
    async def main():
        async with Client(stdio_params(canvas.pk, tokens["vic"])) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            compiled = await client.call_tool("compile_context", {"question": "When does invoicing go live?"})
            return names, compiled

    names, compiled = asyncio.run(main())
    assert names == {"compile_context", "search_nodes", "read_node"}  # vic is a viewer
    text = compiled.content[0].text
    assert ANCHOR in "\n".join(b["content"] for b in json.loads(text)["blocks"])
    assert SECRET_VALUE not in text


def test_stdio_server_refuses_without_a_token(canvas):
    import subprocess

    params = stdio_params(canvas.pk, None)
    done = subprocess.run(
        [params.command, *params.args],
        env=params.env,
        cwd=params.cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode != 0
    assert "UNAUTHENTICATED" in done.stderr and "CANVASWEB_TOKEN" in done.stderr
    assert done.stdout == ""  # stdout is the protocol channel


def test_api_token_command_shows_and_revokes(alice):
    out = StringIO()
    call_command("api_token", "alice", stdout=out)
    key = out.getvalue().strip()
    assert Token.objects.get(user=alice).key == key
    call_command("api_token", "alice", "--revoke", stdout=StringIO())
    assert not Token.objects.filter(user=alice).exists()
    with pytest.raises(CommandError, match="no user"):
        call_command("api_token", "nobody-here")


def test_a_revoked_token_stops_a_running_stdio_server(planted, canvas, tokens, bob):
    from canvasweb.common import auth_services

    async def main():
        async with Client(stdio_params(canvas.pk, tokens["bob"])) as client:
            before = {t.name for t in (await client.list_tools()).tools}
            await asyncio.to_thread(auth_services.token_revoke, user=bob)
            try:
                await client.list_tools()
            except Exception as exc:
                return before, str(exc)
            return before, None

    before, error = asyncio.run(main())
    assert "add_node" in before
    assert error is not None and "UNAUTHENTICATED" in error
