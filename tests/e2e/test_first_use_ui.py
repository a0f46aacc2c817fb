"""First use, as a new user finds it in a real browser: things a walk through the app at desktop, laptop and
phone sizes turned up (a note draft running off the canvas, ...)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.helpers import add_node, open_canvas

LAPTOP = {"width": 1024, "height": 768}


def test_note_draft_near_the_edge_stays_inside_the_canvas(browser, server, shot):
    """A double-click near the bottom edge, then a 20 KB paste: the draft moves up/left to stay on the
    canvas, so its character count and the over-limit "Split" offer are on screen, not below the window."""
    data = server.e2e_setup(users=["alice"], owner="alice", name="edge draft")
    ctx, page = open_canvas(browser, server, "alice", data["canvas_id"], viewport=LAPTOP)
    canvas = page.get_by_test_id("canvas")
    area = canvas.bounding_box()
    page.mouse.dblclick(area["x"] + area["width"] * 0.7, area["y"] + area["height"] - 40)
    draft = page.get_by_test_id("note-draft")
    expect(draft).to_be_visible()
    page.keyboard.insert_text("0123456789" * 2000)
    page.keyboard.press("Enter")  # over the limit: not saved, the text stays with the offer to split
    expect(page.get_by_test_id("editor-over-limit")).to_be_visible()
    page.wait_for_timeout(300)
    box = draft.bounding_box()
    assert box["x"] >= area["x"] and box["y"] >= area["y"], (box, area)
    assert box["x"] + box["width"] <= area["x"] + area["width"], (box, area)
    assert box["y"] + box["height"] <= area["y"] + area["height"], (box, area)
    split = page.get_by_test_id("editor-split")
    split.scroll_into_view_if_needed()
    split_box = split.bounding_box()
    assert split_box["y"] + split_box["height"] <= area["y"] + area["height"], (split_box, area)
    split.click()
    page.wait_for_function("() => window.__canvasweb.getState().nodes.length === 2")
    shot(page, "first-use-edge-draft")
    ctx.close()


def test_a_long_tag_on_a_card_ends_in_an_ellipsis_and_has_its_full_name_as_title(browser, server):
    """A tag wider than the card was cut off mid-letter at the card's edge; now it ends in "…" and the whole
    tag is the chip's tooltip."""
    data = server.e2e_setup(users=["alice"], owner="alice", name="long tag")
    tag = "another-really-long-tag-name-here-x"  # within the 40-character limit
    add_node(server, data["tokens"]["alice"], data["canvas_id"], "一条便签 a note", 0, 0, tags=[tag, "短"])
    ctx, page = open_canvas(browser, server, "alice", data["canvas_id"], viewport=LAPTOP)
    chip = page.get_by_test_id("node-tag").first
    expect(chip).to_have_attribute("title", f"#{tag}")
    card = page.locator(".node-card").first.bounding_box()
    box = chip.bounding_box()
    assert box["x"] + box["width"] <= card["x"] + card["width"], (box, card)
    text = chip.locator(".tag-chip-text")
    shown = text.evaluate(
        "el => ({overflow: getComputedStyle(el).textOverflow, cut: el.scrollWidth > el.clientWidth})"
    )
    assert shown == {"overflow": "ellipsis", "cut": True}, shown
    ctx.close()
