"""History in a real browser: a node's timeline with edits by two people and an agent write, revert seen live
by both, the activity feed, undo/redo with the keyboard (including a skipped part), and .canvas export/import.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas


def node_of(page, node_id: str) -> dict:
    return page.evaluate("id => window.__canvasweb.getState().nodes.find(n => n.id === id)", node_id)


def wait_node(page, node_id: str, js_condition: str, timeout: int = 5_000) -> None:
    """Wait until the node (as `n`) satisfies a JS condition in the page's synced state."""
    page.wait_for_function(
        f"id => {{ const n = window.__canvasweb.getState().nodes.find(x => x.id === id); return !!n && ({js_condition}); }}",
        arg=node_id,
        timeout=timeout,
    )


def edit_content(page, node_id: str, text: str) -> None:
    page.evaluate(f"() => window.__canvasweb.focusNode('{node_id}')")
    box = page.get_by_test_id("inspector-content")
    expect(box).to_be_visible()
    box.fill(text)
    box.press("Control+Enter")
    page.wait_for_function(
        "([id, text]) => window.__canvasweb.getState().server.nodes.some(n => n.id === id && n.content === text)",
        arg=[node_id, text],
        timeout=5_000,
    )


def click_empty_canvas(page) -> None:
    pane = page.get_by_test_id("canvas").locator(".react-flow__pane")
    box = pane.bounding_box()
    pane.click(position={"x": 80, "y": box["height"] - 40})


@pytest.fixture
def history_canvas(server):
    data = server.e2e_setup(
        users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="历史 History"
    )
    api(
        server,
        data["tokens"]["alice"],
        "PATCH",
        f"/api/canvases/{data['canvas_id']}/",
        {"agent_policy": {"mode": "auto"}},
    )
    return data


def test_timeline_with_two_people_and_the_agent_and_revert_seen_live(
    browser, server, scripted_model, history_canvas, shot
):
    cid, tokens = history_canvas["canvas_id"], history_canvas["tokens"]
    ctx_a, a = open_canvas(browser, server, "alice", cid)
    ctx_b, b = open_canvas(browser, server, "bob", cid)

    # 1. The agent writes a node for alice (auto mode: applied at once).
    scripted_model.push(
        {
            "tool_calls": [
                {
                    "name": "add_node",
                    "arguments": {"content": "JWT 过期时间为 15 分钟", "kind": "config", "x": 0, "y": 0},
                }
            ]
        },
        {"content": "已记录 JWT 过期时间。"},
    )
    a.get_by_test_id("chat-input").fill("记一下：JWT 15 分钟过期")
    a.get_by_test_id("chat-input").press("Enter")
    a.wait_for_function(
        "() => window.__canvasweb.getState().nodes.some(n => n.author_kind === 'agent')", timeout=10_000
    )
    node_id = next(
        n["id"]
        for n in a.evaluate("() => window.__canvasweb.getState().nodes")
        if n["author_kind"] == "agent"
    )
    expect(b.get_by_test_id(f"node-{node_id}").get_by_test_id("badge-agent")).to_be_visible(timeout=5_000)

    # 2. Alice edits its text, 3. bob changes its weight (each in their own browser).
    edit_content(a, node_id, "JWT 过期时间为 30 分钟")
    wait_node(b, node_id, "n.content === 'JWT 过期时间为 30 分钟'")
    b.evaluate(f"() => window.__canvasweb.focusNode('{node_id}')")
    weight = b.get_by_test_id("inspector-weight")
    weight.fill("3")
    weight.press("Enter")
    wait_node(a, node_id, "n.weight === 3")

    # The history panel shows all three, with actors and field diffs.
    a.evaluate(f"() => window.__canvasweb.focusNode('{node_id}')")
    a.get_by_test_id("inspector-history-toggle").click()
    history = a.get_by_test_id("node-history")
    entries = history.locator("[data-testid^='history-entry-']")
    expect(entries).to_have_count(3, timeout=5_000)
    actors = [t.strip() for t in history.get_by_test_id("history-actor").all_inner_texts()]
    assert actors[0].startswith("bob") and actors[1].startswith("alice") and "agent for alice" in actors[2], (
        actors
    )
    newest = entries.nth(0)
    expect(newest.locator(".diff-row[data-field='weight']")).to_contain_text("1")
    expect(newest.locator(".diff-row[data-field='weight'] .diff-after")).to_have_text("3")
    expect(entries.nth(1).locator(".diff-row[data-field='content'] .diff-before")).to_have_text(
        "JWT 过期时间为 15 分钟"
    )
    expect(entries.nth(1).locator(".diff-row[data-field='content'] .diff-after")).to_have_text(
        "JWT 过期时间为 30 分钟"
    )
    expect(entries.nth(2).get_by_test_id("history-conversation-link")).to_be_visible()
    shot(a, "history-timeline-three-actors")

    # Filter by actor kind.
    history.get_by_test_id("history-filter-agent").click()
    expect(entries).to_have_count(1)
    expect(entries.first).to_have_attribute("data-actor-kind", "agent")
    history.get_by_test_id("history-filter-user").click()
    expect(entries).to_have_count(2)
    history.get_by_test_id("history-filter-all").click()
    expect(entries).to_have_count(3)

    # Revert to the agent's version: both canvases update live; the revert is itself logged.
    timeline = api(server, tokens["alice"], "GET", f"/api/canvases/{cid}/nodes/{node_id}/timeline/")
    created = next(e for e in timeline["entries"] if e["actor"]["kind"] == "agent")
    history.get_by_test_id(f"history-revert-{created['revision']}").click()
    for page in (a, b):
        wait_node(page, node_id, "n.content === 'JWT 过期时间为 15 分钟' && n.weight === 1")
    expect(b.get_by_test_id(f"node-{node_id}").get_by_test_id("node-content")).to_have_text(
        "JWT 过期时间为 15 分钟"
    )
    expect(entries).to_have_count(4, timeout=5_000)
    expect(entries.first.locator(".reason-chip")).to_have_text("revert")
    shot(a, "history-after-revert")
    shot(b, "history-revert-seen-by-bob")

    # The activity feed lists the changes; clicking one focuses its node.
    click_empty_canvas(b)
    b.get_by_test_id("tab-activity").click()
    feed = b.get_by_test_id("activity-feed")
    expect(feed.locator("[data-testid^='activity-item-']").first).to_contain_text("revert", timeout=5_000)
    expect(feed).to_contain_text("agent for alice")
    feed.locator(f"[data-node-id='{node_id}']").last.click()
    expect(b.get_by_test_id(f"node-{node_id}")).to_have_class(re.compile(r"\bselected\b"))
    shot(b, "history-activity-feed")
    b.get_by_test_id("tab-details").click()
    expect(b.get_by_test_id("inspector-content")).to_have_value("JWT 过期时间为 15 分钟")
    ctx_a.close()
    ctx_b.close()


