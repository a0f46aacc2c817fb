"""Chat REST endpoints: conversations are private, Inspect shows what was sent, suggestions go through the write path."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from canvasweb.canvases.models import Node
from canvasweb.chat import services
from canvasweb.chat.models import FactSuggestion
from canvasweb.history.models import ChangeLogEntry
from tests.conftest import node_op

pytestmark = pytest.mark.django_db


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def run_turn(user, canvas, text, llm, reply="ok"):
    llm.push({"content": reply})
    turn = services.turn_prepare(user=user, canvas_id=canvas.pk, text=text, viewport=None)
    return services.turn_finish(turn=turn, text=reply, usage={"prompt_tokens": 1}, latency_ms=5), turn


def test_conversations_are_private_to_their_user(canvas, alice, bob, scripted_llm):
    _, turn = run_turn(alice, canvas, "hello", scripted_llm)
    assert [c["id"] for c in client_for(alice).get(f"/api/canvases/{canvas.pk}/conversations/").json()] == [
        turn.conversation.pk
    ]
    assert client_for(bob).get(f"/api/canvases/{canvas.pk}/conversations/").json() == []
    response = client_for(bob).get(f"/api/conversations/{turn.conversation.pk}/messages/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    messages = client_for(alice).get(f"/api/conversations/{turn.conversation.pk}/messages/").json()
    assert [m["role"] for m in messages] == ["user", "assistant"]


def test_inspect_shows_exact_messages_and_included_nodes(canvas, alice, apply, scripted_llm):
    node_id = apply(alice, node_op("JWT 过期时间为 15 分钟", x=5, y=5)).changes[0]["id"]
    assistant, turn = run_turn(alice, canvas, "JWT 多久过期？", scripted_llm)
    record_id = services.message_to_dict(assistant)["model_request_id"]
    record = client_for(alice).get(f"/api/model-requests/{record_id}/").json()
    assert node_id in record["included_node_ids"] and record["messages"] == turn.messages
    assert record["layer_tokens"]["canvas"] > 0 and record["messages"][-1]["content"].endswith(
        "JWT 多久过期？"
    )
    assert client_for(canvas.created_by).get(f"/api/model-requests/{record_id}/").status_code == 200


def test_suggestion_accept_supersedes_through_the_write_path(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("database port is 5432", kind="config")).changes[0]["id"]
    run_turn(alice, canvas, "Correction: change the database port to 5433.", scripted_llm)
    suggestion = FactSuggestion.objects.get(value="5433")
    assert str(suggestion.supersede_node_id) == old
    response = client_for(alice).post(
        f"/api/suggestions/{suggestion.pk}/accept/", {"x": 10, "y": 20}, format="json"
    )
    assert response.status_code == 200, response.json()
    new_id = response.json()["suggestion"]["created_node_id"]
    assert str(Node.objects.get(pk=old).superseded_by_id) == new_id
    assert ChangeLogEntry.objects.filter(
        target_id=new_id, actor_user=alice, op_type="node.supersede"
    ).exists()
    again = client_for(alice).post(f"/api/suggestions/{suggestion.pk}/accept/", {}, format="json")
    assert again.status_code == 400


def test_viewers_get_no_suggestions(canvas, vic, scripted_llm):
    run_turn(vic, canvas, "the port is 5433", scripted_llm)
    assert not FactSuggestion.objects.exists()


def test_preview_endpoint_and_llm_status(canvas, alice, apply, settings):
    apply(alice, node_op("near", x=0, y=0))
    response = client_for(alice).post(
        f"/api/canvases/{canvas.pk}/context-preview/",
        {"text": "what is near?", "viewport": {"x": 0, "y": 0, "zoom": 1}},
        format="json",
    )
    assert response.status_code == 200 and len(response.json()["included"]) == 1
    bad = client_for(alice).post(
        f"/api/canvases/{canvas.pk}/context-preview/", {"viewport": {"zoom": -1}}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "viewport"
    # null is the defaults (x 0, y 0, zoom 1, 1280 x 800), as over the socket: it was "must not be null".
    default = client_for(alice).post(
        f"/api/canvases/{canvas.pk}/context-preview/", {"text": "near?", "viewport": None}, format="json"
    )
    assert default.status_code == 200 and len(default.json()["included"]) == 1
    # Unknown fields are refused here too, named by their path.
    unknown = client_for(alice).post(
        f"/api/canvases/{canvas.pk}/context-preview/",
        {"viewport": {"x": 0, "y": 0, "zoom": 1, "rotation": 90}},
        format="json",
    )
    assert unknown.status_code == 400 and unknown.json()["error"] == {
        "code": "INVALID",
        "message": "unknown field viewport.rotation",
        "field": "viewport.rotation",
    }
    settings.LLM = {**settings.LLM, "BASE_URL": "", "API_KEY": ""}
    status = client_for(alice).get("/api/llm/").json()
    assert status["configured"] is False and "LLM_BASE_URL" in status["help"]


def test_a_fact_said_to_be_internal_is_suggested_and_stored_internal(canvas, alice, vic, scripted_llm):
    run_turn(alice, canvas, "GMV 目标 3.2 亿元，这个是内部信息", scripted_llm)
    suggestion = FactSuggestion.objects.get()
    listed = client_for(alice).get(f"/api/conversations/{suggestion.conversation_id}/messages/").json()
    assert suggestion.sensitivity == "internal"
    response = client_for(alice).post(f"/api/suggestions/{suggestion.pk}/accept/", {}, format="json")
    assert response.status_code == 200 and response.json()["suggestion"]["sensitivity"] == "internal", listed
    node = Node.objects.get(pk=response.json()["suggestion"]["created_node_id"])
    assert node.sensitivity == "internal"
    viewer_snapshot = client_for(vic).get(f"/api/canvases/{canvas.pk}/snapshot/").json()
    assert str(node.pk) not in {n["id"] for n in viewer_snapshot["nodes"]}


def test_accept_can_override_the_suggested_sensitivity_within_the_users_rights(canvas, bob, scripted_llm):
    run_turn(bob, canvas, "This is confidential: the budget is 40000 dollars.", scripted_llm)
    suggestion = FactSuggestion.objects.get()
    assert suggestion.sensitivity == "internal"
    url = f"/api/suggestions/{suggestion.pk}/accept/"
    refused = client_for(bob).post(
        url, {"sensitivity": "secret"}, format="json"
    )  # an editor may not set secret
    assert refused.status_code == 403 and refused.json()["error"]["field"] == "node.sensitivity"
    bad = client_for(bob).post(url, {"sensitivity": "top"}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "sensitivity"
    assert FactSuggestion.objects.get().status == "pending" and not Node.objects.exists()
    ok = client_for(bob).post(url, {"sensitivity": "public"}, format="json")
    assert ok.status_code == 200
    assert Node.objects.get().sensitivity == "public"


def test_an_editors_secret_is_not_offered_and_corrections_inherit(canvas, alice, bob, apply, scripted_llm):
    # An editor cannot make a card secret: offering it as internal would show it to every editor.
    run_turn(bob, canvas, "机密：服务器端口 7443", scripted_llm)
    assert not FactSuggestion.objects.exists()
    old = apply(alice, node_op("database port is 5432", kind="config", sensitivity="internal")).changes[0][
        "id"
    ]
    run_turn(bob, canvas, "Correction: change the database port to 5433.", scripted_llm)
    suggestion = FactSuggestion.objects.get(value="5433")
    assert str(suggestion.supersede_node_id) == old and suggestion.sensitivity == "internal"


def test_one_message_supersedes_a_node_through_one_suggestion_only(canvas, alice, apply, scripted_llm):
    old = apply(alice, node_op("database port is 5432", kind="config")).changes[0]["id"]
    run_turn(
        alice,
        canvas,
        "Change the database port to 5433. Staging: change the database port to 5434.",
        scripted_llm,
    )
    suggestions = list(FactSuggestion.objects.order_by("pk"))
    assert len(suggestions) == 2, [(s.value, s.supersede_node_id) for s in suggestions]
    assert [str(s.supersede_node_id) if s.supersede_node_id else None for s in suggestions] == [old, None]
    for s in suggestions:  # both can be accepted: the second adds a node instead of failing
        response = client_for(alice).post(f"/api/suggestions/{s.pk}/accept/", {}, format="json")
        assert response.status_code == 200, response.json()


def test_preview_refuses_a_falsy_conversation_id_instead_of_ignoring_it(canvas, alice):
    url = f"/api/canvases/{canvas.pk}/context-preview/"
    for value, status, code in ((0, 404, "NOT_FOUND"), ({}, 400, "INVALID"), ("", 400, "INVALID")):
        response = client_for(alice).post(url, {"conversation_id": value}, format="json")
        assert response.status_code == status and response.json()["error"]["code"] == code, (
            value,
            response.json(),
        )
    assert client_for(alice).post(url, {"conversation_id": None}, format="json").status_code == 200


def test_a_conversation_started_without_a_title_is_named_after_its_first_question(
    canvas, alice, scripted_llm
):
    created = client_for(alice).post(
        f"/api/canvases/{canvas.pk}/conversations/", {"title": ""}, format="json"
    )
    assert created.status_code == 201 and created.json()["title"] == ""
    scripted_llm.push({"content": "ok"})
    turn = services.turn_prepare(
        user=alice,
        canvas_id=canvas.pk,
        text="数据库端口是多少？",
        viewport=None,
        conversation_id=created.json()["id"],
    )
    assert turn.conversation.title == "数据库端口是多少？"


def test_preview_refuses_a_question_that_is_not_text_and_a_viewport_that_is_not_numbers(canvas, alice):
    url = f"/api/canvases/{canvas.pk}/context-preview/"
    for body, field in (
        ({"text": 5}, "text"),
        ({"text": ["a"]}, "text"),
        ({"viewport": {"x": "5"}}, "viewport"),
        ({"viewport": {"zoom": True}}, "viewport"),
    ):
        response = client_for(alice).post(url, body, format="json")
        assert response.status_code == 400 and response.json()["error"]["field"] == field, (
            body,
            response.json(),
        )


def test_preview_body_may_be_absent_but_not_null(canvas, alice):
    url = f"/api/canvases/{canvas.pk}/context-preview/"
    assert client_for(alice).post(url).status_code == 200  # no body: all fields are optional
    null = client_for(alice).post(url, "null", content_type="application/json")
    assert null.status_code == 400 and "JSON object" in null.json()["error"]["message"]
