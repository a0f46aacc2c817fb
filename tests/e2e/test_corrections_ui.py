"""Corrections typed in the chat become supersede suggestions; accepting one retires the old node for the model.

English and Chinese, a pinned node that must be confirmed, a correction of a correction with no subject
repeated, a conflict note, and suggestions that survive a reload. A scripted model answers.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node
from tests.e2e.helpers import open_canvas as open_canvas_as


def ask(page, text: str) -> None:
    box = page.get_by_test_id("chat-input")
    box.fill(text)
    box.press("Enter")


def nodes(page) -> dict[str, dict]:
    return {n["id"]: n for n in page.evaluate("() => window.__canvasweb.getState().nodes")}


def chip_for(page, text: str):
    chip = page.get_by_test_id("suggestions").locator("li.suggestion", has_text=text).first
    expect(chip).to_be_visible(timeout=10_000)
    return chip


def accept(page, chip, *, confirm: bool = False) -> str:
    """Accept a chip; returns the id of the node it created."""
    before = set(nodes(page))
    if confirm:
        chip.locator("[data-testid^='suggestion-confirm-']").check()
    chip.locator("button.suggestion-accept").click()
    expect(chip).to_be_hidden(timeout=5_000)
    page.wait_for_function(
        "before => window.__canvasweb.getState().nodes.some(n => !before.includes(n.id))",
        arg=sorted(before),
        timeout=5_000,
    )
    return next(i for i in nodes(page) if i not in before)


def canvas_block(scripted_model) -> str:
    """The canvas part of the last prompt the model was sent."""
    text = "\n".join(str(m.get("content", "")) for m in scripted_model.requests[-1]["messages"])
    found = re.search(r"<canvas_data>(.*?)</canvas_data>", text, re.S)
    assert found, text[:500]
    return found.group(1)


@pytest.fixture
def corrections_canvas(server):
    data = server.e2e_setup(users=["alice"], owner="alice", name="Corrections 更正")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    ids = {
        "jwt": add_node(
            server,
            token,
            cid,
            "Login tokens (JWT) expire after 15 minutes.",
            0,
            0,
            kind="config",
            pinned=True,
        ),
        "goal": add_node(
            server,
            token,
            cid,
            "Goal: ship the payroll app by June 30.",
            260,
            -40,
            kind="decision",
            pinned=True,
        ),
        "due": add_node(server, token, cid, "薪资模块的截止日期定在3月15日", 0, 160, kind="fact"),
        "rule": add_node(server, token, cid, "Never deploy on Fridays.", 260, 160, kind="requirement"),
    }
    return {**data, "ids": ids}


def test_corrections_in_english_and_chinese_supersede_the_old_nodes(
    browser, server, scripted_model, corrections_canvas, shot
):
    cid, ids = corrections_canvas["canvas_id"], corrections_canvas["ids"]
    ctx, page = open_canvas_as(browser, server, "alice", cid)
    expect(page.get_by_test_id("chat-panel")).to_be_visible()

    # English: a pinned node is named, old → new is shown, and retiring it must be confirmed.
    scripted_model.push({"content": "Noted."})
    ask(page, "Change the JWT expiry from 15 minutes to 30 minutes.")
    chip = chip_for(page, "JWT expiry: 30 minutes")
    expect(chip.locator("[data-testid^='suggestion-change-']")).to_contain_text("15 minutes → 30 minutes")
    expect(chip.locator(".supersede-note")).to_contain_text("Login tokens (JWT) expire after 15 minutes.")
    expect(chip.locator("[data-testid^='suggestion-warning-']")).to_contain_text("pinned")
    expect(chip.locator("button.suggestion-accept")).to_be_disabled()
    shot(page, "correction-chip-pinned")
    jwt_new = accept(page, chip, confirm=True)
    state = nodes(page)
    assert (
        state[ids["jwt"]]["superseded_by"] == jwt_new
        and state[jwt_new]["content"] == "JWT expiry: 30 minutes"
    )
    assert state[ids["goal"]]["superseded_by"] is None  # sharing a word is no correction

    # Chinese, then a correction of that correction that does not repeat the subject.
    scripted_model.push({"content": "好的。"})
    ask(page, "把薪资模块的截止日期改成4月1日")
    due_new = accept(page, chip_for(page, "4月1日"))
    assert nodes(page)[ids["due"]]["superseded_by"] == due_new
    scripted_model.push({"content": "收到。"})
    ask(page, "刚才说错了，是4月8日")
    chip = chip_for(page, "4月8日")
    expect(chip.locator("[data-testid^='suggestion-change-']")).to_contain_text("4月1日 → 4月8日")
    shot(page, "correction-chip-zh")
    due_last = accept(page, chip)
    state = nodes(page)
    assert state[due_new]["superseded_by"] == due_last and "4月8日" in state[due_last]["content"]

    # The next prompt's canvas holds only the new values.
    scripted_model.push({"content": "30 minutes; 4月8日."})
    ask(page, "What is the token lifetime, and when is the payroll module due?")
    expect(page.locator("[data-role='assistant']").last.get_by_test_id("assistant-text")).to_have_text(
        "30 minutes; 4月8日.", timeout=10_000
    )
    block = canvas_block(scripted_model)
    assert "30 minutes" in block and "4月8日" in block
    assert "15 minutes" not in block and "3月15日" not in block and "4月1日" not in block
    ctx.close()


def test_conflict_note_and_suggestions_survive_a_reload(
    browser, server, scripted_model, corrections_canvas, shot
):
    cid, ids = corrections_canvas["canvas_id"], corrections_canvas["ids"]
    ctx, page = open_canvas_as(browser, server, "alice", cid)
    scripted_model.push({"content": "Friday is against the rules."})
    ask(page, "Let's deploy the payroll fix on Friday.")
    chip = chip_for(page, "Friday")
    expect(chip.locator("[data-testid^='suggestion-conflict-']")).to_contain_text("Never deploy on Fridays.")
    expect(page.locator("[data-role='assistant']").last.get_by_test_id("assistant-text")).to_have_text(
        "Friday is against the rules.", timeout=10_000
    )
    page.reload()
    expect(page.get_by_test_id("connection-status")).to_have_text("online", timeout=10_000)
    chip = chip_for(page, "Friday")
    shot(page, "conflict-chip-after-reload")
    created = accept(page, chip)
    edges = page.evaluate("() => window.__canvasweb.getState().edges")
    assert any(
        e["source"] == created and e["target"] == ids["rule"] and e["relation"] == "conflicts_with"
        for e in edges
    ), edges
    ctx.close()


def test_a_correction_kept_in_chat_still_offers_to_fix_the_card_that_shows_the_old_value(
    browser, server, scripted_model, shot
):
    data = server.e2e_setup(users=["alice"], owner="alice", name="Held corrections 暂缓")
    token, cid = data["tokens"]["alice"], data["canvas_id"]
    ids = {
        "hall": add_node(server, token, cid, "Sports hall hire: £640 per term.", 0, 0, kind="fact"),
        "court": add_node(server, token, cid, "球场租金：每场800元", 0, 160, kind="fact"),
    }
    ctx, page = open_canvas_as(browser, server, "alice", cid)
    expect(page.get_by_test_id("chat-panel")).to_be_visible()

    # The old value is named as old, the new one follows in the next sentence, and the person asks to
    # keep it in chat: the card already shows a wrong value, so its supersede is still offered.
    scripted_model.push({"content": "Noted."})
    ask(
        page, "No wait, £640 was the old rate. From January it comes to £715 a term. Keep it in chat for now."
    )
    chip = chip_for(page, "£715")
    expect(chip.locator("[data-testid^='suggestion-change-']")).to_contain_text("£640 → £715")
    expect(page.get_by_test_id("suggestions")).not_to_contain_text("No wait")
    shot(page, "correction-held-chip")
    hall_new = accept(page, chip)
    assert nodes(page)[ids["hall"]]["superseded_by"] == hall_new

    scripted_model.push({"content": "好的。"})
    ask(page, "不对，800元是去年的，今年每场950元，先别上白板。")
    chip = chip_for(page, "950元")
    expect(chip.locator("[data-testid^='suggestion-change-']")).to_contain_text("800元 → 950元")
    court_new = accept(page, chip)
    assert nodes(page)[ids["court"]]["superseded_by"] == court_new
    assert "950元" in nodes(page)[court_new]["content"]
    ctx.close()