def test_undo_redo_with_keyboard_and_a_skipped_part(browser, server, history_canvas, shot):
    cid, tokens = history_canvas["canvas_id"], history_canvas["tokens"]
    port = add_node(server, tokens["alice"], cid, "数据库端口是 5432", 0, 0, kind="config")
    region = add_node(server, tokens["alice"], cid, "部署区域：上海", 320, 0, kind="decision")
    ctx_a, a = open_canvas(browser, server, "alice", cid)
    ctx_b, b = open_canvas(browser, server, "bob", cid)

    edit_content(a, port, "数据库端口是 5433")
    click_empty_canvas(a)
    expect(a.get_by_test_id("undo-button")).to_be_enabled(timeout=5_000)
    a.keyboard.press("Control+z")
    for page in (a, b):
        wait_node(page, port, "n.content === '数据库端口是 5432'")
    expect(a.get_by_test_id("toast").last).to_contain_text("Undid your change")
    expect(a.get_by_test_id("redo-button")).to_be_enabled()
    a.keyboard.press("Control+Shift+z")
    for page in (a, b):
        wait_node(page, port, "n.content === '数据库端口是 5433'")

    # Alice renames a node, then bob changes the same text: undoing would overwrite bob, so it is skipped.
    edit_content(a, region, "部署区域：北京")
    wait_node(b, region, "n.content === '部署区域：北京'")
    edit_content(b, region, "部署区域：北京（双活）")
    wait_node(a, region, "n.content === '部署区域：北京（双活）'")
    click_empty_canvas(a)
    a.get_by_test_id("undo-button").click()
    toast = a.get_by_test_id("toast").filter(has_text="bob changed it since")
    expect(toast).to_be_visible(timeout=5_000)
    shot(a, "undo-skipped-toast")
    assert node_of(a, region)["content"] == "部署区域：北京（双活）"
    ctx_a.close()
    ctx_b.close()


