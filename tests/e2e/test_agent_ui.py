"""The agent in a real browser: a scripted tool call becomes a proposal with a ghost node, a teammate approves
it, everyone sees the node live with the agent badge, and its history names the agent and the person.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas


def ask(page, text: str) -> None:
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")


def nodes(page) -> list[dict]:
    return page.evaluate("() => window.__canvasweb.getState().nodes")


@pytest.fixture
def agent_canvas(server):
    data = server.e2e_setup(
        users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="Agent 画布"
    )
    token = data["tokens"]["alice"]
    cid = data["canvas_id"]
    redis = add_node(server, token, cid, "缓存层用 Redis 6", 0, 0, kind="decision")
    add_node(server, token, cid, "会话保存 30 分钟", 300, 20, kind="config")
    return {**data, "redis": redis}


def test_proposal_approved_by_a_teammate_appears_live_with_agent_badge(
    browser, server, scripted_model, agent_canvas, shot
):
    cid = agent_canvas["canvas_id"]
    ctx_a, a = open_canvas(browser, server, "alice", cid)
    ctx_b, b = open_canvas(browser, server, "bob", cid)
    expect(a.get_by_test_id("tab-proposals")).to_be_visible()

    # The model calls add_node; in propose mode (the default) it becomes a proposal.
    scripted_model.push(
        {
            "tool_calls": [
                {
                    "name": "add_node",
                    "arguments": {
                        "content": "缓存层改用 Memcached（替代 Redis）",
                        "kind": "decision",
                        "x": 40,
                        "y": 220,
                    },
                }
            ]
        },
        {"content": "我已提议在画布上记录：缓存层改用 Memcached，等待队友批准。"},
    )
    ask(a, "记住：我们的缓存层改用 Memcached 了")
    expect(a.get_by_test_id("agent-actions")).to_contain_text("Proposed", timeout=60_000)
    reply = a.locator("[data-role='assistant']").last
    expect(reply).to_have_attribute("data-status", "complete", timeout=10_000)
    # The tools were offered to the model.
    assert any("add_node" in json.dumps(r.get("tools") or []) for r in scripted_model.requests)

    # Both see the ghost node; bob's Proposals tab counts it.
    ghost_a = a.locator("[data-testid^='ghost-node-']")
    expect(ghost_a).to_have_count(1, timeout=5_000)
    expect(ghost_a).to_contain_text("缓存层改用 Memcached")
    proposal_id = ghost_a.get_attribute("data-testid").removeprefix("ghost-node-")
    expect(b.get_by_test_id(f"ghost-node-{proposal_id}")).to_be_visible(timeout=5_000)
    expect(b.get_by_test_id("tab-proposals-count")).to_have_text("1")
    shot(a, "agent-ghost-proposal")

    # Clicking the ghost opens the proposal; bob reviews the diff and approves.
    b.get_by_test_id(f"ghost-node-{proposal_id}").click()
    card = b.get_by_test_id(f"proposal-{proposal_id}")
    expect(card).to_be_visible()
    expect(card.get_by_test_id(f"proposal-diff-{proposal_id}")).to_contain_text("缓存层改用 Memcached")
    expect(card).to_contain_text("for alice")
    shot(b, "agent-proposal-panel")
    before = {n["id"] for n in nodes(a)}
    card.get_by_test_id(f"proposal-approve-{proposal_id}").click()

    # Alice (who asked, and did not approve) sees the node live with the agent badge; the ghost is gone.
    a.wait_for_function(
        "before => window.__canvasweb.getState().nodes.some(n => !before.includes(n.id) && n.author_kind === 'agent')",
        arg=sorted(before),
        timeout=5_000,
    )
    new = next(n for n in nodes(a) if n["id"] not in before)
    assert new["content"] == "缓存层改用 Memcached（替代 Redis）"
    assert new["provenance"]["on_behalf_of"]["username"] == "alice"
    assert new["provenance"]["approved_by"]["username"] == "bob"
    card_a = a.get_by_test_id(f"node-{new['id']}")
    expect(card_a.get_by_test_id("badge-agent")).to_be_visible()
    expect(b.get_by_test_id(f"node-{new['id']}").get_by_test_id("badge-agent")).to_be_visible()
    expect(a.locator("[data-testid^='ghost-node-']")).to_have_count(0)
    expect(b.get_by_test_id("proposals-empty")).to_be_visible()

    # The "written by the agent" filter dims everything else.
    a.get_by_test_id("agent-filter").click()
    assert "dimmed" not in (card_a.get_attribute("class") or "")
    assert "dimmed" in (a.get_by_test_id(f"node-{agent_canvas['redis']}").get_attribute("class") or "")
    shot(a, "agent-filter-on")
    a.get_by_test_id("agent-filter").click()
    assert "dimmed" not in (a.get_by_test_id(f"node-{agent_canvas['redis']}").get_attribute("class") or "")

    # The node's history names the agent and the person it acted for (and who approved).
    a.evaluate(f"() => window.__canvasweb.focusNode('{new['id']}')")
    a.get_by_test_id("inspector-history-toggle").click()
    history = a.get_by_test_id("node-history")
    entry = history.locator("[data-actor-kind='agent']").first
    expect(entry).to_be_visible(timeout=5_000)
    expect(entry.get_by_test_id("history-actor")).to_contain_text("agent for alice")
    expect(entry.get_by_test_id("history-actor")).to_contain_text("approved by bob")
    expect(entry.get_by_test_id("history-conversation-link")).to_be_visible()
    shot(a, "agent-node-history")
    ctx_a.close()
    ctx_b.close()


def test_rejected_proposal_and_owner_policy_settings(browser, server, scripted_model, agent_canvas, shot):
    cid = agent_canvas["canvas_id"]
    ctx_a, a = open_canvas(browser, server, "alice", cid)

    # Propose a supersede of the Redis decision, then reject it: nothing changes.
    scripted_model.push(
        {"tool_calls": [{"name": "search_nodes", "arguments": {"query": "Redis"}}]},
        {
            "tool_calls": [
                {"name": "supersede_node", "arguments": {"node": "n1", "content": "缓存层用 Memcached"}}
            ]
        },
        {"content": "已提议替换。"},
    )
    ask(a, "把 Redis 换成 Memcached")
    ghost = a.locator("[data-testid^='ghost-node-']")
    expect(ghost).to_have_count(1, timeout=60_000)
    proposal_id = ghost.get_attribute("data-testid").removeprefix("ghost-node-")
    listed = api(
        server, agent_canvas["tokens"]["alice"], "GET", f"/api/canvases/{cid}/proposals/?status=pending"
    )
    target = next(p for p in listed if str(p["id"]) == proposal_id)["diff"]["target"]
    # The node it would replace is marked on the canvas, and a ghost edge links the replacement to it.
    expect(a.get_by_test_id(f"node-{target['id']}").get_by_test_id("badge-proposal")).to_be_visible()
    expect(a.get_by_test_id(f"ghost-edge-{proposal_id}")).to_be_visible()
    a.get_by_test_id("tab-proposals").click()
    card = a.get_by_test_id(f"proposal-{proposal_id}")
    expect(card.get_by_test_id(f"proposal-diff-{proposal_id}")).to_contain_text(target["content"])
    expect(card.get_by_test_id(f"proposal-diff-{proposal_id}")).to_contain_text("缓存层用 Memcached")
    shot(a, "agent-supersede-proposal")
    card.get_by_test_id(f"proposal-reject-{proposal_id}").click()
    expect(ghost).to_have_count(0, timeout=5_000)
    assert all(n["superseded_by"] is None for n in nodes(a))
    expect(a.get_by_test_id(f"node-{target['id']}").get_by_test_id("badge-proposal")).to_have_count(0)

    # The owner switches the agent to auto in the settings dialog.
    a.get_by_test_id("settings-button").click()
    dialog = a.get_by_test_id("settings-dialog")
    dialog.get_by_test_id("policy-mode-auto").click()
    dialog.get_by_test_id("policy-protect-pinned").uncheck()
    shot(a, "agent-settings-dialog")
    dialog.get_by_test_id("policy-save").click()
    expect(dialog).to_be_hidden()
    expect(a.get_by_test_id("agent-mode")).to_contain_text("auto")
    policy = api(server, agent_canvas["tokens"]["alice"], "GET", f"/api/canvases/{cid}/")["agent_policy"]
    assert policy["mode"] == "auto" and policy["protect_pinned"] is False
    ctx_a.close()
