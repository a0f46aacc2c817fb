"""Chat over the canvas socket against a scripted OpenAI-compatible server (real HTTP, real openai client)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from canvasweb.chat.models import Conversation, Message, ModelRequest
from tests.canvases.realtime.test_consumer import join, send_op, setup_canvas

pytestmark = pytest.mark.django_db(transaction=True)


async def chat(ws, text, conversation_id=None, viewport=None):
    await ws.send_json_to(
        {
            "type": "chat.send",
            "request_id": "r1",
            "text": text,
            "conversation_id": conversation_id,
            "viewport": viewport or {"x": 0, "y": 0, "zoom": 1, "width": 1200, "height": 800},
        }
    )
    started, deltas = None, []
    while True:
        message = await ws.receive_json_from(timeout=5)
        if message["type"] == "chat.started":
            started = message
        elif message["type"] == "chat.delta":
            deltas.append(message["delta"])
        elif message["type"] in ("chat.done", "chat.error"):
            return started, deltas, message


async def test_streamed_reply_is_recorded_with_usage_and_context(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    await send_op(
        ws,
        {"type": "node.create", "node": {"content": "数据库端口是 5433", "x": 10, "y": 10, "kind": "config"}},
    )
    await send_op(
        ws,
        {
            "type": "node.create",
            "node": {"content": "staging password is hunter2-xyz", "x": 20, "y": 20, "sensitivity": "secret"},
        },
    )
    await send_op(
        ws,
        {
            "type": "node.create",
            "node": {"content": "db url postgres://app:s3cr3tpw@db:5433/app", "x": 30, "y": 30},
        },
    )
    scripted_llm.push(
        {
            "content": "端口是 5433。",
            "usage": {"prompt_tokens": 321, "completion_tokens": 7, "total_tokens": 328},
        }
    )
    started, deltas, done = await chat(ws, "数据库端口是多少？")
    assert done["type"] == "chat.done" and "".join(deltas) == "端口是 5433。"
    assert done["message"]["content"] == "端口是 5433。" and done["message"]["status"] == "complete"
    assert started["context"]["layer_tokens"]["canvas"] > 0
    record = await database_sync_to_async(ModelRequest.objects.get)(pk=started["model_request_id"])
    assert record.usage["prompt_tokens"] == 321 and record.latency_ms is not None
    assert record.messages == scripted_llm.requests[0]["messages"]
    assert len(record.included_node_ids) == 3
    sent = scripted_llm.all_request_text()
    assert "5433" in sent and "hunter2-xyz" not in sent and "s3cr3tpw" not in sent
    assert sent.index("数据库端口是多少") > sent.index("5433")  # the question is last
    await ws.disconnect()


@pytest.mark.parametrize(
    "entry, code",
    [
        ({"status": 500}, "MODEL_HTTP_ERROR"),
        ({"delay": 3, "content": "too late"}, "MODEL_TIMEOUT"),
        ({"empty": True}, "MODEL_EMPTY"),
        ({"garbage": True}, "MODEL_EMPTY"),
    ],
)
async def test_model_failures_become_clear_errors_and_keep_the_conversation(scripted_llm, entry, code):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["bob"])
    scripted_llm.push(entry)
    started, _, result = await chat(ws, "what changed?")
    assert result["type"] == "chat.error" and result["error"]["code"] == code and result["error"]["message"]
    conversation_id = started["conversation"]["id"]
    scripted_llm.push({"content": "recovered"})
    _, _, again = await chat(ws, "try again", conversation_id=conversation_id)
    assert again["type"] == "chat.done" and again["message"]["content"] == "recovered"
    roles = await database_sync_to_async(
        lambda: list(Message.objects.filter(conversation_id=conversation_id).values_list("role", "status"))
    )()
    assert roles == [
        ("user", "complete"),
        ("assistant", "error"),
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    await ws.disconnect()


async def test_without_a_model_the_chat_says_how_to_configure_one(settings):
    settings.LLM = {**settings.LLM, "BASE_URL": "", "API_KEY": ""}
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    _, _, result = await chat(ws, "hello")
    assert result["error"]["code"] == "MODEL_NOT_CONFIGURED" and "LLM_BASE_URL" in result["error"]["message"]
    await ws.disconnect()


@pytest.mark.parametrize("text", ["", "   ", "x" * 8001, None, 42])
async def test_empty_or_oversized_question_is_refused(scripted_llm, text):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    _, _, result = await chat(ws, text)
    assert result["type"] == "chat.error" and result["error"]["code"] == "INVALID"
    assert scripted_llm.requests == []
    assert await database_sync_to_async(Conversation.objects.count)() == 0
    await ws.disconnect()


async def test_stop_ends_the_stream_and_keeps_what_arrived(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    scripted_llm.push({"content": "a long answer " * 40, "chunk_delay": 0.05})
    await ws.send_json_to({"type": "chat.send", "text": "explain", "viewport": None})
    started = await ws.receive_json_from(timeout=5)
    assert started["type"] == "chat.started"
    first = await ws.receive_json_from(timeout=5)
    assert first["type"] == "chat.delta"
    await ws.send_json_to({"type": "chat.stop", "message_id": started["assistant_message_id"]})
    while True:
        message = await ws.receive_json_from(timeout=5)
        if message["type"] in ("chat.done", "chat.error"):
            break
    assert message["type"] == "chat.done" and message["message"]["status"] == "stopped"
    assert 0 < len(message["message"]["content"]) < len("a long answer " * 40)
    await ws.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "chat.stop"},
        {"type": "chat.stop", "message_id": "89"},
        {"type": "chat.stop", "message_id": True},
        {"type": "chat.stop", "message_id": 0},
        {"type": "chat.stop", "message_id": 1.5},
        {"type": "chat.stop", "message_id": [89]},
    ],
)
async def test_a_malformed_stop_is_a_bad_message_not_ignored(frame):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    await ws.send_json_to(frame)
    reply = await ws.receive_json_from(timeout=5)
    assert reply["type"] == "error", reply
    assert (reply["error"]["code"], reply["error"]["field"]) == ("BAD_MESSAGE", "message_id")
    await ws.disconnect()


async def test_a_stop_with_nothing_to_stop_is_ignored(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    _, _, done = await chat(ws, "hello")  # a finished reply
    for message_id in (done["message"]["id"], 999_999, None):
        await ws.send_json_to({"type": "chat.stop", "message_id": message_id})
    await ws.send_json_to({"type": "ping"})
    while (reply := await ws.receive_json_from(timeout=5))["type"] != "pong":
        assert reply["type"] not in ("error", "chat.error", "chat.done"), reply  # no answer to a stop
    await ws.disconnect()


async def test_context_preview_reports_included_nodes_and_follows_the_viewport(scripted_llm):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    near = await send_op(ws, {"type": "node.create", "node": {"content": "near the origin", "x": 0, "y": 0}})
    far = await send_op(ws, {"type": "node.create", "node": {"content": "far away east", "x": 50000, "y": 0}})

    async def preview(x):
        await ws.send_json_to(
            {
                "type": "context.preview",
                "request_id": "p",
                "text": "",
                "viewport": {"x": x, "y": 0, "zoom": 1, "width": 1000, "height": 800},
            }
        )
        while True:
            message = await ws.receive_json_from(timeout=5)
            if message["type"] == "context.preview":
                return {n["node_id"] for n in message["included"]}

    assert near["changes"][0]["id"] in await preview(0) and far["changes"][0]["id"] not in await preview(0)
    assert far["changes"][0]["id"] in await preview(50000)
    assert scripted_llm.requests == []
    await ws.disconnect()


def hold_compile(monkeypatch):
    """Make turn compiles wait (as a first compile in a starting worker does) until the event is set."""
    import threading

    from canvasweb.chat import services

    release = threading.Event()
    real_compile = services.turn_compile

    def held_compile(**kwargs):
        release.wait(timeout=20)
        return real_compile(**kwargs)

    monkeypatch.setattr(services, "turn_compile", held_compile)
    return release


async def test_the_socket_answers_pings_and_refuses_a_second_question_while_one_is_prepared(
    scripted_llm, monkeypatch
):
    """A slow first compile (a worker process starting) must not hold up the socket's heartbeat."""
    release = hold_compile(monkeypatch)
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    scripted_llm.push({"content": "端口是 6543。"})
    await ws.send_json_to(
        {"type": "chat.send", "request_id": "slow", "text": "端口是多少？", "viewport": None}
    )
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from(timeout=5))["type"] == "pong"
    await ws.send_json_to({"type": "chat.send", "request_id": "second", "text": "再问一次", "viewport": None})
    busy = await ws.receive_json_from(timeout=5)
    assert busy["type"] == "chat.error" and busy["request_id"] == "second"
    assert busy["error"]["code"] == "BUSY"
    release.set()
    started = await ws.receive_json_from(timeout=10)
    assert started["type"] == "chat.started" and started["request_id"] == "slow"
    while True:
        message = await ws.receive_json_from(timeout=10)
        if message["type"] in ("chat.done", "chat.error"):
            break
    assert message["type"] == "chat.done" and "6543" in message["message"]["content"]
    await ws.disconnect()


