"""The owner's audit view over REST: who may read it, filters, node text for edges, the chain check, export secrets."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def audit_url(canvas, suffix=""):
    return f"/api/canvases/{canvas.pk}/audit/{suffix}"


@pytest.fixture
def history(canvas, apply, as_agent, alice, bob):
    """bob adds two notes and links them, the agent (for alice) edits one, alice adds a secret."""
    first = apply(bob, node_op("会议室定在三楼东侧")).changes[0]["id"]
    second = apply(bob, node_op("Catering order goes out on Tuesday")).changes[0]["id"]
    apply(bob, {"type": "edge.create", "edge": {"source": first, "target": second, "relation": "depends_on"}})
    as_agent(
        alice, {"type": "node.update", "id": second, "fields": {"content": "Catering order goes out Monday"}}
    )
    apply(alice, node_op("door code 4417", sensitivity="secret"))
    return {"first": first, "second": second}


def test_only_the_owner_reads_the_audit_log(canvas, history, client_for, alice, bob, vic, make_user):
    assert client_for(alice).get(audit_url(canvas)).status_code == 200
    for user in (bob, vic):
        response = client_for(user).get(audit_url(canvas))
        assert response.status_code == 403 and response.json()["error"]["code"] == "FORBIDDEN"
        assert client_for(user).post(audit_url(canvas, "verify/")).status_code == 403
    stranger = make_user("mallory")
    assert client_for(stranger).get(audit_url(canvas)).status_code == 404
    assert client_for(None).get(audit_url(canvas)).status_code in (401, 403)


def test_entries_carry_diffs_hashes_and_the_text_of_both_edge_ends(
    canvas, history, client_for, alice, schema_check
):
    response = client_for(alice).get(audit_url(canvas))
    schema_check(response, "canvas_audit")
    body = response.json()
    items = body["items"]
    assert [i["revision"] for i in items] == sorted((i["revision"] for i in items), reverse=True)
    edge = next(i for i in items if i["entity"] == "edge")
    assert edge["source_text"] == "会议室定在三楼东侧"
    assert edge["target_text"] == "Catering order goes out Monday"
    update = next(i for i in items if i["op_type"] == "node.update")
    assert update["actor"]["kind"] == "agent"
    assert {
        "field": "content",
        "before": "Catering order goes out on Tuesday",
        "after": "Catering order goes out Monday",
    } in update["diff"]
    stored = {(e.revision, e.seq): e.hash for e in ChangeLogEntry.objects.filter(canvas=canvas)}
    assert all(i["hash"] == stored[(i["revision"], i["seq"])] for i in items)
    # The owner sees the secret note, as on the canvas itself.
    assert any(i["summary"] == "door code 4417" for i in items)
    assert {a["username"] for a in body["actors"]} == {"alice", "bob"}


def test_filters_by_actor_kind_node_and_time(canvas, history, client_for, alice, bob):
    client = client_for(alice)
    by_bob = client.get(audit_url(canvas), {"actor": bob.pk}).json()["items"]
    assert by_bob and all(i["actor"]["user"]["username"] == "bob" for i in by_bob)
    agent = client.get(audit_url(canvas), {"actor_kind": "agent"}).json()["items"]
    assert [i["op_type"] for i in agent] == ["node.update"]
    node = client.get(audit_url(canvas), {"node_id": history["first"]}).json()["items"]
    assert {(i["entity"], i["action"]) for i in node} == {("node", "created"), ("edge", "created")}
    newest = ChangeLogEntry.objects.filter(canvas=canvas).order_by("-revision").first()
    later = client.get(audit_url(canvas), {"since": newest.created_at.isoformat()}).json()["items"]
    assert [i["revision"] for i in later] == [newest.revision]
    assert client.get(audit_url(canvas), {"until": "2000-01-01T00:00:00Z"}).json()["items"] == []


@pytest.mark.parametrize(
    "params, field",
    [
        ({"actor_kind": "robot"}, "actor_kind"),
        ({"actor": "x"}, "actor"),
        ({"node_id": "not-a-uuid"}, "node_id"),
        ({"node_id": "urn:uuid:0b6f0c1e-3c9e-4a57-9a8d-2b8f3f6f3c11"}, "node_id"),
        ({"since": "yesterday"}, "since"),
        ({"until": ""}, "until"),
        ({"node_id": ""}, "node_id"),
        ({"since": "2026-12-02T00:00:00Z", "until": "2026-12-01T00:00:00Z"}, "since"),
        # The offset moves these past year 9999 / before year 1 in UTC (was a 500).
        ({"since": "9999-12-31T23:59:59-23:59"}, "since"),
        ({"until": "0001-01-01T00:00:00+01:00"}, "until"),
        ({"limit": "0"}, "limit"),
    ],
)
def test_bad_filters_are_400_with_the_field(canvas, history, client_for, alice, params, field):
    response = client_for(alice).get(audit_url(canvas), params)
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


def test_pages_never_split_a_revision_and_cost_the_same_queries(canvas, apply, client_for, alice, bob):
    for i in range(12):
        apply(bob, node_op(f"note {i}"))
    client = client_for(alice)
    first = client.get(audit_url(canvas), {"limit": 5}).json()
    assert len(first["items"]) == 5 and first["next_before"] == first["items"][-1]["revision"]
    second = client.get(audit_url(canvas), {"limit": 5, "before": first["next_before"]}).json()
    assert max(i["revision"] for i in second["items"]) < first["next_before"]

    def count(limit):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(audit_url(canvas), {"limit": limit}).status_code == 200
        return len(ctx.captured_queries)

    assert count(2) == count(12)


def test_verify_says_ok_then_names_a_tampered_entry(
    canvas, history, client_for, alice, schema_check, django_db_blocker
):
    client = client_for(alice)
    response = client.post(audit_url(canvas, "verify/"))
    schema_check(response, "canvas_audit_verify")
    assert response.json()["ok"] is True and response.json()["problem"] is None
    assert response.json()["entries"] == ChangeLogEntry.objects.filter(canvas=canvas).count()


@pytest.mark.allow_direct_writes  # tampers with a row on purpose, behind the write path
def test_verify_reports_the_first_broken_entry(canvas, history, client_for, alice):
    target = ChangeLogEntry.objects.get(canvas=canvas, op_type="node.update")
    forged = {**target.after, "content": "Catering order goes out on Tuesday"}
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE history_changelogentry SET after = %s WHERE id = %s", [json.dumps(forged), target.pk]
        )
    body = client_for(alice).post(audit_url(canvas, "verify/")).json()
    assert body["ok"] is False
    assert (body["problem"]["revision"], body["problem"]["seq"]) == (target.revision, target.seq)
    assert body["problem"]["stored"] == target.hash


def test_export_leaves_secret_nodes_out_unless_asked(canvas, history, client_for, alice, bob, apply):
    secret = next(n for n in canvas.nodes.all() if n.sensitivity == "secret")
    apply(alice, {"type": "edge.create", "edge": {"source": history["first"], "target": str(secret.pk)}})
    url = f"/api/canvases/{canvas.pk}/export.canvas"
    plain = client_for(alice).get(url).json()
    assert "door code 4417" not in json.dumps(plain, ensure_ascii=False)
    assert all(str(secret.pk) not in (e["fromNode"], e["toNode"]) for e in plain["edges"])
    full = client_for(alice).get(url, {"include_secret": "true"}).json()
    assert any(n["text"] == "door code 4417" for n in full["nodes"])
    assert any(e["toNode"] == str(secret.pk) for e in full["edges"])
    # An editor never gets it, asked or not.
    assert "door code 4417" not in json.dumps(
        client_for(bob).get(url, {"include_secret": "true"}).json(), ensure_ascii=False
    )
    assert client_for(alice).get(url, {"include_secret": "maybe"}).status_code == 400
