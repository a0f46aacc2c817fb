"""Issue 12 #6 in the browser: an accepted chat suggestion, a supersede copy and an imported Obsidian group land
on a free spot, never on top of another card. Geometry is read from the cards' bounding boxes in the DOM.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import login
from tests.e2e.helpers import add_node, open_canvas


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def card_boxes(page) -> dict[str, dict]:
    """Every rendered card's box on screen, by node id."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.react-flow__node[data-id]')]
            .filter(el => !el.dataset.testid?.startsWith('ghost-'))
            .map(el => { const r = el.getBoundingClientRect();
                         return [el.dataset.id, {x: r.x, y: r.y, width: r.width, height: r.height}]; }))"""
    )


def assert_no_overlap(page, node_id: str) -> dict:
    boxes = card_boxes(page)
    assert node_id in boxes, f"card {node_id} is not rendered"
    mine = boxes[node_id]
    assert mine["width"] > 0 and mine["height"] > 0, mine
    hits = {other: box for other, box in boxes.items() if other != node_id and boxes_overlap(mine, box)}
    assert not hits, (node_id, mine, hits)
    return mine


def node_ids(page) -> set[str]:
    return {n["id"] for n in page.evaluate("() => window.__canvasweb.getState().nodes")}


def wait_new_node(page, before: set[str], needle: str) -> str:
    page.wait_for_function(
        "([before, needle]) => window.__canvasweb.getState().nodes"
        ".some(n => !before.includes(n.id) && n.content.includes(needle))",
        arg=[sorted(before), needle],
        timeout=10_000,
    )
    return next(
        n["id"]
        for n in page.evaluate("() => window.__canvasweb.getState().nodes")
        if n["id"] not in before and needle in n["content"]
    )


@pytest.fixture
def crowded_canvas(server):
    """A centre card with a full ring of neighbours: the obvious spot and the first ring around it are taken."""
    data = server.e2e_setup(users=["alice"], owner="alice", name="拥挤画布 Crowded")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    texts = [
        "交付节奏：每两周一次",
        "Feature flags live in the admin panel",
        "日志保留九十天",
        "Reviewers rotate every sprint",
        "监控告警发到值班群",
        "Design tokens come from the brand kit",
        "测试环境每晚重置",
        "Support hours are nine to six",
    ]
    centre = add_node(server, token, cid, "中心卡片：发布清单 Release checklist", 0, 0, kind="decision")
    ring = []
    for i, (dx, dy) in enumerate([(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]):
        ring.append(add_node(server, token, cid, texts[i], dx * 240, dy * 130))
    return {**data, "centre": centre, "ring": ring}


def accept_captured(page, scripted_model, statement: str, needle: str) -> str:
    scripted_model.push({"content": "Noted. 已记下。"})
    box = page.get_by_test_id("chat-input")
    box.fill(statement)
    box.press("Enter")
    chip = page.get_by_test_id("suggestions").locator("li.suggestion", has_text=needle).first
    expect(chip).to_be_visible(timeout=15_000)
    before = node_ids(page)
    chip.locator("button.suggestion-accept").click()
    return wait_new_node(page, before, needle)


def test_accepted_suggestions_land_on_free_spots_in_view(
    browser, server, scripted_model, crowded_canvas, shot
):
    cid = crowded_canvas["canvas_id"]
    ctx, page = open_canvas(browser, server, "alice", cid)
    expect(page.get_by_test_id("chat-panel")).to_be_visible()
    # The viewport centre (where an accepted fact goes) is on the centre card.
    page.evaluate(f"() => window.__canvasweb.focusNode('{crowded_canvas['centre']}')")
    page.keyboard.press("Escape")
    page.wait_for_timeout(400)

    english = accept_captured(page, scripted_model, "The release build server port is 7311.", "7311")
    expect(page.get_by_test_id(f"node-{english}")).to_be_visible(timeout=5_000)
    mine = assert_no_overlap(page, english)
    pane = page.get_by_test_id("canvas").bounding_box()
    # Placed near the view's centre: the whole card is on screen without panning.
    assert pane["x"] <= mine["x"] and mine["x"] + mine["width"] <= pane["x"] + pane["width"], (pane, mine)
    assert pane["y"] <= mine["y"] and mine["y"] + mine["height"] <= pane["y"] + pane["height"], (pane, mine)

    chinese = accept_captured(page, scripted_model, "夜间备份任务的保留期是 45 天", "45 天")
    expect(page.get_by_test_id(f"node-{chinese}")).to_be_visible(timeout=5_000)
    assert_no_overlap(page, chinese)
    assert_no_overlap(page, english)
    shot(page, "placement-accepted-suggestions")
    ctx.close()


def test_a_supersede_copy_lands_on_no_card(browser, server, crowded_canvas, shot):
    cid, centre = crowded_canvas["canvas_id"], crowded_canvas["centre"]
    ctx, page = open_canvas(browser, server, "alice", cid)
    page.evaluate(f"() => window.__canvasweb.focusNode('{centre}')")
    page.get_by_test_id("inspector-supersede").click()
    draft = page.get_by_test_id("supersede-draft-text")
    expect(draft).to_be_visible()
    draft.fill("中心卡片：发布清单 v2，加上回滚演练 Release checklist with a rollback drill")
    before = node_ids(page)
    page.get_by_test_id("supersede-save").click()
    copy = wait_new_node(page, before, "回滚演练")
    old = next(n for n in page.evaluate("() => window.__canvasweb.getState().nodes") if n["id"] == centre)
    assert old["superseded_by"] == copy
    # Reachable: focusing it brings it on screen; there it overlaps no card (the grown old one included).
    page.evaluate(f"() => window.__canvasweb.focusNode('{copy}')")
    expect(page.get_by_test_id(f"node-{copy}")).to_be_in_viewport(timeout=5_000)
    page.wait_for_timeout(400)
    assert_no_overlap(page, copy)
    shot(page, "placement-supersede-copy")
    ctx.close()


def test_an_imported_obsidian_group_lands_on_no_card(browser, server, tmp_path, shot):
    """A group becomes a note card; its members and a neighbour sit where that card would naturally go."""
    server.e2e_setup(users=["alice"], owner="alice", name="导入前 Before import")
    document = {
        "nodes": [
            {
                "id": "g1",
                "type": "group",
                "x": 0,
                "y": 0,
                "width": 700,
                "height": 420,
                "label": "发布 Release",
            },
            {"id": "t1", "type": "text", "x": 10, "y": 10, "width": 250, "height": 90, "text": "先冻结主干"},
            {
                "id": "t2",
                "type": "text",
                "x": 300,
                "y": 40,
                "width": 250,
                "height": 90,
                "text": "Tag the build",
            },
            {
                "id": "t3",
                "type": "text",
                "x": 40,
                "y": 220,
                "width": 250,
                "height": 90,
                "text": "通知客服团队",
            },
            {
                "id": "t4",
                "type": "text",
                "x": -260,
                "y": -40,
                "width": 240,
                "height": 90,
                "text": "Outside note",
            },
            {"id": "t5", "type": "text", "x": 0, "y": -150, "width": 240, "height": 90, "text": "组外的便签"},
        ],
        "edges": [{"id": "e1", "fromNode": "t1", "toNode": "t2"}],
    }
    path = tmp_path / "release.canvas"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")

    context = browser.new_context(viewport={"width": 1600, "height": 1000}, locale="zh-CN")
    context.add_init_script("localStorage.setItem('canvasweb.lang', 'en')")
    page = context.new_page()
    login(page, server.url(0), "alice")
    page.goto(f"{server.url(0)}/")
    page.get_by_test_id("import-file-input").set_input_files(str(path))
    page.wait_for_url(lambda url: "/canvases/" in url, timeout=10_000)
    expect(page.get_by_test_id("connection-status")).to_have_attribute(
        "data-status", "online", timeout=10_000
    )
    page.wait_for_function("() => window.__canvasweb.getState().nodes.length === 6", timeout=10_000)
    nodes = page.evaluate("() => window.__canvasweb.getState().nodes")
    group = next(n for n in nodes if "group" in n["tags"])
    assert group["content"] == "发布 Release"
    members = [n for n in nodes if "group:发布 Release" in n["tags"]]
    assert {n["content"] for n in members} == {"先冻结主干", "Tag the build", "通知客服团队"}
    expect(page.locator(".react-flow__node[data-id]")).to_have_count(6, timeout=5_000)
    page.wait_for_timeout(400)
    for n in nodes:
        assert_no_overlap(page, n["id"])
    page.evaluate(f"() => window.__canvasweb.focusNode('{group['id']}')")
    expect(page.get_by_test_id(f"node-{group['id']}")).to_be_in_viewport(timeout=5_000)
    shot(page, "placement-imported-group")
    context.close()