async def test_a_stop_sent_while_the_question_is_prepared_stops_the_reply(scripted_llm, monkeypatch):
    release = hold_compile(monkeypatch)
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    scripted_llm.push({"content": "a slow answer " * 40, "chunk_delay": 0.05})
    await ws.send_json_to({"type": "chat.send", "text": "explain", "viewport": None})
    await ws.send_json_to({"type": "chat.stop", "message_id": None})
    release.set()
    while True:
        message = await ws.receive_json_from(timeout=10)
        if message["type"] in ("chat.done", "chat.error"):
            break
    assert message["type"] == "chat.done" and message["message"]["status"] == "stopped"
    await ws.disconnect()


@pytest.mark.parametrize(
    "viewport, field",
    [
        *((bad, "viewport") for bad in (True, 1.5, "1", [1], [])),
        # An unknown key is named by its path.
        ({"x": 0, "y": 0, "zoom": 1, "width": 1280, "height": 800, "tilt": 3}, "viewport.tilt"),
    ],
)
async def test_a_viewport_that_is_not_an_object_is_invalid_not_internal(scripted_llm, viewport, field):
    # chat.send and context.preview handed the frame's value to the compiler as it came: INTERNAL.
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    await ws.send_json_to({"type": "chat.send", "request_id": "r1", "text": "hello", "viewport": viewport})
    refused = await ws.receive_json_from(timeout=5)
    assert refused["type"] == "chat.error", refused
    assert refused["error"]["code"] == "INVALID" and refused["error"]["field"] == field
    assert refused.get("message_id") is None
    await ws.send_json_to({"type": "context.preview", "request_id": "p", "text": "", "viewport": viewport})
    refused = await ws.receive_json_from(timeout=5)
    assert refused["type"] == "error" and refused["request_id"] == "p", refused
    assert refused["error"]["code"] == "INVALID" and refused["error"]["field"] == field
    assert scripted_llm.requests == []
    assert await database_sync_to_async(Message.objects.count)() == 0
    assert await database_sync_to_async(Conversation.objects.count)() == 0
    await ws.disconnect()


