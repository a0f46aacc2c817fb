"""The owner's audit view and the export question, in a real browser.

The owner opens Audit, sees who changed what with node text, filters by person, agent and node, and verifies
the chain; an editor has no Audit button and the API refuses them; export leaves secret notes out unless the
owner ticks the box.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import add_node, api, open_canvas


@pytest.fixture
def audited_canvas(server):
    data = server.e2e_setup(
        users=["alice", "bob"], owner="alice", members={"bob": "editor"}, name="审计 Audit"
    )
    cid, tokens = data["canvas_id"], data["tokens"]
    first = add_node(server, tokens["bob"], cid, "供应商报价截止到周五", 0, 0)
    second = add_node(server, tokens["bob"], cid, "Quote review meeting", 320, 0)
    api(
        server,
        tokens["bob"],
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "edge.create",
                "edge": {"source": first, "target": second, "relation": "depends_on"},
            }
        },
    )
    api(
        server,
        tokens["alice"],
        "POST",
        f"/api/canvases/{cid}/ops/",
        {
            "op": {
                "type": "node.update",
                "id": second,
                "fields": {"content": "Quote review meeting on Monday"},
            }
        },
    )
    add_node(server, tokens["alice"], cid, "vault passphrase kept offline", 0, 240, sensitivity="secret")
    return {**data, "first": first, "second": second}


def test_owner_reviews_filters_and_verifies_the_log(browser, server, audited_canvas, shot):
    cid = audited_canvas["canvas_id"]
    ctx, page = open_canvas(browser, server, "alice", cid, viewport={"width": 1440, "height": 900})
    page.get_by_test_id("audit-button").click()
    dialog = page.get_by_test_id("audit-dialog")
    expect(dialog).to_be_visible()
    entries = dialog.get_by_test_id("audit-entry")
    expect(entries.first).to_be_visible()
    # The edge is named by the text of both nodes, not by ids.
    expect(dialog).to_contain_text("“供应商报价截止到周五” depends on “Quote review meeting on Monday”")
    expect(dialog).to_contain_text("Quote review meeting on Monday")
    expect(dialog.locator(".diff-before").filter(has_text="Quote review meeting")).to_be_visible()

    dialog.get_by_test_id("audit-verify").click()
    expect(dialog.get_by_test_id("audit-verify-result")).to_contain_text("Chain intact")
    shot(page, "audit-view", doc="audit-view")

    # Filter by person: only bob's three changes (two notes and the link).
    dialog.get_by_test_id("audit-actor").select_option(label="bob")
    expect(entries).to_have_count(3)
    for i in range(3):
        expect(entries.nth(i).get_by_test_id("history-actor")).to_contain_text("bob")
    dialog.get_by_test_id("audit-actor").select_option(value="")
    dialog.get_by_test_id("audit-kind-agent").click()
    expect(dialog).to_contain_text("No changes match these filters")
    dialog.get_by_test_id("audit-kind-all").click()
    expect(entries.first).to_be_visible()
    ctx.close()

    # With a node selected, the log narrows to that node and its links.
    ctx, page = open_canvas(browser, server, "alice", cid, viewport={"width": 1440, "height": 900})
    page.evaluate(f"() => window.__canvasweb.focusNode('{audited_canvas['first']}')")
    page.get_by_test_id("audit-button").click()
    dialog = page.get_by_test_id("audit-dialog")
    dialog.get_by_test_id("audit-only-node").check()
    expect(dialog.get_by_test_id("audit-entry")).to_have_count(2)  # the note's creation and the link
    ctx.close()


def test_editor_has_no_audit(browser, server, audited_canvas):
    cid = audited_canvas["canvas_id"]
    ctx, page = open_canvas(browser, server, "bob", cid)
    expect(page.get_by_test_id("members-button")).to_be_visible()
    expect(page.get_by_test_id("audit-button")).to_have_count(0)
    status = page.evaluate(f"() => fetch('/api/canvases/{cid}/audit/').then(r => r.status)")
    assert status == 403
    ctx.close()


def test_export_asks_before_including_secret_notes(browser, server, audited_canvas, tmp_path):
    cid = audited_canvas["canvas_id"]
    ctx, page = open_canvas(browser, server, "alice", cid, accept_downloads=True)

    def export(include: bool) -> str:
        page.get_by_test_id("export-button").click()
        dialog = page.get_by_test_id("export-dialog")
        expect(dialog).to_contain_text("1 secret note")
        if include:
            dialog.get_by_test_id("export-include-secret").check()
        with page.expect_download() as info:
            dialog.get_by_test_id("export-confirm").click()
        path = tmp_path / f"export-{include}.canvas"
        info.value.save_as(path)
        return path.read_text(encoding="utf-8")

    plain = export(False)
    assert any(n["text"] == "供应商报价截止到周五" for n in json.loads(plain)["nodes"])
    assert "vault passphrase" not in plain
    assert "vault passphrase" in export(True)
    ctx.close()
