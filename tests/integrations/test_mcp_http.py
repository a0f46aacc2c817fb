"""The MCP server over streamable HTTP, mounted in the real ASGI app: the SDK's client with API tokens."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from canvasweb.agent.models import Proposal
from canvasweb.canvases.models import Node
from canvasweb.history.models import SecurityEvent

from .conftest import FACT, SECRET_VALUE

pytestmark = pytest.mark.django_db(transaction=True)


def run_http(url: str, token: str | None, script):
    async def main():
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=20) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return await script(client)

    return asyncio.run(main())


def test_editor_over_http_compiles_and_proposes(planted, canvas, tokens, live_server_url):
    url = f"{live_server_url}/mcp/{canvas.pk}/"

    async def script(client):
        names = {t.name for t in (await client.list_tools()).tools}
        compiled = await client.call_tool("compile_context", {"question": "invoicing database port"})
        handle = next(
            h["node"] for h in json.loads(compiled.content[0].text)["handles"] if h["reason"] != "anchor"
        )
        proposed = await client.call_tool("update_node", {"node": handle, "tags": ["ops"]})
        return names, compiled, proposed

    names, compiled, proposed = run_http(url, tokens["bob"], script)
    assert "add_node" in names and "compile_context" in names
    assert FACT in compiled.content[0].text and SECRET_VALUE not in compiled.content[0].text
    body = json.loads(proposed.content[0].text)
    assert body["status"] == "proposed"
    assert Proposal.objects.get(pk=body["proposal_id"]).run.via.startswith("MCP")


def test_viewer_token_over_http_sees_read_tools_only(planted, canvas, tokens, live_server_url):
    async def script(client):
        names = {t.name for t in (await client.list_tools()).tools}
        return names, await client.call_tool("archive_node", {"node": "n1"})

    names, refused = run_http(f"{live_server_url}/mcp/{canvas.pk}/", tokens["vic"], script)
    assert names == {"compile_context", "search_nodes", "read_node"}
    assert refused.is_error and json.loads(refused.content[0].text)["error"]["code"] == "FORBIDDEN"
    assert SecurityEvent.objects.filter(user__username="vic", code="FORBIDDEN").exists()


@pytest.mark.parametrize("case", ["no token", "bad token", "unknown canvas", "not a canvas id", "access off"])
def test_http_refusals_are_json_errors(planted, canvas, tokens, live_server_url, alice, case):
    from canvasweb.canvases import services
    from canvasweb.canvases.actors import user_actor

    path, token, status = f"/mcp/{canvas.pk}/", tokens["bob"], 200
    if case == "no token":
        token, status = None, 401
    elif case == "bad token":
        token, status = "not-a-real-token", 401
    elif case == "unknown canvas":
        path, status = "/mcp/987654/", 404
    elif case == "not a canvas id":
        path, status = "/mcp/abc/", 400
    else:
        services.canvas_update(
            actor=user_actor(alice), canvas_id=canvas.pk, agent_policy={"external_access": False}
        )
        status = 403
    nodes = Node.objects.count()
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = httpx2.post(
        live_server_url + path,
        headers=headers,
        timeout=10,
        content=json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
    )
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] and error["message"]
    if status == 401:
        assert response.headers["www-authenticate"].startswith("Bearer")
    assert Node.objects.count() == nodes


def test_oversized_mcp_request_is_refused(planted, canvas, tokens, live_server_url):
    nodes = Node.objects.count()
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "add_node", "arguments": {"content": "长" * (700 * 1024)}},
        }
    )
    response = httpx2.post(
        f"{live_server_url}/mcp/{canvas.pk}/",
        content=body,
        timeout=20,
        headers={
            "Authorization": f"Bearer {tokens['bob']}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
    )
    assert response.status_code == 413
    assert Node.objects.count() == nodes
