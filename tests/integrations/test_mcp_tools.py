"""The MCP server through the SDK's own client, in process: tools, context, writes, refusals, secrets."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from canvasweb.agent import services as agent_services
from canvasweb.agent.models import AgentToolCall, Proposal
from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Canvas, Node
from canvasweb.canvases.services.commit import actor_to_dict
from canvasweb.history.models import ChangeLogEntry, SecurityEvent
from canvasweb.integrations.mcp.server import Principal, build_server

from .conftest import ANCHOR, FACT, SECRET_VALUE, ZH_FACT

pytestmark = pytest.mark.django_db(transaction=True)

READ_TOOLS = {"compile_context", "search_nodes", "read_node"}
WRITE_TOOLS = {"add_node", "update_node", "move_node", "link_nodes", "supersede_node", "archive_node"}


def client_for(user, canvas) -> Client:
    return Client(build_server(principal=Principal(user_id=user.pk, canvas_id=canvas.pk)))


def run_mcp(user, canvas, script):
    """Run `script(client)` against the server as `user`, on a fresh event loop (the test stays sync)."""

    async def main():
        async with client_for(user, canvas) as client:
            return await script(client)

    return asyncio.run(main())


def payload(result) -> dict:
    return json.loads(result.content[0].text)


def test_editor_lists_read_and_write_tools(planted, canvas, bob):
    async def script(client):
        return {t.name for t in (await client.list_tools()).tools}

    assert run_mcp(bob, canvas, script) == READ_TOOLS | WRITE_TOOLS


def test_viewer_sees_read_tools_only(planted, canvas, vic):
    async def script(client):
        return {t.name for t in (await client.list_tools()).tools}

    assert run_mcp(vic, canvas, script) == READ_TOOLS


def test_compile_context_returns_blocks_and_handles(planted, canvas, bob):
    async def script(client):
        return await client.call_tool(
            "compile_context", {"question": "Which port does the invoicing database use?", "budget": 1500}
        )

    result = run_mcp(bob, canvas, script)
    assert not result.is_error
    body = payload(result)
    text = "\n".join(block["content"] for block in body["blocks"])
    assert ANCHOR in text and FACT in text and ZH_FACT in text
    assert body["total_tokens"] <= 1500 and body["budget"] == 1500
    assert body["handles"] and all(h["node"].startswith("n") for h in body["handles"])
    assert "node_id" not in json.dumps(body) and planted["fact"] not in json.dumps(body)  # handles only
    assert SECRET_VALUE not in result.content[0].text


def test_write_becomes_a_proposal_with_mcp_provenance(planted, canvas, bob, alice):
    nodes_before = Node.objects.count()

    async def script(client):
        compiled = payload(await client.call_tool("compile_context", {"question": "invoicing database port"}))
        fact_handle = next(h["node"] for h in compiled["handles"] if h["reason"] != "anchor")
        return compiled, await client.call_tool(
            "supersede_node", {"node": fact_handle, "content": "The invoicing database listens on 6118"}
        )

    _compiled, result = run_mcp(bob, canvas, script)
    body = payload(result)
    assert not result.is_error and body["status"] == "proposed"
    assert Node.objects.count() == nodes_before  # propose mode: nothing written yet
    proposal = Proposal.objects.select_related("run", "conversation").get(pk=body["proposal_id"])
    assert proposal.requested_by == bob and proposal.run.via.startswith("MCP")
    assert proposal.conversation.title.startswith("via MCP")

    log_before = ChangeLogEntry.objects.filter(canvas=canvas).count()
    agent_services.proposal_approve(user=alice, proposal_id=proposal.pk)
    new = Node.objects.get(content="The invoicing database listens on 6118")
    assert new.author_kind == "agent" and new.provenance["via"].startswith("MCP")
    assert new.provenance["on_behalf_of"]["username"] == "bob"
    assert new.provenance["approved_by"]["username"] == "alice"
    # One write: node created, old node superseded, supersedes edge: three entries, one revision.
    entries = ChangeLogEntry.objects.filter(canvas=canvas).order_by("-id")[:3]
    assert ChangeLogEntry.objects.filter(canvas=canvas).count() == log_before + 3
    assert len({e.revision for e in entries}) == 1


def test_auto_mode_writes_through_the_runner(planted, canvas, bob, alice):
    services.canvas_update(actor=user_actor(alice), canvas_id=canvas.pk, agent_policy={"mode": "auto"})

    async def script(client):
        return await client.call_tool("add_node", {"content": "发票服务使用 PostgreSQL 16", "kind": "fact"})

    body = payload(run_mcp(bob, canvas, script))
    assert body["status"] == "applied" and body["node"].startswith("n")
    node = Node.objects.get(content="发票服务使用 PostgreSQL 16")
    assert node.provenance["via"].startswith("MCP") and node.created_by == bob
    entries = ChangeLogEntry.objects.filter(canvas=canvas, revision=body["revision"])
    assert entries.count() == 1 and entries.get().actor_kind == "agent"


def test_catch_up_events_name_the_tool_like_the_live_event(planted, canvas, bob, alice):
    # The live change event carries actor.via; a client catching up (REST changes/, socket catch_up)
    # must get the same actor, not one without `via`.
    services.canvas_update(actor=user_actor(alice), canvas_id=canvas.pk, agent_policy={"mode": "auto"})
    since = Canvas.objects.get(pk=canvas.pk).revision

    async def script(client):
        return await client.call_tool("add_node", {"content": "账单导出每晚 02:00 运行", "kind": "fact"})

    body = payload(run_mcp(bob, canvas, script))
    node = Node.objects.get(content="账单导出每晚 02:00 运行")
    services.apply_operation(
        actor=user_actor(alice),
        canvas_id=canvas.pk,
        op={"type": "node.move", "id": str(node.pk), "x": 40, "y": 80},
    )
    events = canvas_selectors.changes_since(canvas=canvas, role="owner", since=since)["events"]
    by_revision = {e["revision"]: e["actor"] for e in events}
    assert set(by_revision[body["revision"]]) == set(actor_to_dict(user_actor(alice)))
    assert by_revision[body["revision"]]["via"] == node.provenance["via"]
    assert by_revision[body["revision"]]["via"].startswith("MCP")
    assert by_revision[max(by_revision)]["via"] is None  # a person's edit in the page


def test_viewer_write_is_refused_and_recorded(planted, canvas, vic):
    state = (Node.objects.count(), ChangeLogEntry.objects.count(), Proposal.objects.count())
    events_before = SecurityEvent.objects.count()

    async def script(client):
        return (
            await client.call_tool("add_node", {"content": "a viewer tries to write"}),
            await client.call_tool("delete_node", {"node": "n1"}),
        )

    writing, deleting = run_mcp(vic, canvas, script)
    assert writing.is_error and payload(writing)["error"]["code"] == "FORBIDDEN"
    assert deleting.is_error and payload(deleting)["error"]["code"] == "FORBIDDEN"
    assert (Node.objects.count(), ChangeLogEntry.objects.count(), Proposal.objects.count()) == state
    assert SecurityEvent.objects.count() == events_before + 2
    assert AgentToolCall.objects.filter(user=vic, outcome="refused").count() == 2


def test_bad_arguments_are_refused_and_recorded(planted, canvas, bob):
    events_before = SecurityEvent.objects.count()

    async def script(client):
        return [
            await client.call_tool("compile_context", {"question": "x", "tokens": 5}),
            await client.call_tool("read_node", {"node": planted["fact"]}),  # an id, not a handle
            await client.call_tool("compile_context", {"question": "长" * 9000}),
            await client.call_tool("compile_context", {"question": "port", "budget": 10}),
        ]

    for result in run_mcp(bob, canvas, script):
        assert result.is_error and payload(result)["error"]["code"] == "INVALID"
    assert SecurityEvent.objects.count() == events_before + 4


def test_question_errors_name_the_question_argument(planted, canvas, bob):
    # The chat's question check reports field "text"; an MCP client sent "question".
    # (Blank text passes the schema's minLength, so it reaches Canvasweb's own check.)
    async def script(client):
        return [
            await client.call_tool("compile_context", {"question": "   "}),
            await client.call_tool("compile_context", {"question": "\u3000\n"}),
        ]

    for result in run_mcp(bob, canvas, script):
        assert result.is_error
        assert payload(result)["error"]["field"] == "question"


def test_viewport_errors_name_the_key(planted, canvas, bob):
    async def script(client):
        return [
            await client.call_tool(
                "compile_context", {"question": "端口", "viewport": {"x": 0, "rotation": 9}}
            ),
            await client.call_tool("compile_context", {"question": "port", "viewport": {"zoom": 0}}),
            await client.call_tool("compile_context", {"question": "port", "viewport": [0, 0]}),
            await client.call_tool("compile_context", {"question": "port", "viewport": {"x": 5, "zoom": 2}}),
        ]

    rotation, zero_zoom, listed, good = run_mcp(bob, canvas, script)
    error = payload(rotation)["error"]
    assert (error["code"], error["message"], error["field"]) == (
        "INVALID",
        "unknown field viewport.rotation",
        "viewport.rotation",
    )
    assert payload(zero_zoom)["error"]["field"] == "viewport"
    assert "zoom must be a positive finite number" in payload(zero_zoom)["error"]["message"]
    assert payload(listed)["error"]["field"] == "viewport"
    assert not good.is_error and payload(good)["ok"]


def test_no_secret_in_any_tool_or_resource_result(planted, canvas, alice):
    """Even the owner (who may see the secret node) gets no secret value through MCP."""

    async def script(client):
        texts = []
        compiled = await client.call_tool("compile_context", {"question": "vault passphrase for invoicing"})
        texts.append(compiled.content[0].text)
        texts.append(
            (await client.call_tool("search_nodes", {"query": "vault passphrase invoicing"})).content[0].text
        )
        for handle in [h["node"] for h in payload(compiled)["handles"]]:
            texts.append((await client.call_tool("read_node", {"node": handle})).content[0].text)
        echoed = await client.call_tool("add_node", {"content": f"copy of {SECRET_VALUE}"})
        texts.append(echoed.content[0].text)
        for resource in (await client.list_resources()).resources:
            texts.append((await client.read_resource(resource.uri)).contents[0].text)
        return texts, echoed

    texts, echoed = run_mcp(alice, canvas, script)
    assert any("withheld" in t for t in texts)
    joined = "\n".join(texts)
    assert SECRET_VALUE not in joined and "bluefin" not in joined
    assert payload(echoed)["error"]["code"] == "FORBIDDEN"


def test_resources_list_anchors_and_recent_changes(planted, canvas, vic):
    async def script(client):
        uris = {r.name: r.uri for r in (await client.list_resources()).resources}
        return (
            (await client.read_resource(uris["anchors"])).contents[0].text,
            (await client.read_resource(uris["recent-changes"])).contents[0].text,
        )

    anchors, changes = run_mcp(vic, canvas, script)
    assert ANCHOR in anchors and FACT not in anchors
    assert FACT in changes and "Internal: the vendor" not in changes  # a viewer sees no internal node


def test_external_access_off_refuses_everything(planted, canvas, bob, alice):
    services.canvas_update(
        actor=user_actor(alice), canvas_id=canvas.pk, agent_policy={"external_access": False}
    )
    events_before = SecurityEvent.objects.count()

    async def script(client):
        with pytest.raises(MCPError, match="switched off"):
            await client.list_tools()
        return await client.call_tool("compile_context", {"question": "invoicing port"})

    result = run_mcp(bob, canvas, script)
    assert result.is_error and "switched off" in result.content[0].text
    assert SecurityEvent.objects.count() == events_before + 2


def test_chinese_search_then_read_by_handle(planted, canvas, bob):
    async def script(client):
        found = payload(await client.call_tool("search_nodes", {"query": "发票服务 负责人"}))
        handle = found["results"][0]["node"]
        return found, payload(await client.call_tool("read_node", {"node": handle}))

    found, read = run_mcp(bob, canvas, script)
    assert found["results"][0]["text"] == ZH_FACT
    assert read["node"]["text"] == ZH_FACT and read["ok"]
