"""Editing together without losing a word (issue 12, problems 1, 4 and 7), in two real Chromium contexts.

Bob has the inline editor open while alice changes the same card: bob sees who is
editing, sees the change arrive in his editor, and his save becomes a choice
instead of a silent overwrite (also for an edit made offline). Text over the limit
stays in the editor and can be split. Supersede and a double-click note are
drafts that Escape cancels without a trace on the server.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas

DOC_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def server_nodes(server, token, canvas_id) -> list[dict]:
    return api(server, token, "GET", f"/api/canvases/{canvas_id}/snapshot/")["nodes"]


def content_of(server, token, canvas_id, node_id) -> str:
    return next(n["content"] for n in server_nodes(server, token, canvas_id) if n["id"] == node_id)


def open_inline_editor(page, node_id):
    page.get_by_test_id(f"node-{node_id}").locator("[data-testid=node-content]").dblclick()
    editor = page.get_by_test_id(f"node-{node_id}").get_by_test_id("node-editor")
    expect(editor).to_be_visible()
    return editor


def settled(page):
    page.wait_for_function("() => window.__canvasweb.getState().pending.length === 0", timeout=10_000)


@pytest.fixture
def team(server):
    data = server.e2e_setup(users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="一起编辑")
    node_id = add_node(server, data["tokens"]["alice"], data["canvas_id"], "周会在周二上午十点", 300, 250)
    return data, node_id


def test_concurrent_edit_becomes_a_choice_and_no_text_is_lost(browser, server, team, shot):
    data, node_id = team
    canvas_id, token = data["canvas_id"], data["tokens"]["alice"]
    ctx_a, a = open_canvas(browser, server, "alice", canvas_id)
    ctx_b, b = open_canvas(browser, server, "bob", canvas_id)

    bob_editor = open_inline_editor(b, node_id)
    # Alice sees that bob is editing this card.
    expect(a.get_by_test_id(f"node-{node_id}").get_by_test_id("badge-peer-editing")).to_contain_text(
        "bob", timeout=3_000
    )
    alice_editor = open_inline_editor(a, node_id)
    alice_editor.fill("周会改到周三下午三点")
    alice_editor.press("Enter")
    settled(a)
    # Bob's open editor shows the change underneath, with alice's text.
    expect(b.get_by_test_id("editor-changed-text")).to_contain_text("周三下午三点", timeout=3_000)

    bob_editor.fill("周会取消，改成书面周报")
    bob_editor.press("Enter")
    dialog = b.get_by_test_id("conflict-dialog")
    expect(dialog).to_be_visible(timeout=3_000)
    expect(dialog.get_by_test_id("conflict-theirs")).to_contain_text("周会改到周三下午三点")
    expect(dialog.get_by_test_id("conflict-mine")).to_contain_text("周会取消，改成书面周报")
    assert content_of(server, token, canvas_id, node_id) == "周会改到周三下午三点"  # nothing overwritten
    path = shot(b, "editing-conflict-choice")
    DOC_IMG.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, DOC_IMG / "conflict-choice.png")

    dialog.get_by_test_id("conflict-merge").click()
    merged = b.get_by_test_id(f"node-{node_id}").get_by_test_id("node-editor")
    expect(merged).to_have_value("周会改到周三下午三点\n\n周会取消，改成书面周报")
    merged.press("End")
    merged.press("Enter")
    settled(b)
    final = content_of(server, token, canvas_id, node_id)
    assert "周三下午三点" in final and "书面周报" in final
    expect(a.get_by_test_id(f"node-{node_id}")).to_contain_text("书面周报", timeout=3_000)
    ctx_a.close()
    ctx_b.close()


def test_offline_edit_on_a_stale_base_gets_the_same_choice(browser, server, team):
    data, node_id = team
    canvas_id, token = data["canvas_id"], data["tokens"]["alice"]
    ctx_b, b = open_canvas(browser, server, "bob", canvas_id)
    editor = open_inline_editor(b, node_id)
    b.evaluate("() => window.__canvasweb.goOffline()")
    expect(b.get_by_test_id("connection-status")).to_have_text("offline")
    editor.fill("离线写的：周会改为线上")
    editor.press("Enter")
    api(
        server,
        token,
        "POST",
        f"/api/canvases/{canvas_id}/ops/",
        {"op": {"type": "node.update", "id": node_id, "fields": {"content": "alice 在线改的：周会在 3 楼"}}},
    )
    b.evaluate("() => window.__canvasweb.goOnline()")
    dialog = b.get_by_test_id("conflict-dialog")
    expect(dialog).to_be_visible(timeout=10_000)
    expect(dialog.get_by_test_id("conflict-mine")).to_contain_text("离线写的：周会改为线上")
    assert content_of(server, token, canvas_id, node_id) == "alice 在线改的：周会在 3 楼"
    dialog.get_by_test_id("conflict-keep-mine").click()
    settled(b)
    assert content_of(server, token, canvas_id, node_id) == "离线写的：周会改为线上"
    ctx_b.close()


def test_text_over_the_limit_stays_in_the_editor_and_can_be_split(browser, server, team):
    data, node_id = team
    canvas_id, token = data["canvas_id"], data["tokens"]["alice"]
    ctx_a, a = open_canvas(browser, server, "alice", canvas_id)
    editor = open_inline_editor(a, node_id)
    long_text = "\n\n".join(f"第 {i} 段：" + "长文本" * 1200 for i in range(6))  # ~21,700 characters
    editor.fill(long_text)
    editor.press("Enter")
    expect(a.get_by_test_id("editor-over-limit")).to_be_visible()
    expect(editor).to_have_value(long_text)  # not committed, not discarded
    assert content_of(server, token, canvas_id, node_id) == "周会在周二上午十点"
    a.get_by_test_id("editor-split").click()
    # The split's ops are queued after the click returns: wait for the server's answer to reach the
    # page (settled alone can run before they are queued). Three ops of ~7,000 characters each: a
    # loaded two-core CI machine has taken more than 10 s for them.
    a.wait_for_function("() => window.__canvasweb.getState().server.nodes.length >= 3", timeout=30_000)
    settled(a)
    nodes = server_nodes(server, token, canvas_id)
    assert len(nodes) == 3
    parts = [n["content"] for n in sorted(nodes, key=lambda n: (n["id"] != node_id, n["x"], n["y"]))]
    assert all(len(p) <= 10_000 for p in parts)
    assert "".join(parts) == long_text
    ctx_a.close()


def test_supersede_and_new_note_are_drafts_that_escape_cancels(browser, server, team):
    data, node_id = team
    canvas_id, token = data["canvas_id"], data["tokens"]["alice"]
    ctx_a, a = open_canvas(browser, server, "alice", canvas_id)
    ctx_b, b = open_canvas(browser, server, "bob", canvas_id)

    # A double-click note left empty and escaped is never sent.
    a.get_by_test_id("canvas").locator(".react-flow__pane").dblclick(
        position={"x": 250, "y": 650}
    )  # left of the inspector and the chat
    expect(a.get_by_test_id("note-draft")).to_be_visible()
    a.get_by_test_id("node-editor").press("Escape")
    expect(a.get_by_test_id("note-draft")).to_have_count(0)

    # Supersede opens a prefilled draft beside (not under) the inspector; Escape cancels it.
    a.get_by_test_id(f"node-{node_id}").click()
    a.get_by_test_id("inspector-supersede").click()
    draft = a.get_by_test_id("supersede-draft")
    expect(draft.get_by_test_id("supersede-draft-text")).to_have_value("周会在周二上午十点")
    inspector = a.get_by_test_id("inspector").bounding_box()
    box = draft.bounding_box()
    assert box["x"] + box["width"] <= inspector["x"]
    draft.get_by_test_id("supersede-draft-text").press("Escape")
    expect(draft).to_have_count(0)
    assert len(server_nodes(server, token, canvas_id)) == 1
    assert len(b.evaluate("() => window.__canvasweb.getState().nodes")) == 1

    a.get_by_test_id("inspector-supersede").click()
    a.get_by_test_id("supersede-draft-text").fill("周会在周四上午十点")
    a.get_by_test_id("supersede-save").click()
    settled(a)
    nodes = server_nodes(server, token, canvas_id)
    assert len(nodes) == 2
    old = next(n for n in nodes if n["id"] == node_id)
    new = next(n for n in nodes if n["id"] != node_id)
    assert old["superseded_by"] == new["id"] and new["content"] == "周会在周四上午十点"
    ctx_a.close()
    ctx_b.close()


def test_others_see_a_card_move_while_it_is_dragged(browser, server, team):
    data, node_id = team
    canvas_id, token = data["canvas_id"], data["tokens"]["alice"]
    ctx_a, a = open_canvas(browser, server, "alice", canvas_id)
    ctx_b, b = open_canvas(browser, server, "bob", canvas_id)
    before = b.locator(f'.react-flow__node[data-id="{node_id}"]').get_attribute("style")
    card = a.get_by_test_id(f"node-{node_id}").bounding_box()
    a.mouse.move(card["x"] + 30, card["y"] + 12)
    a.mouse.down()
    a.mouse.move(card["x"] + 230, card["y"] + 112, steps=15)
    # Still held: nothing committed yet, but bob already sees the card elsewhere.
    b.wait_for_function(
        '([id, before]) => document.querySelector(`.react-flow__node[data-id="${id}"]`)'
        ".getAttribute('style') !== before",
        arg=[node_id, before],
        timeout=3_000,
    )
    assert next(n for n in server_nodes(server, token, canvas_id))["x"] == 300
    a.mouse.up()
    settled(a)
    moved = server_nodes(server, token, canvas_id)[0]
    assert moved["x"] != 300
    ctx_a.close()
    ctx_b.close()


def test_a_peer_replacing_or_deleting_my_text_shows_a_toast(browser, server, team):
    """Bob keeps his text over alice's card, then deletes another of hers: alice is told, without a dialog."""
    data, _ = team
    cid, tokens = data["canvas_id"], data["tokens"]
    ctx, alice = open_canvas(browser, server, "alice", cid)
    ids = []
    for text in ("alice 写的第一条 first note", "alice 写的第二条 second note"):
        ids.append(
            alice.evaluate(
                f"() => window.__canvasweb.submit({{type: 'node.create', node: {{content: '{text}', x: 0, y: {len(ids) * 200}}}}})"
            )
        )
        alice.wait_for_function("() => window.__canvasweb.getState().pending.length === 0")
    nodes = {n["content"]: n["id"] for n in server_nodes(server, tokens["alice"], cid)}
    first, second = nodes["alice 写的第一条 first note"], nodes["alice 写的第二条 second note"]

    api(
        server,
        tokens["bob"],
        "POST",
        f"/api/canvases/{cid}/ops/",
        {"op": {"type": "node.update", "id": first, "fields": {"content": "bob's text"}}},
    )
    expect(alice.get_by_test_id("toast").filter(has_text="bob replaced your text on")).to_contain_text(
        "first note", timeout=5_000
    )
    api(
        server,
        tokens["bob"],
        "POST",
        f"/api/canvases/{cid}/ops/",
        {"op": {"type": "node.delete", "id": second}},
    )
    expect(alice.get_by_test_id("toast").filter(has_text="bob deleted")).to_contain_text(
        "second note", timeout=5_000
    )
    ctx.close()
