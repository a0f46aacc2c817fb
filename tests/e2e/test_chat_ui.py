"""The chat panel in a real browser: streamed replies, Inspect, the context preview, suggestion chips.

A scripted OpenAI-compatible model answers; the canvas is built over REST first.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node
from tests.e2e.helpers import open_canvas as open_canvas_as


def open_canvas(browser, server, username: str, canvas_id: int):
    context, page = open_canvas_as(browser, server, username, canvas_id)
    expect(page.get_by_test_id("chat-panel")).to_be_visible()
    return context, page


def ask(page, text: str) -> None:
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")


def pan(page, dx: int, dy: int) -> None:
    """Drag the empty pane from near its top-left corner (React Flow pans on a plain drag)."""
    pane = page.get_by_test_id("canvas").locator(".react-flow__pane")
    box = pane.bounding_box()
    x, y = box["x"] + 120, box["y"] + 220
    page.mouse.move(x, y)
    page.mouse.down()
    steps = 12
    for i in range(1, steps + 1):
        page.mouse.move(x + dx * i / steps, y + dy * i / steps)
    page.mouse.up()


def included_ids(page) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('[data-context=\"included\"]')]"
        ".map(el => el.dataset.testid.replace('node-', ''))"
    )


@pytest.fixture
def chat_canvas(server):
    data = server.e2e_setup(
        users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="聊天画布 Chat"
    )
    token = data["tokens"]["alice"]
    cid = data["canvas_id"]
    ids = {
        "port": add_node(server, token, cid, "数据库端口是 5432", 0, 0, kind="config", tags=["db"]),
        "api": add_node(
            server, token, cid, "API 服务依赖数据库，启动前要先迁移", 280, 40, kind="requirement"
        ),
        "anchor": add_node(
            server, token, cid, "所有服务部署在上海区域", -300, 60, kind="decision", pinned=True
        ),
        "far": add_node(server, token, cid, "远处的节点：前端用 React 19", 4200, 2600, kind="fact"),
        "far2": add_node(server, token, cid, "远处的另一条：CDN 缓存 10 分钟", 4460, 2660, kind="config"),
    }
    return {**data, "ids": ids}


def test_streamed_reply_and_inspect(browser, server, scripted_model, chat_canvas, shot):
    ctx, page = open_canvas(browser, server, "alice", chat_canvas["canvas_id"])
    ids = chat_canvas["ids"]
    expect(page.get_by_test_id(f"node-{ids['port']}")).to_be_visible()
    expect(page.get_by_test_id("conversation-title")).to_have_text("New conversation")

    scripted_model.push(
        {
            "content": "数据库端口是 5432；API 服务启动前要先做迁移。",
            "usage": {"prompt_tokens": 321, "completion_tokens": 17, "total_tokens": 338},
        }
    )
    ask(page, "数据库端口是多少？")
    expect(page.get_by_test_id("chat-input")).to_have_value("")
    reply = page.locator("[data-role='assistant']").last
    expect(reply.get_by_test_id("assistant-text")).to_have_text(
        "数据库端口是 5432；API 服务启动前要先做迁移。", timeout=10_000
    )
    expect(reply).to_have_attribute("data-status", "complete")
    expect(page.get_by_test_id("conversation-title")).to_have_text("数据库端口是多少？")
    expect(page.locator("[data-role='user']").last).to_contain_text("数据库端口是多少？")
    expect(reply.get_by_test_id("context-line")).to_contain_text("nodes sent")
    shot(page, "chat-streamed-reply")

    # The model really received the question last, and the canvas nodes near the viewport.
    sent = scripted_model.requests[-1]["messages"]
    assert sent[-1]["content"].endswith("数据库端口是多少？")
    assert "数据库端口是 5432" in json.dumps(sent, ensure_ascii=False)

    reply.get_by_test_id("inspect-button").click()
    dialog = page.get_by_test_id("inspect-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id(f"inspect-node-{ids['port']}")).to_be_visible()
    expect(dialog.get_by_test_id(f"inspect-node-{ids['anchor']}")).to_contain_text("pinned anchor")
    expect(dialog.get_by_test_id("inspect-usage")).to_contain_text("321 in")
    expect(dialog.get_by_test_id("inspect-token-bar")).to_be_visible()
    dialog.get_by_test_id("inspect-message-0").locator("button").click()
    expect(dialog.locator(".mono-block").first).to_be_visible()
    shot(page, "chat-inspect-dialog")
    # Clicking an included node closes the dialog and focuses it on the canvas.
    dialog.get_by_test_id(f"inspect-node-{ids['api']}").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("node-inspector")).to_be_visible()
    expect(page.get_by_test_id("inspector-content")).to_have_value("API 服务依赖数据库，启动前要先迁移")

    # A failing model shows a clear error in the chat and keeps the conversation.
    scripted_model.push({"status": 500, "body": "upstream exploded"})
    ask(page, "再说一遍？")
    error = page.get_by_test_id("chat-error").last
    expect(error).to_be_visible(timeout=10_000)
    expect(error).to_have_attribute("data-code", "MODEL_HTTP_ERROR")
    expect(page.locator("[data-role='user']").last).to_contain_text("再说一遍？")
    shot(page, "chat-model-error")
    ctx.close()


def test_stop_keeps_partial_reply(browser, server, scripted_model, chat_canvas):
    ctx, page = open_canvas(browser, server, "alice", chat_canvas["canvas_id"])
    # 400 characters, 4 per chunk, 0.1 s apart: ~10 s of streaming, stopped part-way.
    scripted_model.push({"content": "这是一个很长的回答。" * 40, "chunk_delay": 0.1})
    ask(page, "写一段很长的说明")
    stop = page.get_by_test_id("chat-stop")
    expect(stop).to_be_visible()  # at once: a question still being prepared can be stopped too
    reply = page.locator("[data-role='assistant']").last
    # Preparing the turn (the first compile starts a worker process) is slow on a loaded machine.
    expect(reply).to_contain_text("这是一个很长的回答", timeout=30_000)
    stop.click()
    expect(reply).to_have_attribute("data-status", "stopped", timeout=10_000)
    kept = reply.inner_text()
    assert "这是一个很长的回答" in kept and kept.count("。") < 40, kept  # the part streamed so far, not all
    expect(page.get_by_test_id("chat-send")).to_be_visible()
    ctx.close()


def test_a_question_still_being_prepared_can_be_stopped(browser, server, scripted_model, chat_canvas):
    ctx, page = open_canvas(browser, server, "alice", chat_canvas["canvas_id"])
    scripted_model.push({"content": "不该出现的回答", "delay": 1.0})
    ask(page, "先别回答")
    page.get_by_test_id("chat-stop").click()  # before chat.started: message_id null
    reply = page.locator("[data-role='assistant']").last
    expect(reply).to_have_attribute("data-status", "stopped", timeout=30_000)
    assert "不该出现的回答" not in reply.inner_text()
    expect(page.get_by_test_id("chat-send")).to_be_visible()
    ctx.close()


def test_preview_highlights_follow_the_viewport(browser, server, chat_canvas, shot):
    ctx, page = open_canvas(browser, server, "alice", chat_canvas["canvas_id"])
    ids = chat_canvas["ids"]
    page.evaluate(f"() => window.__canvasweb.focusNode('{ids['port']}')")
    page.wait_for_timeout(500)
    page.get_by_test_id("preview-toggle").check()
    expect(page.get_by_test_id("context-preview")).to_be_visible()
    port = page.get_by_test_id(f"node-{ids['port']}")
    expect(port).to_have_attribute("data-context", "included", timeout=5_000)
    expect(port.get_by_test_id("preview-rank")).to_be_visible()
    expect(page.get_by_test_id(f"node-{ids['anchor']}")).to_have_attribute("data-context", "included")
    expect(page.get_by_test_id("preview-token-bar")).to_be_visible()
    before = set(included_ids(page))
    assert ids["port"] in before and ids["far"] not in before
    shot(page, "preview-near-origin")

    # Pan towards the far nodes: they come in, the ones left behind drop out (the anchor stays).
    page.evaluate(f"() => window.__canvasweb.focusNode('{ids['far']}')")
    page.keyboard.press("Escape")
    page.wait_for_function(
        "id => document.querySelector(`[data-testid='node-${id}']`)?.dataset.context === 'included'",
        arg=ids["far"],
        timeout=5_000,
    )
    after = set(included_ids(page))
    assert ids["far"] in after and ids["far2"] in after
    assert ids["anchor"] in after
    assert after != before
    # A real pan with the mouse (the far nodes leave the screen) changes the highlight again.
    pan(page, 900, 600)
    page.wait_for_function(
        "before => { const now = [...document.querySelectorAll('[data-context=\"included\"]')]"
        ".map(el => el.dataset.testid.replace('node-', '')).sort();"
        " return JSON.stringify(now) !== JSON.stringify(before); }",
        arg=sorted(after),
        timeout=5_000,
    )
    page.get_by_test_id("preview-tab-excluded").click()
    expect(page.get_by_test_id("preview-excluded")).to_be_visible()
    shot(page, "preview-after-pan")

    # Typing also updates the preview (question matching pulls in a matching node).
    page.get_by_test_id("chat-input").fill("CDN 缓存多久？")
    page.wait_for_timeout(600)
    page.get_by_test_id("preview-toggle").uncheck()
    expect(page.locator("[data-context]")).to_have_count(0)
    ctx.close()


def test_accepting_a_suggestion_reaches_another_user(browser, server, scripted_model, chat_canvas, shot):
    cid, ids = chat_canvas["canvas_id"], chat_canvas["ids"]
    ctx_a, a = open_canvas(browser, server, "alice", cid)
    ctx_b, b = open_canvas(browser, server, "bob", cid)
    # Alice looks at the database node: the accepted fact lands near the middle of her view.
    a.evaluate(f"() => window.__canvasweb.focusNode('{ids['port']}')")
    a.keyboard.press("Escape")

    scripted_model.push({"content": "好的，已记下：数据库端口改为 5433。"})
    ask(a, "更正：数据库端口改成 5433")
    chip = a.get_by_test_id("suggestions").locator("li.suggestion").first
    expect(chip).to_be_visible(timeout=10_000)
    expect(chip).to_contain_text("5433")
    shot(a, "chat-suggestion-chip")
    supersede_note = chip.locator(".supersede-note")
    supersedes = supersede_note.count() > 0
    if supersedes:
        expect(supersede_note).to_contain_text("数据库端口是 5432")
    before = {n["id"] for n in b.evaluate("() => window.__canvasweb.getState().nodes")}
    chip.locator("button.suggestion-accept").click()
    expect(a.get_by_test_id("suggestions")).to_be_hidden(timeout=5_000)

    # Bob sees the new node live.
    b.wait_for_function(
        "before => window.__canvasweb.getState().nodes.some(n => !before.includes(n.id) && n.content.includes('5433'))",
        arg=sorted(before),
        timeout=5_000,
    )
    new = next(
        n
        for n in b.evaluate("() => window.__canvasweb.getState().nodes")
        if n["id"] not in before and "5433" in n["content"]
    )
    expect(b.get_by_test_id(f"node-{new['id']}")).to_be_visible()
    assert new["created_by"]["username"] == "alice"
    if supersedes:
        old = next(
            n for n in b.evaluate("() => window.__canvasweb.getState().nodes") if n["id"] == ids["port"]
        )
        assert old["superseded_by"] == new["id"]
        expect(b.get_by_test_id(f"node-{ids['port']}").get_by_test_id("superseded-link")).to_contain_text(
            "5433"
        )
    # Near alice's viewport centre, not on top of the node it supersedes.
    state = a.evaluate("() => window.__canvasweb.getState()")
    port = next(n for n in state["nodes"] if n["id"] == ids["port"])
    assert abs(new["x"] - port["x"]) < 1200 and abs(new["y"] - port["y"]) < 800
    assert (new["x"], new["y"]) != (port["x"], port["y"])
    b.evaluate(f"() => window.__canvasweb.focusNode('{new['id']}')")
    b.wait_for_timeout(500)
    shot(b, "suggestion-seen-by-bob")
    ctx_a.close()
    ctx_b.close()


def test_a_fact_said_to_be_internal_is_added_internal_and_viewers_never_get_it(
    browser, server, scripted_model, shot
):
    data = server.e2e_setup(
        users=["alice", "bob", "vic"],
        owner="alice",
        members={"bob": "editor", "vic": "viewer"},
        name="内部画布",
    )
    cid = data["canvas_id"]
    ctx_b, b = open_canvas(browser, server, "bob", cid)
    ctx_v, v = open_canvas(browser, server, "vic", cid)

    scripted_model.push({"content": "好的，已记下。"})
    ask(b, "这个是内部信息：GMV 目标 3.2 亿元")
    chip = b.get_by_test_id("suggestions").locator("li.suggestion").first
    expect(chip).to_contain_text("3.2 亿元", timeout=10_000)
    select = chip.locator("select")
    expect(select).to_have_value("internal")
    # An editor may mark public or internal, not secret.
    assert select.locator("option").evaluate_all("os => os.map(o => o.value)") == ["public", "internal"]
    shot(b, "suggestion-internal")
    chip.locator("button.suggestion-accept").click()

    scripted_model.push({"content": "好的。"})
    ask(b, "发布会超时 30 秒")
    public_chip = b.get_by_test_id("suggestions").locator("li.suggestion").first
    expect(public_chip).to_contain_text("30 秒", timeout=10_000)
    expect(public_chip.locator("select")).to_have_value("public")
    public_chip.locator("button.suggestion-accept").click()

    b.wait_for_function("() => window.__canvasweb.getState().nodes.length === 2", timeout=5_000)
    by_content = {n["content"]: n for n in b.evaluate("() => window.__canvasweb.getState().nodes")}
    internal = next(n for c, n in by_content.items() if "3.2 亿元" in c)
    assert internal["sensitivity"] == "internal"
    # The viewer gets the public fact live, and never the internal one.
    v.wait_for_function(
        "() => window.__canvasweb.getState().nodes.some(n => n.content.includes('30 秒'))", timeout=5_000
    )
    assert all("3.2" not in n["content"] for n in v.evaluate("() => window.__canvasweb.getState().nodes"))
    expect(v.get_by_test_id(f"node-{internal['id']}")).to_have_count(0)
    ctx_b.close()
    ctx_v.close()


@pytest.mark.parametrize(
    ("ui_language", "title", "hint"),
    [
        ("en", "No model is configured", "see README"),
        ("zh-Hans", "尚未配置模型", "请在服务器上设置 LLM_BASE_URL"),
    ],
)
def test_no_model_reply_is_the_same_error_card_after_reload(
    browser, server, no_model_server, chat_canvas, ui_language, title, hint
):
    ctx, page = open_canvas_as(
        browser, no_model_server, "alice", chat_canvas["canvas_id"], ui_language=ui_language
    )
    ask(page, "数据库端口是多少？")
    reply = page.locator("[data-role='assistant']").last
    expect(reply).to_have_attribute("data-status", "error", timeout=30_000)
    card = reply.get_by_test_id("chat-error")
    expect(card).to_have_attribute("data-code", "MODEL_NOT_CONFIGURED")
    live = card.inner_text()

    page.reload()
    reply = page.locator("[data-role='assistant']").last
    card = reply.get_by_test_id("chat-error")
    expect(card).to_have_attribute("data-code", "MODEL_NOT_CONFIGURED", timeout=10_000)
    expect(card).to_contain_text(title)
    expect(card).to_contain_text(hint)
    assert card.inner_text() == live
    expect(reply.get_by_test_id("assistant-text")).to_have_count(0)
    if ui_language == "zh-Hans":
        # The server's hints are English only; the Chinese card shows none of them.
        for english in ("No model is configured", "restart", "README", "benchmarks"):
            expect(card).not_to_contain_text(english)
    ctx.close()
