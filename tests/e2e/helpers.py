"""Helpers shared by the browser tests: REST calls with a token, and opening a canvas as a user."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import expect

from tests.e2e.conftest import login

VIEWPORT = {"width": 1600, "height": 1000}


def api(server, token: str, method: str, path: str, body: dict | None = None) -> dict | list:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"{server.url(0)}{path}",
        data=data,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        raw = response.read()
        return json.loads(raw) if raw else {}


def add_node(server, token: str, canvas_id: int, content: str, x: float, y: float, **extra) -> str:
    result = api(
        server,
        token,
        "POST",
        f"/api/canvases/{canvas_id}/ops/",
        {"op": {"type": "node.create", "node": {"content": content, "x": x, "y": y, **extra}}},
    )
    return result["changes"][0]["id"]


def open_canvas(
    browser,
    server,
    username: str,
    canvas_id: int,
    viewport: dict | None = None,
    ui_language: str | None = "en",
    **context_args,
):
    """A fresh browser context logged in as `username`, on the canvas, connected.

    The browser locale is zh-CN (CJK input everywhere); the UI language is pinned to `ui_language` through the
    app's stored choice, so tests that read English labels keep reading English. None: detect from the locale.
    """
    context_args.setdefault("locale", "zh-CN")
    context = browser.new_context(viewport=viewport or VIEWPORT, **context_args)
    if ui_language:
        context.add_init_script(
            f"try {{ if (!localStorage.getItem('canvasweb.lang')) localStorage.setItem('canvasweb.lang', '{ui_language}'); }} catch (e) {{}}"
        )
    page = context.new_page()
    login(page, server.url(0), username)
    page.goto(f"{server.url(0)}/canvases/{canvas_id}/")
    expect(page.get_by_test_id("connection-status")).to_have_attribute(
        "data-status", "online", timeout=10_000
    )
    return context, page