def test_export_then_import_and_a_bad_file(browser, server, history_canvas, tmp_path, shot):
    cid, tokens = history_canvas["canvas_id"], history_canvas["tokens"]
    first = add_node(
        server, tokens["alice"], cid, "缓存用 Redis", 0, 0, kind="decision", tags=["cache"], pinned=True
    )
    second = add_node(server, tokens["alice"], cid, "会话 30 分钟过期", 300, 60, kind="config")
    api(
        server,
        tokens["alice"],
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "edge.create",
                "edge": {"source": second, "target": first, "relation": "depends_on", "label": "存储"},
            }
        },
    )
    ctx, page = open_canvas(browser, server, "alice", cid, accept_downloads=True)

    with page.expect_download() as info:
        page.get_by_test_id("export-button").click()
    download = info.value
    assert download.suggested_filename.endswith(".canvas")
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert {n["text"] for n in document["nodes"]} >= {"缓存用 Redis", "会话 30 分钟过期"}
    assert document["edges"][0]["label"] == "存储"

    # Import it from the canvas list: a new canvas opens with the same content.
    page.goto(f"{server.url(0)}/")
    expect(page.get_by_test_id("import-canvas-button")).to_be_visible()
    page.get_by_test_id("import-file-input").set_input_files(str(path))
    page.wait_for_url(lambda url: "/canvases/" in url and f"/canvases/{cid}/" not in url, timeout=10_000)
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    page.wait_for_function("() => window.__canvasweb.getState().nodes.length === 2", timeout=5_000)
    imported = page.evaluate("() => window.__canvasweb.getState()")
    assert {n["content"] for n in imported["nodes"]} == {"缓存用 Redis", "会话 30 分钟过期"}
    assert any(n["pinned"] and n["tags"] == ["cache"] for n in imported["nodes"])
    assert imported["edges"][0]["relation"] == "depends_on"
    shot(page, "import-opened")

    # A broken file is rejected whole, with every problem listed.
    bad = tmp_path / "broken.canvas"
    bad.write_text(
        json.dumps(
            {
                "nodes": [
                    {"id": "a", "type": "text", "x": "left", "y": 0, "width": 10, "height": 10},
                    {"type": "text", "text": "no id"},
                ],
                "edges": [{"id": "e", "fromNode": "a", "toNode": "missing"}],
            }
        ),
        encoding="utf-8",
    )
    page.goto(f"{server.url(0)}/")
    count_before = len(api(server, tokens["alice"], "GET", "/api/canvases/"))
    page.get_by_test_id("import-file-input").set_input_files(str(bad))
    dialog = page.get_by_test_id("import-error-dialog")
    expect(dialog).to_be_visible(timeout=5_000)
    expect(dialog.get_by_test_id("import-problems").locator("li")).not_to_have_count(0)
    shot(page, "import-errors")
    assert len(api(server, tokens["alice"], "GET", "/api/canvases/")) == count_before
    ctx.close()


def test_ten_quick_undos_are_ten_undos_in_order(browser, server, history_canvas):
    cid, tokens = history_canvas["canvas_id"], history_canvas["tokens"]
    ids = [
        add_node(server, tokens["alice"], cid, f"第 {i} 条笔记 note {i}", 260 * (i % 5), 140 * (i // 5))
        for i in range(10)
    ]
    ctx, page = open_canvas(browser, server, "alice", cid)
    click_empty_canvas(page)
    expect(page.get_by_test_id("undo-button")).to_be_enabled(timeout=5_000)
    for _ in range(10):
        page.keyboard.press("Control+z")  # no waiting between presses
    page.wait_for_function("() => window.__canvasweb.getState().server.nodes.length === 0", timeout=20_000)
    expect(page.get_by_test_id("toast").filter(has_text="Undid 10 of your changes")).to_be_visible()
    # The server inverted the ten creations newest first, one undo per press.
    activity = api(server, tokens["alice"], "GET", f"/api/canvases/{cid}/activity/?limit=200")
    undone = [i["undo_of"]["revision"] for i in reversed(activity["items"]) if i["reason"] == "undo"]
    created = [
        i["revision"]
        for i in reversed(activity["items"])
        if i["op_type"] == "node.create" and i["target_id"] in ids
    ]
    assert undone == sorted(created, reverse=True)
    ctx.close()


def test_node_history_names_the_linked_node(browser, server, history_canvas):
    cid, tokens = history_canvas["canvas_id"], history_canvas["tokens"]
    rollout = add_node(server, tokens["alice"], cid, "灰度发布分三批", 0, 0)
    checklist = add_node(server, tokens["alice"], cid, "Rollback checklist signed off", 320, 0)
    api(
        server,
        tokens["alice"],
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "edge.create",
                "edge": {"source": rollout, "target": checklist, "relation": "depends_on"},
            }
        },
    )
    ctx, page = open_canvas(browser, server, "alice", cid)
    for node, expected in (
        (rollout, "depends on ‘Rollback checklist signed off’"),
        (checklist, "‘灰度发布分三批’ depends on this"),
    ):
        page.evaluate(f"() => window.__canvasweb.focusNode('{node}')")
        show = page.locator("button.history-toggle")
        expect(show.or_(page.get_by_test_id("node-history"))).to_be_visible()
        if show.is_visible():
            show.click()
        expect(page.get_by_test_id("node-history").get_by_test_id("history-edge-other")).to_have_text(
            f" · {expected}"
        )
    ctx.close()


