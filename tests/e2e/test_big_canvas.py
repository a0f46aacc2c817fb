"""A canvas over the culling threshold (1,000 nodes, frontend/src/canvas/lod/culling.ts) keeps its behaviour:
nodes outside the opening viewport are not mounted, appear with their text when you pan there, search finds
and shows them, an edge to a far node is drawn, and fit-to-all spans the whole canvas.
"""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import api, open_canvas

WIDE = {"width": 1920, "height": 1080}  # fit-to-all at the minimum zoom 0.1 must hold the whole canvas
COLS, ROWS, DX, DY = 40, 26, 240, 180  # 1,040 nodes over 9,560 x 4,610 px
ZOOM_JS = "() => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a"


def text_at(col: int, row: int) -> str:
    topics = ["灯塔 beacon", "潮汐表 tide table", "渡口 ferry pier", "风向标 weather vane"]
    return f"Cell {col}/{row}: {topics[(col + row) % len(topics)]} 第{row}排"


@pytest.fixture
def big_canvas(server):
    data = server.e2e_setup(users=["alice"], owner="alice", name="大画布 Big canvas")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    ids = {(c, r): str(uuid.uuid4()) for r in range(ROWS) for c in range(COLS)}
    cells = list(ids.items())
    for start in range(0, len(cells), 500):
        ops = [
            {
                "type": "node.create",
                "node": {
                    "id": nid,
                    "content": text_at(c, r),
                    "x": c * DX,
                    "y": r * DY,
                    "pinned": (c, r) == (0, 0),
                },
            }
            for (c, r), nid in cells[start : start + 500]
        ]
        api(server, token, "POST", f"/api/canvases/{cid}/ops/", {"op": {"type": "batch", "ops": ops}})
    # a lone note below the grid (nothing else near it), findable by a phrase no other node has, and an edge
    # from the anchor to the far corner
    lonely = str(uuid.uuid4())
    far_edge = str(uuid.uuid4())
    api(
        server,
        token,
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "batch",
                "ops": [
                    {
                        "type": "node.create",
                        "node": {
                            "id": lonely,
                            "content": "迷路的信鸽 The lost carrier pigeon",
                            "x": 4000,
                            "y": 7500,
                        },
                    },
                    {
                        "type": "edge.create",
                        "edge": {
                            "id": far_edge,
                            "source": ids[(0, 0)],
                            "target": ids[(COLS - 1, ROWS - 1)],
                            "relation": "relates_to",
                        },
                    },
                ],
            }
        },
    )
    return {**data, "ids": ids, "lonely": lonely, "far_edge": far_edge}


def screen_point(page, x: float, y: float) -> tuple[float, float]:
    """The screen position of a flow point (the viewport's transform inside the React Flow pane)."""
    return tuple(
        page.evaluate(
            """([x, y]) => {
              const pane = document.querySelector('[data-testid=canvas] .react-flow').getBoundingClientRect();
              const m = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform);
              return [pane.left + m.e + x * m.a, pane.top + m.f + y * m.a];
            }""",
            [x, y],
        )
    )


def mounted(page, node_id: str):
    return page.locator(f".react-flow__node[data-id='{node_id}']")


def test_culled_nodes_appear_when_panned_to_and_search_still_finds_them(browser, server, big_canvas):
    ids, lonely = big_canvas["ids"], big_canvas["lonely"]
    ctx, page = open_canvas(browser, server, "alice", big_canvas["canvas_id"], viewport=WIDE)
    anchor = page.get_by_test_id(f"node-{ids[(0, 0)]}")
    expect(anchor).to_be_in_viewport(timeout=15_000)
    expect(anchor).to_contain_text("Cell 0/0")
    assert page.evaluate(ZOOM_JS) >= 0.8
    # far away and not yet mounted: React Flow was not handed all 1,041 nodes
    target = ids[(9, 1)]
    expect(mounted(page, target)).to_have_count(0)
    assert page.locator(".react-flow__node").count() < 300
    # ... but the far end of an edge leaving the view is mounted, so the edge is drawn
    expect(page.locator(f"[data-testid='rf__edge-{big_canvas['far_edge']}']")).to_have_count(1)

    # Pan right by dragging the empty pane until the target card is on screen, with its text.
    pane = page.get_by_test_id("canvas").locator(".react-flow__pane")
    box = pane.bounding_box()
    for _ in range(8):
        if mounted(page, target).count() and page.get_by_test_id(f"node-{target}").is_visible():
            break
        x0, y = box["x"] + box["width"] * 0.75, box["y"] + box["height"] - 40
        page.mouse.move(x0, y)
        page.mouse.down()
        page.mouse.move(x0 - box["width"] * 0.5, y, steps=10)
        page.mouse.up()
        page.wait_for_timeout(200)
    card = page.get_by_test_id(f"node-{target}")
    expect(card).to_be_in_viewport()
    expect(card).to_contain_text("Cell 9/1")
    expect(card).to_contain_text("渡口")

    # Search over every node, culled or not: it jumps to the lone note and highlights it.
    expect(mounted(page, lonely)).to_have_count(0)
    page.keyboard.press("Control+k")
    page.get_by_test_id("canvas-search-input").fill("信鸽")
    hits = page.get_by_test_id("canvas-search-hit")
    expect(hits).to_have_count(1)
    hits.first.click()
    expect(mounted(page, lonely)).to_have_attribute("data-search-flash", "1")
    expect(page.get_by_test_id(f"node-{lonely}")).to_be_in_viewport()
    expect(page.get_by_test_id(f"node-{lonely}")).to_contain_text("carrier pigeon")

    # Fit-to-all spans the whole canvas, not only the mounted nodes (here: the lone note alone). Zoomed out
    # that far, the nodes are boxes on one <canvas> (lod/LodLayer.tsx): only the selected note stays a DOM node.
    page.evaluate("() => document.querySelector('.react-flow__controls-fitview').click()")
    page.wait_for_timeout(800)
    assert page.evaluate(ZOOM_JS) < 0.45
    layer = page.get_by_test_id("lod-layer")
    expect(layer).to_have_attribute("data-drawn", str(len(ids)))
    assert page.locator(".react-flow__node").count() == 1
    expect(page.get_by_test_id(f"node-{lonely}")).to_be_in_viewport()

    # A click on a box selects its node, which becomes a real (draggable) node, on screen; every corner is.
    for col, row in ((COLS - 1, 0), (0, ROWS - 1), (COLS - 1, ROWS - 1)):
        x, y = screen_point(page, col * DX + 100, row * DY + 55)
        page.mouse.click(x, y)
        expect(mounted(page, ids[(col, row)])).to_have_count(1)
        expect(page.get_by_test_id(f"node-{ids[(col, row)]}")).to_be_in_viewport()
        expect(page.get_by_test_id("inspector-content")).to_have_value(text_at(col, row))
    # A double-click on a box zooms in to it: a readable card with its text.
    x, y = screen_point(page, 3 * DX + 100, 20 * DY + 55)
    page.mouse.dblclick(x, y)
    card = page.get_by_test_id(f"node-{ids[(3, 20)]}")
    expect(card).to_contain_text("Cell 3/20")
    expect(card).to_be_in_viewport()
    page.wait_for_timeout(500)
    assert page.evaluate(ZOOM_JS) >= 0.8
    expect(page.get_by_test_id("lod-layer")).to_have_count(0)
    ctx.close()
