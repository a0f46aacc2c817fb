"""Issue 12 items that had no browser test yet: a silent network (#3), ghost cards and approved agent nodes
that would land on top of each other (#6), and the basics (Ctrl+A, Shift+click, pinned + secret warning,
dir="auto" on text).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import login
from tests.e2e.helpers import VIEWPORT, add_node, api, open_canvas


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.fixture
def team_canvas(server):
    data = server.e2e_setup(
        users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="Gaps 画布"
    )
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    ids = [
        add_node(server, token, cid, "缓存层用 Redis 6", 0, 0, kind="decision"),
        add_node(server, token, cid, "Sessions last thirty minutes", 320, 20, kind="config"),
        add_node(server, token, cid, "上线窗口：周二晚十点", 0, 220),
    ]
    return {**data, "ids": ids}


def test_a_silent_network_shows_reconnecting_and_recovers(browser, server, team_canvas):
    """#3: the socket stays open but nothing gets through (no close event): the heartbeat notices and the
    indicator leaves "online"; when the line works again the page reconnects by itself."""
    state = {"dead": False}

    def route(ws):
        upstream = ws.connect_to_server()
        ws.on_message(lambda message: None if state["dead"] else upstream.send(message))
        upstream.on_message(lambda message: None if state["dead"] else ws.send(message))

    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    context.add_init_script("localStorage.setItem('canvasweb.lang', 'en')")
    context.route_web_socket(re.compile(r"/ws/canvases/"), route)
    page = context.new_page()
    login(page, server.url(0), "alice")
    page.goto(f"{server.url(0)}/canvases/{team_canvas['canvas_id']}/")
    status = page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-status", "online", timeout=10_000)

    state["dead"] = True
    # Before the heartbeat it stayed "online" for over a minute; the bound here is loose on purpose.
    expect(status).not_to_have_attribute("data-status", "online", timeout=15_000)
    expect(status).to_have_attribute("data-status", "reconnecting")

    state["dead"] = False
    expect(status).to_have_attribute("data-status", "online", timeout=20_000)
    context.close()


def test_ghost_cards_and_approved_agent_nodes_never_land_on_each_other(
    browser, server, scripted_model, team_canvas
):
    """#6: two proposals asked for the same spot, on top of an existing card."""
    cid = team_canvas["canvas_id"]
    ctx, page = open_canvas(browser, server, "alice", cid)
    scripted_model.push(
        {
            "tool_calls": [
                {
                    "name": "add_node",
                    "arguments": {"content": "回滚方案：保留旧集群一周", "kind": "decision", "x": 0, "y": 0},
                },
                {
                    "name": "add_node",
                    "arguments": {
                        "content": "Notify support before the switch",
                        "kind": "note",
                        "x": 0,
                        "y": 0,
                    },
                },
            ]
        },
        {"content": "我提议了两条记录。"},
    )
    box = page.get_by_test_id("chat-input")
    box.fill("把回滚方案和通知客服记下来")
    box.press("Enter")
    # The proposals are what matters here. On a busy machine the first turn can outlast the socket's
    # heartbeat (the reply is then reported as dropped), so wait for the proposals on the server and reload.
    token = team_canvas["tokens"]["alice"]
    for _ in range(90):
        if len(api(server, token, "GET", f"/api/canvases/{cid}/proposals/?status=pending")) == 2:
            break
        page.wait_for_timeout(1000)
    page.reload()
    ghosts = page.locator("[data-testid^='ghost-node-']")
    expect(ghosts).to_have_count(2, timeout=15_000)
    ghost_boxes = [ghosts.nth(i).bounding_box() for i in range(2)]
    card_boxes = [page.get_by_test_id(f"node-{nid}").bounding_box() for nid in team_canvas["ids"]]
    assert not boxes_overlap(*ghost_boxes), ghost_boxes
    for g in ghost_boxes:
        for c in card_boxes:
            assert not boxes_overlap(g, c), (g, c)

    proposal_ids = [ghosts.nth(i).get_attribute("data-testid").removeprefix("ghost-node-") for i in range(2)]
    page.get_by_test_id("tab-proposals").click()
    for pid in proposal_ids:
        page.get_by_test_id(f"proposal-approve-{pid}").click()
        expect(page.get_by_test_id(f"proposal-{pid}")).to_have_count(0, timeout=10_000)
    page.wait_for_function(
        "() => window.__canvasweb.getState().nodes.filter(n => n.author_kind === 'agent').length === 2",
        timeout=10_000,
    )
    agent_ids = page.evaluate(
        "() => window.__canvasweb.getState().nodes.filter(n => n.author_kind === 'agent').map(n => n.id)"
    )
    all_boxes = {
        nid: page.get_by_test_id(f"node-{nid}").bounding_box() for nid in [*team_canvas["ids"], *agent_ids]
    }
    for nid in agent_ids:
        for other, other_box in all_boxes.items():
            if other != nid:
                assert not boxes_overlap(all_boxes[nid], other_box), (nid, other)
    ctx.close()


def test_ctrl_a_selects_everything_and_shift_click_extends(browser, server, team_canvas):
    ids = team_canvas["ids"]
    ctx, page = open_canvas(browser, server, "alice", team_canvas["canvas_id"])
    page.get_by_test_id(f"node-{ids[0]}").click()
    expect(page.locator(".react-flow__node.selected")).to_have_count(1)
    page.get_by_test_id(f"node-{ids[2]}").click(modifiers=["Shift"])
    expect(page.locator(".react-flow__node.selected")).to_have_count(2)
    # An empty spot inside the pane whatever its size (the chat panel's width changes it).
    pane = page.get_by_test_id("canvas").locator(".react-flow__pane")
    box = pane.bounding_box()
    assert box is not None
    pane.click(position={"x": box["width"] * 0.85, "y": box["height"] * 0.2})
    expect(page.locator(".react-flow__node.selected")).to_have_count(0)
    page.keyboard.press("Control+a")
    expect(page.locator(".react-flow__node.selected")).to_have_count(3)
    # In a text field Ctrl+A selects the text, not the nodes.
    page.get_by_test_id("chat-input").fill("全选只选文字")
    page.get_by_test_id("chat-input").press("Control+a")
    assert (
        page.evaluate("() => document.activeElement.selectionEnd - document.activeElement.selectionStart")
        == 6
    )
    ctx.close()


def test_pinned_and_secret_together_warn_and_text_is_dir_auto(browser, server, team_canvas):
    ids = team_canvas["ids"]
    ctx, page = open_canvas(browser, server, "alice", team_canvas["canvas_id"], ui_language="zh-Hans")
    page.get_by_test_id(f"node-{ids[0]}").click()
    warning = page.get_by_test_id("pinned-secret-warning")
    page.get_by_test_id("sensitivity-secret").click()
    expect(warning).to_have_count(0)
    page.get_by_test_id("inspector-pinned").check()
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("机密")
    page.get_by_test_id("sensitivity-internal").click()
    expect(warning).to_have_count(0)

    # Mixed-direction text: every place that shows or takes user text picks its direction from the text.
    expect(page.get_by_test_id(f"node-{ids[1]}").get_by_test_id("node-content")).to_have_attribute(
        "dir", "auto"
    )
    expect(page.get_by_test_id("chat-input")).to_have_attribute("dir", "auto")
    page.get_by_test_id(f"node-{ids[1]}").dblclick()
    expect(page.locator(".react-flow__node textarea").first).to_have_attribute("dir", "auto")
    page.keyboard.press("Escape")
    ctx.close()
