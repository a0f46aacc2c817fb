"""Nothing a role may not see leaves the server: not its id, not its count.

A viewer may not see internal or secret nodes, an editor may not see secret ones. Their context preview,
chat.started.context (PreparedTurn.preview), the stored model-request report and GET
/api/model-requests/{id}/ must not name those nodes (not even as `not_visible`) nor count them; the prompt
names a secret node by its handle only; an id from another canvas answers like an unknown id.
"""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.chat import services
from canvasweb.chat.report_visibility import visible_exclusions
from canvasweb.context.types import ExcludedNode
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def nodes(canvas, alice, apply):
    made = {}
    for sensitivity, text in (
        ("public", "公开的部署说明：周五发布"),
        ("internal", "内部备注：预算 12 万"),
        ("secret", "生产密码是 Zx9-Qv7-Lm3-Tk5"),
    ):
        made[sensitivity] = apply(alice, node_op(text, x=10, y=10, sensitivity=sensitivity)).changes[0]["id"]
    # A far, archived internal node: excluded for a reason other than not_visible before this fix.
    far = apply(alice, node_op("很远的内部节点", x=900_000, y=900_000, sensitivity="internal")).changes[0][
        "id"
    ]
    apply(alice, {"type": "node.archive", "id": far, "archived": True})
    made["far_internal"] = far
    return made


def _hidden_for(role: str, nodes: dict) -> list[str]:
    if role == "viewer":
        return [nodes["internal"], nodes["secret"], nodes["far_internal"]]
    return [nodes["secret"]]


@pytest.mark.parametrize("who, role", [("vic", "viewer"), ("bob", "editor")])
def test_preview_names_and_counts_no_hidden_node(canvas, nodes, who, role, request):
    user = request.getfixturevalue(who)
    response = client_for(user).post(
        f"/api/canvases/{canvas.pk}/context-preview/", {"text": "部署和预算？"}, format="json"
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    text = json.dumps(body)
    for hidden in _hidden_for(role, nodes):
        assert hidden not in text
    assert "not_visible" not in body["excluded_counts"]
    assert all(item["reason"] != "not_visible" for item in body["excluded"])
    assert sum(body["excluded_counts"].values()) == len(body["excluded"])


@pytest.mark.parametrize("who, role", [("vic", "viewer"), ("bob", "editor")])
def test_chat_started_context_report_and_inspect_hide_the_nodes(
    canvas, nodes, who, role, request, scripted_llm
):
    user = request.getfixturevalue(who)
    scripted_llm.push({"content": "好的"})
    turn = services.turn_prepare(user=user, canvas_id=canvas.pk, text="预算多少？", viewport=None)
    stored = json.dumps(turn.model_request.report)
    shown = json.dumps(turn.preview)
    inspect = client_for(user).get(f"/api/model-requests/{turn.model_request.pk}/").json()
    for hidden in _hidden_for(role, nodes):
        assert hidden not in shown and hidden not in stored and hidden not in json.dumps(inspect)
    assert "not_visible" not in inspect["report"]["excluded_counts"]


def test_the_model_sees_a_secret_node_by_handle_only(canvas, nodes, alice, scripted_llm):
    scripted_llm.push({"content": "好的"})
    turn = services.turn_prepare(user=alice, canvas_id=canvas.pk, text="生产密码？", viewport=None)
    prompt = json.dumps(turn.messages, ensure_ascii=False)
    assert "content withheld" in prompt  # the owner's canvas block has the placeholder ...
    assert nodes["secret"] not in prompt  # ... without the node's id
    assert "Zx9-Qv7-Lm3-Tk5" not in prompt


def test_inspect_rechecks_membership(canvas, nodes, alice, bob, scripted_llm):
    scripted_llm.push({"content": "好的"})
    turn = services.turn_prepare(user=bob, canvas_id=canvas.pk, text="部署？", viewport=None)
    url = f"/api/model-requests/{turn.model_request.pk}/"
    assert client_for(bob).get(url).status_code == 200
    canvas_services.member_remove(actor=user_actor(alice), canvas_id=canvas.pk, user_id=bob.pk)
    response = client_for(bob).get(url)
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"


def test_counts_past_the_listing_cap_lose_the_unlisted_hidden_nodes():
    listed = [
        ExcludedNode(node_id="v1", reason="out_of_range"),
        ExcludedNode(node_id="h1", reason="out_of_range"),
    ]
    excluded, counts = visible_exclusions(
        listed, {"out_of_range": 5, "not_visible": 2}, hidden={"h1", "h2", "h3"}
    )
    assert [item["node_id"] for item in excluded] == ["v1"]
    # 5 counted: v1 and h1 listed, three unlisted of which h2, h3 are hidden -> 5 - 1 - 2 visible.
    assert counts == {"out_of_range": 2}


def test_edge_to_a_node_of_another_canvas_answers_like_an_unknown_id(canvas, nodes, alice, apply):
    other = canvas_services.canvas_create(user=alice, name="另一个")
    foreign = canvas_services.apply_operation(actor=user_actor(alice), canvas_id=other.pk, op=node_op("外部"))
    foreign_id = foreign.changes[0]["id"]
    unknown_id = "00000000-0000-4000-8000-000000000000"
    answers = []
    for target in (foreign_id, unknown_id):
        response = client_for(alice).post(
            f"/api/canvases/{canvas.pk}/ops/",
            {"op": {"type": "edge.create", "edge": {"source": nodes["public"], "target": target}}},
            format="json",
        )
        error = response.json()["error"]
        answers.append(
            (response.status_code, error["code"], error["field"], error["message"].replace(target, "<id>"))
        )
    assert answers[0] == answers[1] and answers[0][1] == "NOT_FOUND"
