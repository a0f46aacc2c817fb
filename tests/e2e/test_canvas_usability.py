"""Canvas usability in a real browser (issue 12): readable on open (problem 2), find and level of detail
(problem 5), placement of new nodes (problem 6) and undo under fast presses (problem 9).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas

LAPTOP = {"width": 1440, "height": 900}

ZOOM_JS = "() => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a"
TRANSFORM_JS = (
    "() => { const m = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport'))"
    ".transform); return [m.e, m.f, m.a]; }"
)


def settle(page) -> None:
    page.wait_for_function("() => !!document.querySelector('.react-flow__viewport')")
    page.wait_for_timeout(400)


@pytest.fixture
def wide_canvas(server):
    """18 nodes spread over 4,000 × 2,400 px (fit-to-all would open near zoom 0.3), one pinned anchor."""
    data = server.e2e_setup(
        users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="可读 Readable"
    )
    token = data["tokens"]["alice"]
    ids = [
        add_node(
            server,
            token,
            data["canvas_id"],
            f"Fact {i}: 服务 {i} listens on {7100 + i}",
            (i % 6) * 800,
            (i // 6) * 1200,
        )
        for i in range(18)
    ]
    api(
        server,
        token,
        "POST",
        f"/api/canvases/{data['canvas_id']}/ops/",
        {"op": {"type": "node.update", "id": ids[7], "fields": {"pinned": True}}},
    )
    data["ids"] = ids
    return data


def test_canvas_opens_readable_remembers_the_viewport_and_shows_a_resizable_chat(
    browser, server, wide_canvas, shot
):
    cid, ids = wide_canvas["canvas_id"], wide_canvas["ids"]
    ctx, page = open_canvas(browser, server, "alice", cid, viewport=LAPTOP)
    settle(page)
    assert page.evaluate(ZOOM_JS) >= 0.8
    # the pinned anchor is on screen, and its text is readable size
    anchor = page.get_by_test_id(f"node-{ids[7]}")
    expect(anchor).to_be_in_viewport()
    # the chat is open at 1440 px
    chat = page.get_by_test_id("chat-region")
    assert chat.bounding_box()["width"] >= 280
    shot(page, "usability-canvas-on-open", doc="canvas-on-open")

    # Pan somewhere else; a reload comes back there.
    pane = page.get_by_test_id("canvas").locator(".react-flow__pane")
    box = pane.bounding_box()
    page.mouse.move(box["x"] + 300, box["y"] + 300)
    page.mouse.down()
    page.mouse.move(box["x"] + 60, box["y"] + 120, steps=8)
    page.mouse.up()
    page.wait_for_timeout(300)
    before = page.evaluate(TRANSFORM_JS)
    page.reload()
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    settle(page)
    after = page.evaluate(TRANSFORM_JS)
    assert [round(v) for v in after[:2]] == [round(v) for v in before[:2]] and abs(
        after[2] - before[2]
    ) < 0.01

    # Drag the chat wider; the width survives a reload.
    width = chat.bounding_box()["width"]
    handle = page.get_by_test_id("chat-resizer").bounding_box()
    page.mouse.move(handle["x"] + 4, handle["y"] + 200)
    page.mouse.down()
    page.mouse.move(handle["x"] + 104, handle["y"] + 200, steps=6)
    page.mouse.up()
    wider = chat.bounding_box()["width"]
    assert wider >= width + 80
    page.reload()
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    assert abs(page.get_by_test_id("chat-region").bounding_box()["width"] - wider) <= 2
    ctx.close()

    # Another user on the same browser profile keeps their own viewport: bob opens readable, not at alice's spot.
    ctx_b, b = open_canvas(browser, server, "bob", cid, viewport=LAPTOP)
    settle(b)
    assert b.evaluate(ZOOM_JS) >= 0.8
    ctx_b.close()


def test_find_jumps_to_a_node_in_english_or_chinese_and_low_zoom_draws_blocks(
    browser, server, wide_canvas, shot
):
    cid, ids = wide_canvas["canvas_id"], wide_canvas["ids"]
    token = wide_canvas["tokens"]["alice"]
    far = add_node(server, token, cid, "数据库迁移在周五晚上 Migration window is Friday night", 5200, 3600)
    ctx, page = open_canvas(browser, server, "alice", cid, viewport=LAPTOP)
    settle(page)
    expect(page.get_by_test_id(f"node-{far}")).not_to_be_in_viewport()

    page.get_by_test_id("canvas").click(position={"x": 20, "y": 400})
    page.keyboard.press("Control+k")
    box = page.get_by_test_id("canvas-search-input")
    expect(box).to_be_focused()
    box.fill("迁移")
    hits = page.get_by_test_id("canvas-search-hit")
    expect(hits).to_have_count(1)
    expect(hits.first).to_contain_text("数据库迁移")
    shot(page, "usability-search", doc="search")
    box.press("Enter")
    card = page.locator(f".react-flow__node[data-id='{far}']")
    expect(card).to_have_attribute("data-search-flash", "1")
    expect(page.get_by_test_id(f"node-{far}")).to_be_in_viewport()
    expect(box).to_have_count(0)

    # Ctrl+F too, case-insensitive English with a word match
    page.keyboard.press("Control+f")
    page.get_by_test_id("canvas-search-input").fill("LISTENS on 7105")
    expect(page.get_by_test_id("canvas-search-hit")).to_have_count(1)
    page.get_by_test_id("canvas-search-hit").click()
    expect(page.get_by_test_id(f"node-{ids[5]}")).to_be_in_viewport()

    # Zoomed far out, cards become plain blocks (no text), zoomed in they are cards again.
    page.evaluate("() => document.querySelector('.react-flow__controls-fitview').click()")
    page.wait_for_timeout(600)
    assert page.evaluate(ZOOM_JS) < 0.45
    expect(page.locator("[data-lod='block']").first).to_be_visible()
    expect(page.get_by_test_id("node-content")).to_have_count(0)
    ctx.close()
