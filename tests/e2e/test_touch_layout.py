"""The canvas on a phone, by touch (390×844, has_touch), in English and Chinese: every control is a >= 40 px target
and none covers another (also with a panel's sheet open), the toolbar is one row with the Export label on one
line, a tap selects a card for the inspector, a long press on the empty pane opens the new-note draft and
saving it makes a node, a tap there does not, and pinch zoom reaches React Flow."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas

PHONE = {"width": 390, "height": 844}
MIN_TARGET = 40
# test id -> what it is (the zoom buttons have no test id: React Flow's own, found by class below)
CONTROLS = [
    "header-menu-button",
    "chat-toggle",
    "inspector-toggle",
    "undo-button",
    "redo-button",
    "agent-filter",
    "export-button",
    "minimap-toggle",
]
TOUCH_HINT = {"en": "Long press", "zh-Hans": "长按"}


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"] - 0.5
        and b["x"] < a["x"] + a["width"] - 0.5
        and a["y"] < b["y"] + b["height"] - 0.5
        and b["y"] < a["y"] + a["height"] - 0.5
    )


def inside(box: dict) -> bool:
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= PHONE["width"]
        and box["y"] + box["height"] <= PHONE["height"]
    )


def control_boxes(page) -> dict[str, dict]:
    boxes = {test_id: page.get_by_test_id(test_id).bounding_box() for test_id in CONTROLS}
    zoom = page.locator(".react-flow__controls-button")
    assert zoom.count() >= 2
    for i in range(zoom.count()):
        boxes[f"zoom-{i}"] = zoom.nth(i).bounding_box()
    return boxes


def assert_targets(boxes: dict[str, dict]) -> None:
    for name, box in boxes.items():
        assert box, name
        assert box["width"] >= MIN_TARGET - 0.5 and box["height"] >= MIN_TARGET - 0.5, (name, box)
        assert inside(box), (name, box)
    for (a, box_a), (b, box_b) in itertools.combinations(boxes.items(), 2):
        assert not overlap(box_a, box_b), (a, box_a, b, box_b)


def touch(cdp, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send(
        "Input.dispatchTouchEvent",
        {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]},
    )


def empty_pane_point(page) -> tuple[float, float]:
    """A point in the lower middle of the canvas where the finger lands on the empty pane."""
    point = page.evaluate(
        """() => {
          const c = document.querySelector('[data-testid=canvas]').getBoundingClientRect();
          for (let fy = 0.75; fy > 0.3; fy -= 0.05)
            for (const fx of [0.5, 0.35, 0.65]) {
              const x = c.left + c.width * fx, y = c.top + c.height * fy;
              const el = document.elementFromPoint(x, y);
              if (el && el.classList.contains('react-flow__pane')) return [x, y];
            }
          return null;
        }"""
    )
    assert point, "no empty pane to press on"
    return point[0], point[1]


@pytest.mark.parametrize("lang", ["en", "zh-Hans"])
def test_phone_touch_targets_toolbar_and_long_press_new_note(browser, server, shot, lang):
    data = server.e2e_setup(users=["alice"], owner="alice", name=f"Touch {lang}")
    cid, token = data["canvas_id"], data["tokens"]["alice"]
    add_node(server, token, cid, "一条便签 a note", 0, 0)
    ctx, page = open_canvas(
        browser, server, "alice", cid, viewport=PHONE, ui_language=lang, has_touch=True, is_mobile=True
    )
    expect(page.locator(".react-flow__node").first).to_be_visible()
    expect(page.get_by_test_id("export-button")).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    # Every control: >= 40×40, inside the screen, no two overlapping.
    assert_targets(control_boxes(page))

    # The toolbar is one row, and "Export" / "导出" is one line of text.
    tops = (
        page.get_by_test_id("canvas-toolbar")
        .locator(".tb-btn")
        .evaluate_all("els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    )
    assert len(set(tops)) == 1, tops
    lines = (
        page.get_by_test_id("export-button")
        .locator(".tb-label")
        .evaluate(
            """el => { const r = document.createRange(); r.selectNodeContents(el);
                   return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"""
        )
    )
    assert lines == 1, lines
    shot(page, f"phone-touch-{lang}")

    # With a sheet open, its close button and the other panel's toggle stay apart and reachable.
    for toggle, sheet in (("chat-toggle", "chat-panel"), ("inspector-toggle", "inspector")):
        page.get_by_test_id(toggle).tap()
        expect(page.get_by_test_id(sheet)).to_be_visible()
        expect(page.get_by_test_id(toggle)).to_have_attribute("aria-expanded", "true")
        boxes = {
            t: page.get_by_test_id(t).bounding_box()
            for t in ("chat-toggle", "inspector-toggle", "header-menu-button")
        }
        boxes["sheet"] = page.get_by_test_id(sheet).bounding_box()
        assert_targets({k: v for k, v in boxes.items() if k != "sheet"})
        for name in ("chat-toggle", "inspector-toggle"):
            assert not overlap(boxes[name], boxes["sheet"]), (name, boxes)
        if sheet == "inspector":
            # the touch hint sits with the shortcuts in the overview, in the page's language
            expect(page.get_by_test_id("touch-hints")).to_contain_text(TOUCH_HINT[lang])
            shot(page, f"phone-inspector-sheet-{lang}")
        page.get_by_test_id(toggle).tap()
        expect(page.get_by_test_id(toggle)).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_test_id("inspector")).to_have_count(0)

    # A tap selects a card; its text is editable in the inspector's sheet.
    page.locator(".react-flow__node").filter(has_text="一条便签").tap()
    page.get_by_test_id("inspector-toggle").tap()
    expect(page.get_by_test_id("inspector-content")).to_be_visible()
    page.get_by_test_id("inspector-toggle").tap()
    expect(page.get_by_test_id("inspector")).to_have_count(0)

    cdp = ctx.new_cdp_session(page)
    x, y = empty_pane_point(page)

    # A tap is not a long press.
    touch(cdp, "touchStart", [(x, y)])
    touch(cdp, "touchEnd", [])
    page.wait_for_timeout(900)
    expect(page.get_by_test_id("note-draft")).to_have_count(0)

    # A long press on the empty pane opens the new-note draft; saving it creates the node.
    touch(cdp, "touchStart", [(x, y)])
    page.wait_for_timeout(800)
    touch(cdp, "touchEnd", [])
    draft = page.get_by_test_id("note-draft")
    expect(draft).to_be_visible()
    text = f"长按新建 long-press note {lang}"
    editor = draft.locator("textarea")
    editor.fill(text)
    editor.press("Enter")
    expect(draft).to_have_count(0)
    expect(page.locator(".react-flow__node").filter(has_text=text)).to_have_count(1)
    expect(page.get_by_test_id("connection-status")).to_have_attribute("data-status", "online")
    for _ in range(50):  # the op reaches the server within a moment
        nodes = api(server, token, "GET", f"/api/canvases/{cid}/snapshot/")["nodes"]
        if any(n["content"] == text for n in nodes):
            break
        page.wait_for_timeout(100)
    assert any(n["content"] == text for n in nodes), nodes

    # Pinch zoom is React Flow's, not switched off: two fingers spreading apart zoom in.
    def scale() -> float:
        return page.evaluate(
            "() => new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a"
        )

    before = scale()
    x, y = empty_pane_point(page)
    touch(cdp, "touchStart", [(x - 20, y), (x + 20, y)])
    for step in range(1, 6):
        touch(cdp, "touchMove", [(x - 20 - 12 * step, y), (x + 20 + 12 * step, y)])
    touch(cdp, "touchEnd", [])
    page.wait_for_timeout(300)
    assert scale() > before * 1.2, (before, scale())
    expect(page.get_by_test_id("note-draft")).to_have_count(0)
    ctx.close()
