"""The whole Chinese UI in a real browser (zh-CN locale, 1440×900): list, canvas, inspector, node history,
activity, proposals, audit, export, import error and a rejected edit. Every visible text must be Chinese
except user content, names and a short list of terms that stay as they are; each screen is kept as a
screenshot (var/e2e-screenshots/zh-*.png), the canvas one also as docs/img/ui-chinese.png.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.conftest import login
from tests.e2e.helpers import add_node, api

ZH_VIEWPORT = {"width": 1440, "height": 900}
# Words that are the same in Chinese UIs: brand, formats, keys, units, user names of this test.
KEEP = {
    "canvasweb",
    "json",
    "canvas",
    "obsidian",
    "mcp",
    "enter",
    "shift",
    "ctrl",
    "esc",
    "alt",
    "delete",
    "react",
    "flow",
    "zhwalk",
    "zhpeer",
    "english",
    "qps",
    "redis",
    "sha",
    "id",
    "url",
    "kb",
    "mb",
    "markdown",
}
USER_TEXT = ["Sessions last thirty minutes", "Freeze merges two hours before"]


def english_words(page) -> list[str]:
    text = page.evaluate("() => document.body.innerText")
    # Hash prefixes in the audit view are hex, not words.
    text = re.sub(r"\b[0-9a-f]{8,}\b", "", text)
    # The browser's own JSON.parse message is quoted as the import problem's detail.
    detail = page.locator("[data-testid=import-problems]")
    if detail.count():
        text = text.replace(detail.inner_text(), "")
    for own in USER_TEXT:
        text = text.replace(own, "")
    words = re.findall(r"[A-Za-z]{3,}", text)
    return sorted({w for w in words if w.lower() not in KEEP})


def test_every_screen_of_the_chinese_ui(browser, server, shot, tmp_path):
    # Users of its own: the list page then shows only this test's canvas, not those of other tests.
    data = server.e2e_setup(
        users=["zhwalk", "zhpeer"], owner="zhwalk", members={"zhpeer": "editor"}, name="发布计划"
    )
    token, cid = data["tokens"]["zhwalk"], data["canvas_id"]
    db = add_node(server, token, cid, "数据库端口是 5432，只对内网开放", 0, 0, kind="config", tags=["数据库"])
    other = add_node(server, token, cid, "Sessions last thirty minutes", 320, 40, kind="requirement")
    add_node(server, token, cid, "决定：所有服务部署在上海区域", -300, 80, kind="decision", pinned=True)
    api(
        server,
        token,
        "POST",
        f"/api/canvases/{cid}/ops/",
        {"op": {"type": "edge.create", "edge": {"source": db, "target": other, "relation": "depends_on"}}},
    )
    api(
        server,
        token,
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "node.update",
                "id": db,
                "fields": {"content": "数据库端口是 5433，只对内网开放", "tags": ["数据库", "端口"]},
            }
        },
    )

    context = browser.new_context(viewport=ZH_VIEWPORT, locale="zh-CN")
    page = context.new_page()
    login(page, server.url(0), "zhwalk")
    found: dict[str, list[str]] = {}

    expect(page.get_by_test_id(f"open-canvas-{cid}")).to_be_visible()
    found["list"] = english_words(page)
    shot(page, "zh-list")

    page.get_by_test_id(f"open-canvas-{cid}").click()
    expect(page.get_by_test_id("connection-status")).to_have_text("在线", timeout=10_000)
    found["canvas"] = english_words(page)
    shot(page, "zh-canvas", doc="ui-chinese")

    page.get_by_test_id(f"node-{db}").click()
    page.get_by_test_id("inspector-history-toggle").click()
    expect(page.get_by_test_id("node-history")).to_be_visible()
    page.wait_for_timeout(500)
    found["inspector+history"] = english_words(page)
    shot(page, "zh-inspector-history")

    page.get_by_test_id("tab-activity").click()
    page.wait_for_timeout(800)
    found["activity"] = english_words(page)
    shot(page, "zh-activity")

    page.get_by_test_id("tab-proposals").click()
    page.wait_for_timeout(500)
    found["proposals"] = english_words(page)
    shot(page, "zh-proposals")

    page.get_by_test_id("audit-button").click()
    expect(page.get_by_test_id("audit-entry").first).to_be_visible()
    page.get_by_test_id("audit-verify").click()
    expect(page.get_by_test_id("audit-verify-result")).to_be_visible()
    found["audit"] = english_words(page)
    shot(page, "zh-audit")
    page.keyboard.press("Escape")

    page.get_by_test_id("export-button").click()
    page.wait_for_timeout(500)
    found["export"] = english_words(page)
    shot(page, "zh-export")
    page.keyboard.press("Escape")

    # Import a broken file from the list: the error dialog.
    page.goto(f"{server.url(0)}/")
    bad = tmp_path / "坏文件.canvas"
    bad.write_text("{not json", encoding="utf-8")
    page.get_by_test_id("import-file-input").set_input_files(str(bad))
    page.wait_for_timeout(800)
    found["import-error"] = english_words(page)
    shot(page, "zh-import-error")

    left = {screen: words for screen, words in found.items() if words}
    assert left == {}, left
    context.close()
