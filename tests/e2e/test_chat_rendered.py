"""The chat reads well (issue 12): Markdown replies, `[nK]` references that focus the node, chips and
suggestions that survive a reload, and Ask again sending a new turn. The scripted model answers."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, open_canvas

LAPTOP = {"width": 1440, "height": 900}
DOC_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

REPLY = (
    "好的，端口将改为 **6544**，旧值见 [n1]；未知的 [n9] 不是链接。\n\n"
    "- 先执行 `db migrate`\n- 再重启 API\n\n"
    "| 服务 | 端口 |\n| --- | --- |\n| 数据库 | 6544 |\n\n"
    "<img src=x onerror=\"document.title='pwned'\">"
)


@pytest.fixture
def port_canvas(server):
    data = server.e2e_setup(users=["alice"], owner="alice", members={}, name="端口画布 Ports")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    port = add_node(server, token, cid, "预发布数据库端口是 6543", 0, 0, kind="config")
    far = add_node(server, token, cid, "远处：日志保留 14 天", 5200, 3400, kind="fact")
    return {**data, "port": port, "far": far}


def test_markdown_reply_with_node_links_survives_a_reload_and_ask_again_resends(
    browser, server, scripted_model, port_canvas, shot
):
    cid, port = port_canvas["canvas_id"], port_canvas["port"]
    ctx, page = open_canvas(browser, server, "alice", cid, viewport=LAPTOP)
    expect(page.get_by_test_id("chat-panel")).to_be_visible()

    scripted_model.push(
        {
            "tool_calls": [
                {"name": "add_node", "arguments": {"content": "预发布端口待确认：6544", "kind": "config"}}
            ]
        },
        {"content": REPLY},
    )
    question = "更正：预发布数据库端口改成 6544"
    box = page.get_by_test_id("chat-input")
    box.fill(question)
    box.press("Enter")
    reply = page.locator("[data-role='assistant']").last
    expect(reply).to_have_attribute("data-status", "complete", timeout=10_000)

    # Markdown: bold is bold, lists, code and tables render; raw HTML is only text.
    text = reply.get_by_test_id("assistant-text")
    expect(text.locator("strong")).to_have_text("6544")
    assert text.locator("strong").evaluate("el => Number(getComputedStyle(el).fontWeight)") >= 600
    expect(text.locator("li")).to_have_count(2)
    expect(text.locator("li code")).to_have_text("db migrate")
    expect(text.locator("td").first).to_have_text("数据库")
    expect(text).not_to_contain_text("**")
    expect(text).to_contain_text("<img src=x")
    assert text.locator("img").count() == 0 and page.title() != "pwned"
    expect(text).to_contain_text("[n9]")
    expect(reply.get_by_test_id("agent-actions")).to_contain_text("Proposed")
    chip = page.get_by_test_id("suggestions").locator("li.suggestion").first
    expect(chip).to_contain_text("6544", timeout=5_000)
    suggestion_id = chip.get_attribute("data-testid").removeprefix("suggestion-")

    # The reference focuses the node like a search hit.
    ref = text.get_by_test_id("node-ref")
    expect(ref).to_have_count(1)
    expect(ref).to_have_attribute("data-node-id", port)
    page.evaluate(f"() => window.__canvasweb.focusNode('{port_canvas['far']}')")
    expect(page.get_by_test_id(f"node-{port}")).not_to_be_in_viewport(timeout=3_000)
    ref.click()
    card = page.locator(f".react-flow__node[data-id='{port}']")
    expect(card).to_have_attribute("data-search-flash", "1")
    expect(card).to_have_class(re.compile(r"\bselected\b"))
    expect(page.get_by_test_id(f"node-{port}")).to_be_in_viewport()

    # Dismiss the captured fact, then reload: the chips, the suggestion's state and the link come back.
    page.get_by_test_id(f"suggestion-dismiss-{suggestion_id}").click()
    expect(page.get_by_test_id(f"captured-{suggestion_id}")).to_have_attribute("data-status", "dismissed")
    page.reload()
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    reply = page.locator("[data-role='assistant']").last
    expect(reply.get_by_test_id("agent-actions")).to_contain_text("Proposed", timeout=10_000)
    expect(reply.get_by_test_id("assistant-text").locator("strong")).to_have_text("6544")
    expect(reply.get_by_test_id("node-ref")).to_have_attribute("data-node-id", port)
    expect(page.get_by_test_id(f"captured-{suggestion_id}")).to_have_attribute("data-status", "dismissed")
    expect(page.get_by_test_id(f"suggestion-{suggestion_id}")).to_have_count(0)
    page.wait_for_timeout(400)
    path = shot(page, "chat-rendered")
    DOC_IMG.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, DOC_IMG / "chat-rendered.png")

    # Ask again: the same question goes out as a new turn, and the model is asked again.
    asked = len(scripted_model.requests)
    scripted_model.push({"content": "再次确认：端口是 **6544**。"})
    reply.get_by_test_id("ask-again").click()
    users = page.locator("[data-role='user']")
    expect(users).to_have_count(2, timeout=10_000)
    expect(users.last).to_contain_text(question)
    last = page.locator("[data-role='assistant']").last
    expect(last.get_by_test_id("assistant-text")).to_have_text("再次确认：端口是 6544。", timeout=10_000)
    assert len(scripted_model.requests) > asked
    assert scripted_model.requests[-1]["messages"][-1]["content"].endswith(question) or any(
        question in str(m.get("content")) for m in scripted_model.requests[-1]["messages"]
    )
    ctx.close()