def snapshot_node(server, token: str, cid: int, node_id: str) -> dict:
    return next(
        n for n in api(server, token, "GET", f"/api/canvases/{cid}/snapshot/")["nodes"] if n["id"] == node_id
    )


def flow_position(page, node_id: str) -> tuple[float, float]:
    """The card's position as React Flow renders it: translate(x px, y px) on the node wrapper."""
    transform = page.locator(f".react-flow__node[data-id='{node_id}']").evaluate("el => el.style.transform")
    match = re.search(r"translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px\)", transform)
    assert match, transform
    return float(match.group(1)), float(match.group(2))


def drag_node(page, node_id: str, dx: int, dy: int) -> None:
    box = page.get_by_test_id(f"node-{node_id}").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + 12
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 13):
        page.mouse.move(x + dx * i / 12, y + dy * i / 12)
    page.mouse.up()


def test_revert_of_a_text_edit_keeps_the_node_where_it_was_moved(browser, server, history_canvas):
    """#9: "Revert to this version" on a text edit restores that text and leaves the position alone."""
    cid, token = history_canvas["canvas_id"], history_canvas["tokens"]["alice"]
    node_id = add_node(server, token, cid, "灰度比例 10%", 0, 0, kind="config")
    ctx, page = open_canvas(browser, server, "alice", cid)
    edit_content(page, node_id, "灰度比例 25% for the canary")
    timeline = api(server, token, "GET", f"/api/canvases/{cid}/nodes/{node_id}/timeline/")
    first_edit = next(
        e["revision"]
        for e in timeline["entries"]
        if e["action"] == "updated"
        and any(r["field"] == "content" and r["after"] == "灰度比例 25% for the canary" for r in e["diff"])
    )

    # Move it by hand, then edit the text once more.
    click_empty_canvas(page)
    start = node_of(page, node_id)
    drag_node(page, node_id, 260, 150)
    page.wait_for_function(
        "([id, x, y]) => window.__canvasweb.getState().server.nodes"
        ".some(n => n.id === id && Math.abs(n.x - x) > 100 && Math.abs(n.y - y) > 60)",
        arg=[node_id, start["x"], start["y"]],
        timeout=5_000,
    )
    moved = snapshot_node(server, token, cid, node_id)
    edit_content(page, node_id, "灰度比例 50% — canary paused")
    assert flow_position(page, node_id) == (moved["x"], moved["y"])

    # Revert to the first text edit from the history panel.
    page.get_by_test_id("inspector-history-toggle").click()
    history = page.get_by_test_id("node-history")
    history.get_by_test_id(f"history-revert-{first_edit}").click()
    wait_node(page, node_id, "n.content === '灰度比例 25% for the canary'")
    expect(page.get_by_test_id(f"node-{node_id}").get_by_test_id("node-content")).to_have_text(
        "灰度比例 25% for the canary"
    )
    page.wait_for_timeout(300)
    after = snapshot_node(server, token, cid, node_id)
    assert after["content"] == "灰度比例 25% for the canary"
    assert (after["x"], after["y"]) == (moved["x"], moved["y"]), (after, moved)
    assert (after["x"], after["y"]) != (0, 0)
    # On the canvas too: the card's transform (flow coordinates, independent of zoom) did not jump back.
    page.wait_for_timeout(300)
    assert flow_position(page, node_id) == (moved["x"], moved["y"])
    ctx.close()
