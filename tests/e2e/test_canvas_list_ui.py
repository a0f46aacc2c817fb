"""The canvas list: a long, truncated title never pushes the role badge under the card's action buttons."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import login
from tests.e2e.helpers import api


def intersects(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_role_badge_clear_of_the_action_buttons_on_long_titles(browser, server):
    data = server.e2e_setup(
        users=["alice", "bob"],
        owner="alice",
        members={"bob": "editor"},
        name="第三季度华东区域渠道合作伙伴年度经营回顾与下一财年预算规划工作坊 Q3 partner review",
    )
    theirs = api(
        server,
        data["tokens"]["bob"],
        "POST",
        "/api/canvases/",
        {"name": "An equally long canvas title that is truncated with an ellipsis on the card"},
    )
    api(
        server,
        data["tokens"]["bob"],
        "POST",
        f"/api/canvases/{theirs['id']}/members/",
        {"username": "alice", "role": "editor"},
    )
    for width in (1440, 1024, 390):
        context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
        page = context.new_page()
        login(page, server.url(0), "alice")
        expect(page.get_by_test_id("canvas-list")).to_be_visible()
        for cid, buttons in ((data["canvas_id"], 3), (theirs["id"], 1)):
            card = page.get_by_test_id(f"canvas-card-{cid}")
            card.hover()
            badge = card.get_by_test_id(f"canvas-role-{cid}").bounding_box()
            actions = card.locator(".canvas-card-actions button")
            expect(actions).to_have_count(buttons)
            for i in range(buttons):
                box = actions.nth(i).bounding_box()
                assert not intersects(badge, box), (width, cid, badge, box)
            title = card.locator(".canvas-card-name").bounding_box()
            assert not intersects(title, badge), (width, cid)
        context.close()


def test_a_first_visit_and_a_login_log_no_console_error(browser, server):
    server.e2e_setup(users=["alice"], owner="alice", name="首次访问")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    me_requests: list[str] = []
    page.on(
        "request", lambda request: me_requests.append(request.url) if "/api/auth/me/" in request.url else None
    )
    page.goto(f"{server.url(0)}/")
    expect(page.get_by_test_id("login-username")).to_be_visible()
    login(page, server.url(0), "alice")
    expect(page.get_by_test_id("canvas-list")).to_be_visible()
    page.reload()
    expect(page.get_by_test_id("canvas-list")).to_be_visible()
    # Who is logged in comes with the page, so the logged-out visit made no request that fails.
    assert me_requests == [] and errors == [], (me_requests, errors)
    context.close()
