"""The real `openai` client against /v1/chat/completions, with the scripted upstream model on loopback."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from canvasweb.canvases import services
from canvasweb.canvases.actors import user_actor
from canvasweb.chat.models import Conversation, FactSuggestion, Message, ModelRequest
from canvasweb.history.models import SecurityEvent

from .conftest import ANCHOR, FACT, INTERNAL, SECRET_VALUE, ZH_FACT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def api(live_server_url, tokens):
    def make(username: str = "bob", **kwargs) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=f"{live_server_url}/v1", api_key=tokens[username], max_retries=0, timeout=20, **kwargs
        )

    return make


def chat_list(client_for, user, canvas) -> list[dict]:
    response = client_for(user).get(f"/api/canvases/{canvas.pk}/conversations/")
    assert response.status_code == 200
    return response.json()


def test_non_streaming_answer_compiled_with_the_canvas(planted, canvas, api, scripted_llm, alice, client_for):
    scripted_llm.push({"content": "It listens on 6117."})
    reply = api("alice").chat.completions.create(
        model=f"canvas:{canvas.pk}",
        messages=[
            {"role": "system", "content": "Answer in one sentence."},
            {"role": "user", "content": "Which port does the invoicing database listen on?"},
        ],
    )
    assert reply.choices[0].message.content == "It listens on 6117."
    assert reply.choices[0].finish_reason == "stop" and reply.usage.total_tokens > 0
    sent = scripted_llm.all_request_text()
    for fact in (ANCHOR, FACT, INTERNAL, "Answer in one sentence."):
        assert fact in sent
    assert SECRET_VALUE not in sent  # even for the owner, the secret's value never goes upstream
    conversation = Conversation.objects.get(pk=reply.model_extra["canvasweb"]["conversation_id"])
    assert conversation.canvas_id == canvas.pk and conversation.title.startswith("via API")
    assert [c["id"] for c in chat_list(client_for, alice, canvas)] == [conversation.pk]
    contents = list(conversation.messages.order_by("id").values_list("role", "content", "status"))
    assert contents == [
        ("user", "Which port does the invoicing database listen on?", "complete"),
        ("assistant", "It listens on 6117.", "complete"),
    ]
    record = ModelRequest.objects.get(conversation=conversation)  # Inspect shows exactly what went upstream
    assert (
        record.messages == scripted_llm.requests[0]["messages"]
        and record.response_text == "It listens on 6117."
    )


def test_streaming_in_chinese_with_the_canvas_header(planted, canvas, api, scripted_llm):
    scripted_llm.push({"content": "负责人是王芳。", "chunk_chars": 2})
    stream = api("bob").chat.completions.create(
        model="whatever-the-tool-insists-on",
        stream=True,
        stream_options={"include_usage": True},
        extra_headers={"X-Canvasweb-Canvas": str(canvas.pk)},
        messages=[{"role": "user", "content": "发票服务的负责人是谁？"}],
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "负责人是王芳。"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert ZH_FACT in scripted_llm.all_request_text()
    assert Message.objects.get(role="assistant", conversation__canvas=canvas).content == "负责人是王芳。"


def test_a_resent_history_continues_the_same_conversation(planted, canvas, api, scripted_llm):
    scripted_llm.push({"content": "Port 6117."}, {"content": "It goes live on 12 March."})
    client = api("bob")
    history = [{"role": "user", "content": "Which port does the invoicing database use?"}]
    first = client.chat.completions.create(model=f"canvas:{canvas.pk}", messages=history)
    history += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "And when does the service go live?"},
    ]
    second = client.chat.completions.create(model=f"canvas:{canvas.pk}", messages=history)
    assert (
        second.model_extra["canvasweb"]["conversation_id"]
        == first.model_extra["canvasweb"]["conversation_id"]
    )
    assert Conversation.objects.count() == 1 and Message.objects.count() == 4
    assert "Port 6117." in json.dumps(scripted_llm.requests[1]["messages"])  # the history went back upstream


def test_client_history_starts_a_new_conversation_with_its_earlier_turns(planted, canvas, api, scripted_llm):
    scripted_llm.push({"content": "Noted."})
    reply = api("bob").chat.completions.create(
        model=f"canvas:{canvas.pk}",
        messages=[
            {"role": "user", "content": "We agreed the invoice export runs nightly at 02:00."},
            {"role": "assistant", "content": "Understood, nightly at 02:00."},
            {"role": "user", "content": "Actually the export now runs at 03:30, not 02:00."},
        ],
    )
    conversation = Conversation.objects.get(pk=reply.model_extra["canvasweb"]["conversation_id"])
    assert conversation.messages.count() == 4
    assert "nightly at 02:00" in json.dumps(scripted_llm.requests[0]["messages"])
    # Capture works on API conversations: the correction is offered as a suggestion.
    assert FactSuggestion.objects.filter(conversation=conversation).exists()


def test_viewer_gets_read_only_context(planted, canvas, api, scripted_llm):
    scripted_llm.push({"content": "ok"})
    reply = api("vic").chat.completions.create(
        model=f"canvas:{canvas.pk}",
        messages=[
            {"role": "user", "content": "The vendor contract ends in 2027, and the database port is 6117."}
        ],
    )
    sent = scripted_llm.all_request_text()
    assert FACT in sent and INTERNAL not in sent and SECRET_VALUE not in sent
    assert (
        reply.model_extra["canvasweb"]["role"] == "viewer"
        and reply.model_extra["canvasweb"]["suggestions"] == 0
    )
    assert not FactSuggestion.objects.exists()


def test_models_lists_the_users_canvases(planted, canvas, api, alice):
    other = services.canvas_create(user=alice, name="Private notes")
    ids = [m.id for m in api("bob").models.list()]
    assert ids == [f"canvas:{canvas.pk}"]
    assert f"canvas:{other.pk}" in [m.id for m in api("alice").models.list()]
    assert api("bob").models.retrieve(f"canvas:{canvas.pk}").id == f"canvas:{canvas.pk}"


@pytest.mark.parametrize(
    "entry, status, codes",
    [
        ({"status": 500, "body": "upstream exploded"}, 502, {"upstream_error"}),
        # A 200 whose body is not JSON: the streaming reader finds no event in it, so nothing came back.
        ({"garbage": True}, 502, {"upstream_bad_response", "upstream_empty_reply"}),
        ({"empty": True}, 502, {"upstream_empty_reply"}),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_upstream_failures_are_openai_errors(
    planted, canvas, api, scripted_llm, entry, status, codes, stream
):
    scripted_llm.push(entry)
    with pytest.raises(openai.APIError) as caught:
        result = api("bob").chat.completions.create(
            model=f"canvas:{canvas.pk}", stream=stream, messages=[{"role": "user", "content": "Which port?"}]
        )
        if stream:
            list(result)
    error = caught.value
    if isinstance(error, openai.APIStatusError):
        assert error.status_code == status
    assert error.body["code"] in codes and "upstream" in error.body["message"].lower()
    message = Message.objects.get(role="assistant")
    assert message.status == "error" and message.error


def test_upstream_down_is_a_502(planted, canvas, api, scripted_llm, settings):
    from canvasweb.testing.servers import free_port

    settings.LLM = {**settings.LLM, "BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}
    with pytest.raises(openai.APIStatusError) as caught:
        api("bob").chat.completions.create(
            model=f"canvas:{canvas.pk}", messages=[{"role": "user", "content": "Which port?"}]
        )
    assert caught.value.status_code == 502 and caught.value.body["code"] == "upstream_unreachable"


def test_no_model_configured_is_a_503(planted, canvas, api, settings):
    settings.LLM = {**settings.LLM, "BASE_URL": "", "API_KEY": ""}
    with pytest.raises(openai.APIStatusError) as caught:
        api("bob").chat.completions.create(
            model=f"canvas:{canvas.pk}", messages=[{"role": "user", "content": "hi"}]
        )
    assert caught.value.status_code == 503 and caught.value.body["code"] == "model_not_configured"


def nothing_written() -> tuple:
    return Conversation.objects.count(), Message.objects.count(), ModelRequest.objects.count()


def test_unknown_canvas_and_foreign_model(planted, canvas, api, scripted_llm):
    before = nothing_written()
    with pytest.raises(openai.NotFoundError) as unknown:
        api("bob").chat.completions.create(
            model="canvas:987654", messages=[{"role": "user", "content": "hi"}]
        )
    with pytest.raises(openai.NotFoundError) as foreign:
        api("bob").chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert unknown.value.body["code"] == foreign.value.body["code"] == "model_not_found"
    assert "canvas:<id>" in foreign.value.body["message"]
    assert nothing_written() == before and scripted_llm.requests == []
    assert SecurityEvent.objects.filter(channel="api", code="NOT_FOUND").count() == 1


def test_no_token_and_bad_token(planted, canvas, live_server_url, scripted_llm):
    before = nothing_written()
    response = httpx2.post(
        f"{live_server_url}/v1/chat/completions",
        json={"model": f"canvas:{canvas.pk}", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_api_key"
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(
            base_url=f"{live_server_url}/v1", api_key="wrong", max_retries=0
        ).chat.completions.create(model=f"canvas:{canvas.pk}", messages=[{"role": "user", "content": "hi"}])
    assert nothing_written() == before and scripted_llm.requests == []


def test_external_access_off(planted, canvas, api, alice, scripted_llm):
    services.canvas_update(
        actor=user_actor(alice), canvas_id=canvas.pk, agent_policy={"external_access": False}
    )
    with pytest.raises(openai.PermissionDeniedError) as caught:
        api("bob").chat.completions.create(
            model=f"canvas:{canvas.pk}", messages=[{"role": "user", "content": "hi"}]
        )
    assert "switched off" in caught.value.body["message"]
    assert api("bob").models.list().data == [] and scripted_llm.requests == []


@pytest.mark.parametrize(
    "body, code",
    [
        (b"{not json", "invalid_json"),
        (b"[1, 2]", "invalid_json"),
        # NaN / Infinity are not JSON (REST and the socket refuse them too).
        (
            b'{"model": "canvas:{id}", "temperature": NaN, "messages": [{"role": "user", "content": "hi"}]}',
            "invalid_json",
        ),
        (
            b'{"model": "canvas:{id}", "top_p": -Infinity, "messages": [{"role": "user", "content": "hi"}]}',
            "invalid_json",
        ),
        # Valid JSON that no database stores: a lone surrogate was a 500 HTML page when the question was saved.
        (
            b'{"model": "canvas:{id}", "messages": [{"role": "user", "content": "port \\ud800?"}]}',
            "invalid_value",
        ),
        (
            b'{"model": "canvas:{id}", "user": "a\\udc00", "messages": [{"role": "user", "content": "hi"}]}',
            "invalid_value",
        ),
        (
            b'{"model": "canvas:{id}", "max_tokens": '
            + b"9" * 400
            + b', "messages": [{"role": "user", "content": "hi"}]}',
            "invalid_value",
        ),
        (
            json.dumps(
                {"model": "canvas:{id}", "messages": [{"role": "user", "content": "长" * 9000}]}
            ).encode(),
            "string_above_max_length",
        ),
        (
            json.dumps(
                {
                    "model": "canvas:{id}",
                    "messages": [{"role": "user", "content": "x" * 40000}, {"role": "user", "content": "q"}],
                }
            ).encode(),
            "string_above_max_length",
        ),
        (json.dumps({"model": "canvas:{id}", "messages": []}).encode(), "invalid_value"),
        (
            json.dumps(
                {"model": "canvas:{id}", "messages": [{"role": "assistant", "content": "hi"}]}
            ).encode(),
            "invalid_value",
        ),
        (
            json.dumps({"model": "canvas:{id}", "messages": [{"role": "wizard", "content": "hi"}]}).encode(),
            "invalid_value",
        ),
        (
            json.dumps(
                {
                    "model": "canvas:{id}",
                    "messages": [{"role": "user", "content": "hi"}],
                    "tools": [{"type": "function", "function": {"name": "add_node"}}],
                }
            ).encode(),
            "unsupported_parameter",
        ),
        (
            json.dumps(
                {"model": "canvas:{id}", "messages": [{"role": "user", "content": "hi"}], "stream": "yes"}
            ).encode(),
            "invalid_type",
        ),
        (
            json.dumps(
                {"model": "canvas:{id}", "messages": [{"role": "user", "content": "hi"}], "bogus": 1}
            ).encode(),
            "unknown_parameter",
        ),
        (b"{" + b'"model": "' + b"x" * (1024 * 1024) + b'"}', "request_too_large"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(
    planted, canvas, live_server_url, tokens, scripted_llm, body, code
):
    before = nothing_written()
    response = httpx2.post(
        f"{live_server_url}/v1/chat/completions",
        timeout=20,
        content=body.replace(b"canvas:{id}", f"canvas:{canvas.pk}".encode()),
        headers={"Authorization": f"Bearer {tokens['vic']}", "Content-Type": "application/json"},
    )
    assert response.status_code in (400, 413)
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and error["type"] == "invalid_request_error"
    assert nothing_written() == before and scripted_llm.requests == []
    if b"\\ud800" in body:
        assert error["param"] == "messages[0].content" and "lone surrogate" in error["message"]


def test_unknown_endpoint_and_wrong_method(live_server_url, tokens, db):
    missing = httpx2.post(
        f"{live_server_url}/v1/embeddings", headers={"Authorization": f"Bearer {tokens['bob']}"}
    )
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_url"
    wrong = httpx2.get(f"{live_server_url}/v1/chat/completions")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_conversation_header_picks_or_refuses(planted, canvas, api, scripted_llm, bob, alice):
    from canvasweb.chat import services as chat_services

    own = chat_services.conversation_create(user=bob, canvas_id=canvas.pk, title="planning")
    foreign = chat_services.conversation_create(user=alice, canvas_id=canvas.pk, title="alice's")
    scripted_llm.push({"content": "ok"})
    reply = api("bob").chat.completions.create(
        model=f"canvas:{canvas.pk}",
        extra_headers={"X-Canvasweb-Conversation": str(own.pk)},
        messages=[{"role": "user", "content": "status?"}],
    )
    assert reply.model_extra["canvasweb"]["conversation_id"] == own.pk
    with pytest.raises(openai.NotFoundError) as caught:
        api("bob").chat.completions.create(
            model=f"canvas:{canvas.pk}",
            extra_headers={"X-Canvasweb-Conversation": str(foreign.pk)},
            messages=[{"role": "user", "content": "status?"}],
        )
    assert caught.value.body["code"] == "conversation_not_found"
    assert foreign.messages.count() == 0


def test_a_bad_host_and_a_server_bug_are_openai_errors_not_html(
    planted, canvas, tokens, settings, monkeypatch
):
    """docs/integrations.md: /v1/ errors are always {"error": {message, type, param, code}}, also for a Host
    outside DJANGO_ALLOWED_HOSTS and for a crash (with DJANGO_DEBUG on, the default, both were HTML pages)."""
    from django.test import Client

    from canvasweb.integrations.openai_compat import views

    settings.DEBUG = True
    settings.ALLOWED_HOSTS = ["testserver"]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {tokens['bob']}"}
    bad_host = Client(HTTP_HOST="evil.example", **auth).get("/v1/models")
    assert bad_host.status_code == 400 and bad_host["Content-Type"] == "application/json"
    assert bad_host.json() == {
        "error": {
            "message": "host 'evil.example' is not in DJANGO_ALLOWED_HOSTS",
            "type": "invalid_request_error",
            "param": "host",
            "code": "invalid_value",
        }
    }

    def broken(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views.services, "models_for", broken)
    crash = Client(raise_request_exception=False, **auth).get("/v1/models")
    assert crash.status_code == 500 and crash["Content-Type"] == "application/json"
    assert crash.json()["error"]["code"] == "internal_error"
    assert set(crash.json()["error"]) == {"message", "type", "param", "code"}
