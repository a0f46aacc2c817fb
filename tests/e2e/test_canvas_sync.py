"""Two people on one canvas in two real Chromium contexts, against a real Daphne server.

A creates a node and an edge, B sees both within 2 s; B moves the node, A sees it;
B goes offline, edits, comes back, and both end identical and equal to the
database; a viewer gets a read-only canvas without the internal node.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import api
from tests.e2e.helpers import open_canvas as open_canvas_as


def open_canvas(browser, server, username: str, canvas_id: int):
    # Wide enough that the chat (open from 1280 px) and the inspector leave the clicked spots free.
    return open_canvas_as(browser, server, username, canvas_id, viewport={"width": 1800, "height": 900})


def state(page) -> dict:
    return page.evaluate("() => window.__canvasweb.getState()")


def doc(snapshot_nodes, snapshot_edges) -> tuple:
    """A comparable form of a canvas: node and edge fields that both sides must agree on."""
    nodes = sorted(
        (n["id"], n["content"], round(n["x"], 3), round(n["y"], 3), n["kind"], n["sensitivity"], n["version"])
        for n in snapshot_nodes
    )
    edges = sorted((e["id"], e["source"], e["target"], e["relation"], e["label"]) for e in snapshot_edges)
    return nodes, edges


def create_node_by_double_click(page, x: int, y: int, text: str) -> str:
    before = {n["id"] for n in state(page)["nodes"]}
    page.get_by_test_id("canvas").locator(".react-flow__pane").dblclick(position={"x": x, "y": y})
    editor = page.get_by_test_id("node-editor")
    expect(editor).to_be_visible()
    editor.fill(text)
    editor.press("Enter")
    page.wait_for_function(
        "([before, text]) => window.__canvasweb.getState().server.nodes.some("
        "n => !before.includes(n.id) && n.content === text)",
        arg=[sorted(before), text],
        timeout=5_000,
    )
    return next(n["id"] for n in state(page)["server"]["nodes"] if n["id"] not in before)


@pytest.fixture
def canvas_setup(server):
    data = server.e2e_setup(
        users=["alice", "bob", "carol"],
        owner="alice",
        members={"bob": "editor", "carol": "viewer"},
        name="E2E 同步画布",
    )
    return data


def test_two_users_edit_live_go_offline_and_converge(browser, server, canvas_setup, shot):
    canvas_id, tokens = canvas_setup["canvas_id"], canvas_setup["tokens"]
    ctx_a, a = open_canvas(browser, server, "alice", canvas_id)
    ctx_b, b = open_canvas(browser, server, "bob", canvas_id)

    # A creates two nodes (double-click) and links them by dragging between handles.
    first = create_node_by_double_click(a, 400, 300, "数据库端口是 5433")
    second = create_node_by_double_click(a, 800, 320, "API 服务依赖数据库")
    expect(b.get_by_test_id(f"node-{first}")).to_contain_text("数据库端口是 5433", timeout=2_000)
    expect(b.get_by_test_id(f"node-{second}")).to_be_visible(timeout=2_000)

    source = a.get_by_test_id(f"node-{second}").locator(".react-flow__handle").first
    target = a.get_by_test_id(f"node-{first}")
    source.hover()
    a.mouse.down()
    box = target.bounding_box()
    a.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=12)
    a.mouse.up()
    a.get_by_test_id("relation-option-depends_on").click()
    a.wait_for_function("() => window.__canvasweb.getState().server.edges.length === 1", timeout=5_000)
    edge_id = state(a)["server"]["edges"][0]["id"]
    expect(b.get_by_test_id(f"edge-label-{edge_id}")).to_be_visible(timeout=2_000)
    shot(a, "sync-01-alice-created-node-and-edge")
    shot(b, "sync-02-bob-sees-them")

    # B drags the first node; A sees the new position.
    node_b = b.get_by_test_id(f"node-{first}")
    box = node_b.bounding_box()
    b.mouse.move(box["x"] + 20, box["y"] + 10)
    b.mouse.down()
    b.mouse.move(box["x"] + 20, box["y"] + 210, steps=10)
    b.mouse.up()
    b.wait_for_function("() => window.__canvasweb.getState().pending.length === 0", timeout=5_000)
    moved_y = next(n["y"] for n in state(b)["server"]["nodes"] if n["id"] == first)
    a.wait_for_function(
        "([id, y]) => window.__canvasweb.getState().server.nodes.some(n => n.id === id && Math.abs(n.y - y) < 0.01)",
        arg=[first, moved_y],
        timeout=2_000,
    )

    # B goes offline, edits (queued), A edits meanwhile, B comes back: both converge.
    b.evaluate("() => window.__canvasweb.goOffline()")
    expect(b.get_by_test_id("connection-status")).to_have_text("offline")
    b.evaluate(
        """([id]) => {
        const w = window.__canvasweb;
        w.submit({type: 'node.update', id, fields: {content: '数据库端口是 5433（离线修改）'}});
        w.submit({type: 'node.create', node: {content: 'offline idea', x: 100, y: 600}});
    }""",
        [first],
    )
    expect(b.get_by_test_id("pending-count")).to_contain_text("2")
    create_node_by_double_click(a, 600, 650, "Alice while Bob was away")
    shot(b, "sync-03-bob-offline-with-queued-edits")
    b.evaluate("() => window.__canvasweb.goOnline()")
    expect(b.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    b.wait_for_function("() => window.__canvasweb.getState().pending.length === 0", timeout=10_000)
    database = api(server, tokens["alice"], "GET", f"/api/canvases/{canvas_id}/snapshot/")
    a.wait_for_function(
        "(rev) => window.__canvasweb.getState().revision === rev", arg=database["revision"], timeout=5_000
    )
    b.wait_for_function(
        "(rev) => window.__canvasweb.getState().revision === rev", arg=database["revision"], timeout=5_000
    )
    expected = doc(database["nodes"], database["edges"])
    for page in (a, b):
        current = state(page)
        assert doc(current["server"]["nodes"], current["server"]["edges"]) == expected
        assert doc(current["nodes"], current["edges"]) == expected  # nothing left pending on top
    assert any("离线修改" in n[1] for n in expected[0]) and any(n[1] == "offline idea" for n in expected[0])
    shot(a, "sync-04-alice-converged")
    shot(b, "sync-05-bob-converged")
    ctx_a.close()
    ctx_b.close()


def test_viewer_gets_a_read_only_canvas_without_internal_nodes(browser, server, canvas_setup, shot):
    canvas_id = canvas_setup["canvas_id"]
    ctx_a, a = open_canvas(browser, server, "alice", canvas_id)
    public = a.evaluate(
        "() => window.__canvasweb.submit({type: 'node.create', node: "
        "{content: '公开：发布日期 12 月 1 日', x: 200, y: 200}})"
    )
    a.evaluate(
        "() => window.__canvasweb.submit({type: 'node.create', node: "
        "{content: 'internal: budget is 40k', x: 500, y: 200, sensitivity: 'internal'}})"
    )
    a.wait_for_function("() => window.__canvasweb.getState().server.nodes.length === 2", timeout=5_000)
    assert public
    ctx_c, c = open_canvas(browser, server, "carol", canvas_id)
    expect(c.get_by_test_id("readonly-badge")).to_be_visible()
    expect(c.get_by_text("公开：发布日期 12 月 1 日")).to_be_visible()
    assert "budget is 40k" not in c.content()
    assert [n["content"] for n in state(c)["nodes"]] == ["公开：发布日期 12 月 1 日"]
    # Double-click creates nothing for a viewer.
    c.get_by_test_id("canvas").locator(".react-flow__pane").dblclick(position={"x": 700, "y": 500})
    expect(c.get_by_test_id("node-editor")).to_have_count(0)
    assert len(state(c)["nodes"]) == 1 and state(c)["pending"] == []
    shot(c, "sync-06-viewer-read-only")
    ctx_a.close()
    ctx_c.close()


# Counts the sockets the page opens (window.__sockets), so the test can see reconnect attempts.
COUNT_SOCKETS = """(() => {
  const Real = window.WebSocket;
  window.__sockets = 0;
  window.WebSocket = class extends Real {
    constructor(...args) { super(...args); window.__sockets += 1; }
  };
})();"""


def test_no_network_is_offline_without_retries_and_back_online_reconnects(
    browser, server, canvas_setup, shot
):
    canvas_id = canvas_setup["canvas_id"]
    ctx, page = open_canvas_as(
        browser, server, "bob", canvas_id, viewport={"width": 1800, "height": 900}, ui_language="zh-Hans"
    )
    ctx.add_init_script(COUNT_SOCKETS)
    page.reload()
    status = page.get_by_test_id("connection-status")
    expect(status).to_have_attribute("data-status", "online", timeout=10_000)

    ctx.set_offline(True)
    expect(status).to_have_text("离线")
    expect(status).to_have_attribute("data-status", "offline")
    expect(page.get_by_test_id("connection-retry")).to_have_count(0)
    opened = page.evaluate("() => window.__sockets")
    page.wait_for_timeout(4_000)  # backoff 0.5 + 1 + 2 s would have tried three times
    assert page.evaluate("() => window.__sockets") == opened
    expect(page.get_by_test_id("connection-retry")).to_have_count(0)
    shot(page, "sync-07-no-network")

    ctx.set_offline(False)
    expect(status).to_have_text("在线", timeout=3_000)
    assert page.evaluate("() => window.__sockets") == opened + 1
    ctx.close()


def test_a_lost_connection_with_the_network_up_offers_retry(browser, server, canvas_setup):
    ctx, page = open_canvas(browser, server, "bob", canvas_setup["canvas_id"])
    # The server turns every new socket away, so the client waits between attempts with the network up.
    refuse = [True]
    page.route_web_socket(
        "**/ws/canvases/**", lambda ws: ws.close(code=1011) if refuse[0] else ws.connect_to_server()
    )
    page.evaluate("() => window.__canvasweb.engine().connectionLost()")
    expect(page.get_by_test_id("connection-status")).to_have_text("reconnecting")
    retry = page.get_by_test_id("connection-retry")
    expect(retry).to_be_visible(timeout=5_000)
    refuse[0] = False
    retry.click()
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=5_000)
    ctx.close()
