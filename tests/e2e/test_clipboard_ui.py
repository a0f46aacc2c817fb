"""Copy and paste of nodes in a real browser: two nodes and their link, pasted on the same canvas and on another."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas


@pytest.fixture
def two_canvases(server):
    data = server.e2e_setup(users=["alice"], owner="alice", name="源画布 Source")
    cid, token = data["canvas_id"], data["tokens"]["alice"]
    first = add_node(server, token, cid, "上线窗口：周二晚十点", 0, 0)
    second = add_node(server, token, cid, "Freeze merges two hours before", 320, 40)
    add_node(server, token, cid, "Unrelated note", 0, 400)
    api(
        server,
        token,
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "edge.create",
                "edge": {"source": second, "target": first, "relation": "depends_on"},
            }
        },
    )
    other = api(server, token, "POST", "/api/canvases/", {"name": "目标 Target"})
    return {**data, "first": first, "second": second, "other": other["id"]}


def server_nodes(page):
    return page.evaluate("() => window.__canvasweb.getState().server.nodes")


def select_two(page, ids):
    page.get_by_test_id(f"node-{ids[0]}").click()
    page.get_by_test_id(f"node-{ids[1]}").click(modifiers=["Shift"])
    expect(page.locator(".react-flow__node.selected")).to_have_count(2)


def test_copy_two_nodes_with_their_link_and_paste_here_and_elsewhere(browser, server, two_canvases):
    cid, ids = two_canvases["canvas_id"], [two_canvases["first"], two_canvases["second"]]
    ctx, page = open_canvas(browser, server, "alice", cid)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    select_two(page, ids)
    page.keyboard.press("Control+c")
    expect(page.get_by_test_id("toast").filter(has_text="Copied 2 nodes and 1 links")).to_be_visible()
    page.keyboard.press("Control+v")
    page.wait_for_function("() => window.__canvasweb.getState().server.nodes.length === 5", timeout=10_000)
    nodes = server_nodes(page)
    copies = [
        n
        for n in nodes
        if n["id"] not in ids and n["content"] in ("上线窗口：周二晚十点", "Freeze merges two hours before")
    ]
    assert len(copies) == 2
    edges = page.evaluate("() => window.__canvasweb.getState().server.edges")
    copy_ids = {n["id"] for n in copies}
    assert any(
        e["source"] in copy_ids and e["target"] in copy_ids and e["relation"] == "depends_on" for e in edges
    )
    # The copies sit clear of the originals.
    originals = [n for n in nodes if n["id"] in ids]
    for c in copies:
        for o in originals:
            assert abs(c["x"] - o["x"]) >= 200 or abs(c["y"] - o["y"]) >= 110, (c, o)

    # The same clipboard pastes onto another canvas the user can edit.
    page.goto(f"{server.url(0)}/canvases/{two_canvases['other']}/")
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    page.get_by_test_id("canvas").locator(".react-flow__pane").click(position={"x": 300, "y": 300})
    page.keyboard.press("Control+v")
    page.wait_for_function("() => window.__canvasweb.getState().server.nodes.length === 2", timeout=10_000)
    assert len(page.evaluate("() => window.__canvasweb.getState().server.edges")) == 1
    ctx.close()
