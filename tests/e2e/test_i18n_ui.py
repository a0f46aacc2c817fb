"""The Chinese interface in a real browser: a zh-CN browser gets zh-Hans, the switch turns it English, reload keeps it."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import login
from tests.e2e.helpers import add_node

VIEWPORT = {"width": 1440, "height": 900}


def test_zh_cn_browser_gets_chinese_ui_and_the_switch_is_remembered(browser, server, shot):
    data = server.e2e_setup(users=["alice"], owner="alice", name="发布计划")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    db = add_node(server, token, cid, "数据库端口是 5432，只对内网开放", 0, 0, kind="config", tags=["数据库"])
    add_node(server, token, cid, "上线前必须完成压力测试，目标 2000 QPS", 300, 40, kind="requirement")
    add_node(server, token, cid, "决定：所有服务部署在上海区域", -300, 80, kind="decision", pinned=True)
    add_node(server, token, cid, "生产环境的数据库密码", 0, 220, kind="config", sensitivity="secret")
    add_node(server, token, cid, "灰度发布需要几天？", 320, 240, kind="question")

    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{server.url(0)}/login/")
    expect(page.locator(".login-brand h1")).to_have_text("登录 Canvasweb")
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    login(page, server.url(0), "alice")

    # The canvas list
    expect(page.locator(".list-head h1")).to_have_text("画布")
    expect(page.get_by_test_id("new-canvas-button")).to_have_text("新建画布")
    expect(page.get_by_test_id(f"canvas-role-{cid}")).to_have_text("所有者")

    # A canvas: header, cards, inspector, chat
    page.get_by_test_id(f"open-canvas-{cid}").click()
    expect(page.get_by_test_id("connection-status")).to_have_text("在线", timeout=10_000)
    expect(page.get_by_test_id("agent-filter")).to_contain_text("智能体写入")
    expect(page.get_by_test_id("chat-panel")).to_be_visible()
    expect(page.get_by_test_id("chat-input")).to_have_attribute(
        "placeholder", "就画布提问…（Enter 发送，Shift+Enter 换行）"
    )
    expect(page.locator(".chat-empty-title")).to_have_text("就这个画布提问")
    expect(page.get_by_test_id("chat-send")).to_have_text("发送")
    expect(page.get_by_test_id(f"node-{db}")).to_contain_text("配置")
    page.get_by_test_id(f"node-{db}").click()
    expect(page.get_by_test_id("node-inspector")).to_be_visible()
    expect(page.get_by_test_id("inspector-history-toggle")).to_have_text("查看历史")
    expect(page.get_by_test_id("inspector-supersede")).to_have_text("用新版本取代")
    expect(page.get_by_test_id("sensitivity-secret")).to_have_text("机密")
    # Nothing overflows the inspector or the chat head in Chinese at 1440×900.
    overflow = page.evaluate("""() => [...document.querySelectorAll(
        '.inspector button, .inspector .field > span, .chat-head button, .canvas-toolbar button, .app-header button')]
        .filter(el => el.offsetParent && el.scrollWidth > el.clientWidth + 1).map(el => el.textContent)""")
    assert overflow == []
    shot(page, "ui-chinese")

    # The switch turns the whole UI English
    page.get_by_test_id("language-switch").select_option("en")
    expect(page.get_by_test_id("inspector-history-toggle")).to_have_text("Show history")
    expect(page.locator(".chat-empty-title")).to_have_text("Ask about this canvas")
    expect(page.get_by_test_id("connection-status")).to_have_text("online")
    expect(page.get_by_test_id(f"node-{db}")).to_contain_text("Config")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    # Reload keeps the choice, although the browser still asks for zh-CN
    page.reload()
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    expect(page.get_by_test_id("chat-send")).to_have_text("Send")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_test_id("language-switch").select_option("zh-Hans")
    expect(page.get_by_test_id("chat-send")).to_have_text("发送")
    context.close()


def test_api_error_toast_is_chinese_for_a_viewer(browser, server):
    data = server.e2e_setup(users=["alice", "vic"], owner="alice", members={"vic": "viewer"}, name="只读画布")
    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    page = context.new_page()
    login(page, server.url(0), "vic")
    response = page.evaluate(
        """async (cid) => {
        const r = await fetch(`/api/canvases/${cid}/members/`, {method: 'POST', headers: {'Content-Type': 'application/json',
          'X-CSRFToken': document.cookie.match(/csrftoken=([^;]+)/)?.[1] ?? ''}, body: JSON.stringify({username: 'alice', role: 'viewer'})});
        return {status: r.status, body: await r.json()};
    }""",
        data["canvas_id"],
    )
    assert response["status"] == 403
    assert response["body"]["error"]["code"] == "FORBIDDEN"
    assert any("\u4e00" <= ch <= "\u9fff" for ch in response["body"]["error"]["message"])
    context.close()
