"""Layout on small screens and crowded panels, measured: every header control is reachable on a phone, the side
panels start closed there, and the chat conversation keeps a usable height under banner, suggestions and preview."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.e2e.conftest import login
from tests.e2e.helpers import add_node, open_canvas

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
HEADER_CONTROLS = ["audit-button", "settings-button", "members-button", "language-switch", "logout-button"]


def inside(box: dict, viewport: dict) -> bool:
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
        and box["y"] + box["height"] <= viewport["height"]
    )


def test_phone_header_controls_fit_and_panels_start_closed(browser, server, shot):
    data = server.e2e_setup(
        users=["alice"], owner="alice", name="A canvas with a fairly long name for a phone"
    )
    cid = data["canvas_id"]
    add_node(server, data["tokens"]["alice"], cid, "一条便签 a note", 0, 0)
    ctx, page = open_canvas(browser, server, "alice", cid, viewport=PHONE, has_touch=True, is_mobile=True)
    expect(page.locator(".react-flow__node").first).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    # The canvas name is shown (truncated), not hidden behind the status pill.
    name = page.get_by_test_id("canvas-name").bounding_box()
    status = page.get_by_test_id("connection-status").bounding_box()
    assert name["width"] >= 60, name
    assert name["x"] + name["width"] <= status["x"], (name, status)

    # The canvas comes first: no inspector or chat sheet, no mini map covering it; the toolbar fits.
    assert page.locator(".inspector-region").bounding_box()["width"] < 5
    assert page.get_by_test_id("chat-region").bounding_box()["width"] < 5
    expect(page.locator(".react-flow__minimap")).to_have_count(0)
    assert inside(page.get_by_test_id("export-button").bounding_box(), PHONE)
    shot(page, "phone-canvas")

    menu = page.get_by_test_id("header-menu-button")
    assert inside(menu.bounding_box(), PHONE)
    menu.tap()
    for test_id in HEADER_CONTROLS:
        control = page.get_by_test_id(test_id)
        box = control.bounding_box()
        assert box and inside(box, PHONE), (test_id, box)
        control.click(trial=True)  # visible, enabled, and nothing on top of it
    shot(page, "phone-header-menu")
    page.get_by_test_id("members-button").tap()
    expect(page.get_by_test_id("members-dialog")).to_be_visible()
    page.keyboard.press("Escape")

    # The inspector opens as a closable sheet.
    page.get_by_test_id("inspector-toggle").tap()
    expect(page.get_by_test_id("inspector")).to_be_visible()
    assert inside(page.get_by_test_id("inspector-toggle").bounding_box(), PHONE)
    page.get_by_test_id("inspector-toggle").tap()
    expect(page.get_by_test_id("inspector")).to_have_count(0)

    page.goto(f"{server.url(0)}/")
    new_canvas = page.get_by_test_id("new-canvas-button")
    expect(new_canvas).to_be_visible()
    assert inside(new_canvas.bounding_box(), PHONE), new_canvas.bounding_box()
    ctx.close()


def test_chat_conversation_keeps_its_height_under_banner_suggestion_and_preview(
    browser, server, scripted_model, shot
):
    data = server.e2e_setup(users=["alice"], owner="alice", name="Chat height")
    cid, token = data["canvas_id"], data["tokens"]["alice"]
    for i in range(8):
        add_node(
            server,
            token,
            cid,
            f"事实 {i}: the launch deadline note number {i}",
            260 * (i % 4),
            160 * (i // 4),
        )
    context = browser.new_context(viewport=LAPTOP, locale="zh-CN")
    context.add_init_script("try { localStorage.setItem('canvasweb.lang', 'en'); } catch (e) {}")
    page = context.new_page()
    # The suite's server has a model; answer /api/llm/ as a server without one, so the banner shows.
    no_model = {
        "configured": False,
        "model": None,
        "context_window": 16000,
        "max_output_tokens": 1024,
        "help": "Set LLM_BASE_URL.",
    }
    page.route(
        "**/api/llm/",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(no_model)),
    )
    login(page, server.url(0), "alice")
    page.goto(f"{server.url(0)}/canvases/{cid}/")
    expect(page.get_by_test_id("no-model-banner")).to_be_visible(timeout=10_000)

    scripted_model.push({"content": "Noted."})
    box = page.get_by_test_id("chat-input")
    box.fill("actually the deadline moved to 3月20日")
    box.press("Enter")
    expect(page.get_by_test_id("suggestions").locator("li.suggestion").first).to_be_visible(timeout=10_000)
    box.fill("what is the deadline?")
    page.get_by_test_id("preview-toggle").click()
    rows = page.get_by_test_id("preview-included").locator(":scope > *")
    expect(rows.first).to_be_visible(timeout=10_000)
    shot(page, "chat-crowded-1280")

    panel = page.get_by_test_id("chat-panel").bounding_box()
    messages = page.get_by_test_id("chat-messages").bounding_box()
    assert messages["height"] >= 0.4 * panel["height"] - 1, (messages, panel)
    # Every "Sent" row can be scrolled to inside the bounded box above the composer.
    extras = page.get_by_test_id("chat-extras")
    last = rows.last
    last.scroll_into_view_if_needed()
    row, area = last.bounding_box(), extras.bounding_box()
    assert area["y"] - 1 <= row["y"] and row["y"] + row["height"] <= area["y"] + area["height"] + 1, (
        row,
        area,
    )
    assert area["y"] + area["height"] <= page.get_by_test_id("chat-input").bounding_box()["y"]
    context.close()


def test_minimap_starts_collapsed_on_a_narrow_canvas_and_keeps_the_users_choice(browser, server):
    data = server.e2e_setup(users=["alice"], owner="alice", name="Narrow canvas")
    cid = data["canvas_id"]
    add_node(server, data["tokens"]["alice"], cid, "一条便签 a note", 0, 0)

    # A wide canvas area: the map is open.
    ctx, page = open_canvas(browser, server, "alice", cid, viewport={"width": 1800, "height": 900})
    assert page.get_by_test_id("canvas").bounding_box()["width"] >= 720
    expect(page.locator(".react-flow__minimap")).to_have_count(1)
    ctx.close()

    # A tablet-sized window (not a phone) leaves the canvas under 720 px: collapsed, but it can be expanded.
    ctx, page = open_canvas(browser, server, "alice", cid, viewport={"width": 700, "height": 800})
    expect(page.locator(".react-flow__node").first).to_be_visible()
    assert page.get_by_test_id("canvas").bounding_box()["width"] < 720
    toggle = page.get_by_test_id("minimap-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator(".react-flow__minimap")).to_have_count(0)
    toggle.click()
    expect(page.locator(".react-flow__minimap")).to_be_visible()

    # Expanding is remembered: the stored choice wins over the width on the next load.
    page.reload()
    expect(page.locator(".react-flow__node").first).to_be_visible(timeout=10_000)
    expect(page.locator(".react-flow__minimap")).to_be_visible()
    expect(page.get_by_test_id("minimap-toggle")).to_have_attribute("aria-pressed", "true")
    ctx.close()
