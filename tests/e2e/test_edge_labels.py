"""Edge labels never sit on a card (issue 12, "edge labels overlap nodes"): a label goes on the part of its edge
that is visible between the two cards, shrinks to the relation alone or to a dot where the gap is short, and is
left out where not even a dot fits. The boxes are read from the page, so this checks what a person sees.
"""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import api, open_canvas

ZOOM_JS = "() => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a"

# every label's box and every card's box, in screen pixels
BOXES_JS = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    cards: [...document.querySelectorAll('.react-flow__node')].map((el) => [el.dataset.id, box(el)]),
    labels: [...document.querySelectorAll('.edge-label')].map((el) => [el.dataset.testid, el.dataset.level || 'full', box(el)]),
  };
}"""


def node(nid: str, text: str, x: float, y: float, **extra) -> dict:
    return {"type": "node.create", "node": {"id": nid, "content": text, "x": x, "y": y, **extra}}


def edge(eid: str, source: str, target: str, relation: str, label: str = "") -> dict:
    body = {"id": eid, "source": source, "target": target, "relation": relation, "label": label}
    return {"type": "edge.create", "edge": body}


@pytest.fixture
def crowded_canvas(server):
    """Cards close together: side by side with a 60 px gap, one above the other, a card lying across a long
    edge, two cards 12 px apart, and one wide gap where the whole label fits."""
    data = server.e2e_setup(users=["alice"], owner="alice", name="标签 Labels")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    n = {k: str(uuid.uuid4()) for k in "abcdefghijk"}
    e = {k: str(uuid.uuid4()) for k in ("side", "stacked", "crossed", "touching", "wide")}
    ops = [
        node(n["a"], "甲 Ingest queue", 0, 0, pinned=True),
        node(n["b"], "乙 Parser pool", 260, 0),
        node(n["c"], "丙 Rate card", 0, 230),
        node(n["d"], "丁 Invoice run", 0, 420),
        node(n["e"], "戊 Edge proxy", 420, 230),
        node(n["f"], "己 Detour host", 670, 215),
        node(n["g"], "庚 Origin pool", 970, 230),
        node(n["h"], "辛 Left twin", 420, 420),
        node(n["i"], "壬 Right twin", 632, 420),
        node(n["j"], "癸 Nightly dump", 0, 640),
        node(n["k"], "子 Cold archive", 760, 640),
        edge(e["side"], n["a"], n["b"], "depends_on", "预热缓存 warm cache"),
        edge(e["stacked"], n["c"], n["d"], "causes", "月结 month end"),
        edge(e["crossed"], n["e"], n["g"], "relates_to", "旁路 bypass"),
        edge(e["touching"], n["h"], n["i"], "conflicts_with"),
        edge(e["wide"], n["j"], n["k"], "depends_on", "每晚 nightly copy"),
    ]
    api(server, token, "POST", f"/api/canvases/{cid}/ops/", {"op": {"type": "batch", "ops": ops}})
    return {**data, "nodes": n, "edges": e}


def intersects(a, b) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def test_edge_labels_never_cover_a_card(browser, server, crowded_canvas, shot):
    edges = crowded_canvas["edges"]
    ctx, page = open_canvas(
        browser, server, "alice", crowded_canvas["canvas_id"], viewport={"width": 1920, "height": 1080}
    )
    page.evaluate("() => document.querySelector('.react-flow__controls-fitview').click()")
    expect(page.locator(".react-flow__node")).to_have_count(11)
    page.wait_for_timeout(700)
    zoom = page.evaluate(ZOOM_JS)
    assert zoom >= 0.45, f"labels are drawn at full detail only, zoom {zoom}"
    # the wide gap keeps the whole label, and every card is on screen
    wide = page.get_by_test_id(f"edge-label-{edges['wide']}")
    expect(wide).to_be_visible()
    expect(wide).to_contain_text("每晚 nightly copy")
    for nid in crowded_canvas["nodes"].values():
        expect(page.locator(f".react-flow__node[data-id='{nid}']")).to_be_in_viewport()

    boxes = page.evaluate(BOXES_JS)
    shot(page, "edge-labels-crowded")
    overlaps = [
        (label, level, card)
        for label, level, lbox in boxes["labels"]
        for card, cbox in boxes["cards"]
        if intersects(lbox, cbox)
    ]
    assert overlaps == [], f"labels on cards: {overlaps}"
    levels = {label.removeprefix("edge-label-"): level for label, level, _ in boxes["labels"]}
    # one above the other there is room for the whole label; side by side only for a smaller one
    assert levels.get(edges["stacked"]) == "full"
    assert levels.get(edges["side"]) in ("compact", "dot")
    # the edge under a card gets its label beside that card, not on it
    assert edges["crossed"] in levels
    # 12 px apart: not even a dot fits, so no label at all
    assert edges["touching"] not in levels
    ctx.close()