@pytest.mark.parametrize("text", [5, ["a"], {"q": "x"}, 0, False, None])
async def test_a_preview_text_that_is_not_a_string_is_invalid_as_over_rest(scripted_llm, text):
    # The socket handed 5 to the compiler as a question and 0 or False as an empty one; REST refused both.
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    await ws.send_json_to({"type": "context.preview", "request_id": "p", "text": text})
    refused = await ws.receive_json_from(timeout=5)
    assert refused["type"] == "error" and refused["request_id"] == "p", refused
    assert refused["error"]["code"] == "INVALID" and refused["error"]["field"] == "text"
    # Without text the preview compiles for "(your next question)".
    await ws.send_json_to({"type": "context.preview", "request_id": "q"})
    answered = await ws.receive_json_from(timeout=10)
    assert answered["type"] == "context.preview" and answered["request_id"] == "q", answered
    await ws.disconnect()


@pytest.mark.parametrize(
    "text_data, field",
    [
        ('{"type": "chat.send", "request_id": "r9", "text": "port \\u0000?", "viewport": null}', "text"),
        ('{"type": "chat.send", "request_id": "r9", "text": "port \\ud800?", "viewport": null}', "text"),
        (
            '{"type": "chat.send", "request_id": "r9", "text": "hi",'
            ' "viewport": {"x": NaN, "y": 0, "zoom": 1, "width": 1, "height": 1}}',
            "viewport.x",
        ),
    ],
)
async def test_a_question_refused_when_decoded_is_a_chat_error_for_its_request(
    scripted_llm, text_data, field
):
    """A NUL, a lone surrogate or NaN in chat.send was an `error` frame without the request_id: the chat
    panel, which waits for chat.started or chat.error of that id, stayed "sending". Now it is a chat.error
    like every refused question; a context.preview's error carries its request_id."""
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    await ws.send_to(text_data=text_data)
    refused = await ws.receive_json_from(timeout=5)
    assert refused["type"] == "chat.error" and refused["request_id"] == "r9", refused
    assert refused["message_id"] is None
    assert refused["error"]["code"] == "INVALID" and refused["error"]["field"] == field
    preview = text_data.replace('"chat.send"', '"context.preview"').replace('"r9"', '"p9"')
    await ws.send_to(text_data=preview)
    refused = await ws.receive_json_from(timeout=5)
    assert refused["type"] == "error" and refused["request_id"] == "p9", refused
    assert refused["error"]["field"] == field
    assert await database_sync_to_async(Message.objects.count)() == 0
    assert scripted_llm.requests == []
    await ws.disconnect()
