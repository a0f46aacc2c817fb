"""Rolling summary: old turns fold into a structured summary, by the model when possible, extractive otherwise."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from canvasweb.chat import services
from canvasweb.chat.models import Conversation, Message, ModelRequest
from tests.canvases.realtime.test_consumer import join, setup_canvas
from tests.chat.test_chat_socket import chat

LONG = (
    "We agreed the staging database listens on port 5433 and we never commit the password; "
    "the JWT expiry is 15 minutes and the deploy window is Tuesday to Thursday. "
) * 3


@pytest.fixture
def small_window(settings, scripted_llm):
    settings.LLM = {**settings.LLM, "CONTEXT_WINDOW": 1400, "MAX_OUTPUT_TOKENS": 200}
    return scripted_llm


async def converse(ws, llm, turns, summary_reply):
    conversation_id = None
    # Summary requests are recognised by the template's first line.
    llm.push(*[{**summary_reply, "when": "rolling summary"} for _ in range(turns)])
    for index in range(turns):
        llm.push({"content": f"Noted, item {index}. " + "ok " * 30, "when": f"Turn {index}:"})
        started, _, done = await chat(ws, f"Turn {index}: {LONG}", conversation_id=conversation_id)
        assert done["type"] == "chat.done", done
        conversation_id = started["conversation"]["id"]
        await asyncio.sleep(0.3)  # the fold runs after chat.done
    return conversation_id


@pytest.mark.django_db(transaction=True)
async def test_the_model_writes_the_summary_with_the_template(small_window):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    reply = {"content": "Goals: ship.\nConstraints & numbers: port 5433; JWT 15 minutes.\nCorrections: none."}
    conversation_id = await converse(ws, small_window, 5, reply)
    conversation = await database_sync_to_async(Conversation.objects.get)(pk=conversation_id)
    assert conversation.summarized_through_id > 0
    assert "port 5433; JWT 15 minutes" in conversation.summary
    summary_requests = [
        r for r in small_window.requests if "rolling summary" in str(r["messages"][0]["content"])
    ]
    assert summary_requests and "Corrections (verbatim)" in summary_requests[0]["messages"][0]["content"]
    assert await database_sync_to_async(ModelRequest.objects.filter(purpose="summary").exists)()
    # The next turn sends the summary, not the folded messages.
    small_window.reset()
    small_window.push({"content": "fine"})
    _started, _, _ = await chat(ws, "what is the port?", conversation_id=conversation_id)
    last = small_window.requests[-1]["messages"]
    assert any("port 5433; JWT 15 minutes" in str(m["content"]) for m in last)
    # Folded turns are no longer sent as messages (the recall layer may quote a matching one).
    assert not any(str(m["content"]).startswith("Turn 0:") for m in last)
    await ws.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_when_the_model_fails_the_fold_is_extractive_and_keeps_numbers(small_window):
    canvas, _users, tokens = await setup_canvas()
    ws, _, _ = await join(canvas.pk, tokens["alice"])
    conversation_id = await converse(ws, small_window, 5, {"status": 500})
    conversation = await database_sync_to_async(Conversation.objects.get)(pk=conversation_id)
    assert conversation.summarized_through_id > 0
    assert "5433" in conversation.summary and "15 minutes" in conversation.summary
    failed = await database_sync_to_async(
        lambda: list(ModelRequest.objects.filter(purpose="summary").values_list("error", flat=True))
    )()
    assert failed and all("500" in e for e in failed)
    await ws.disconnect()


@pytest.mark.django_db
def test_offline_fold_only_when_the_window_is_70_percent_full(canvas, alice):
    conversation = Conversation.objects.create(canvas=canvas, user=alice)
    for i in range(6):
        Message.objects.create(
            conversation=conversation,
            role="user" if i % 2 == 0 else "assistant",
            source="user_input" if i % 2 == 0 else "assistant_reply",
            content=f"message {i}: port 5433 never 5432",
            token_count=20,
        )
    assert services.summary_fold_plan(conversation=conversation, recent_budget=1000) is None
    services.summary_store(plan=services.summary_fold_plan(conversation=conversation, recent_budget=100))
    conversation.refresh_from_db()
    kept = Message.objects.filter(
        conversation=conversation, id__gt=conversation.summarized_through_id
    ).count()
    assert kept == services.KEEP_AFTER_FOLD and "5433" in conversation.summary


@pytest.mark.django_db
def test_the_fold_request_and_the_stored_summary_never_hold_a_secret_node_value(canvas, alice, apply):
    from tests.conftest import node_op

    apply(alice, node_op("备份库口令 Rq8-Wm2-Yt6-Pz4", sensitivity="secret"))

    def conversation_with_the_value():
        conversation = Conversation.objects.create(canvas=canvas, user=alice)
        for i in range(6):
            Message.objects.create(
                conversation=conversation,
                role="user" if i % 2 == 0 else "assistant",
                source="user_input" if i % 2 == 0 else "assistant_reply",
                content=f"第 {i} 条：备份库口令是 Rq8-Wm2-Yt6-Pz4，端口 6543",
                token_count=30,
            )
        return conversation

    conversation = conversation_with_the_value()
    plan = services.summary_fold_plan(conversation=conversation, recent_budget=100)
    prompt = services.summary_prompt(plan)
    assert "Rq8-Wm2-Yt6-Pz4" not in prompt[0]["content"] and "6543" in prompt[0]["content"]
    services.summary_store(plan=plan, model_text="摘要：口令 Rq8-Wm2-Yt6-Pz4")
    conversation.refresh_from_db()
    assert "Rq8-Wm2-Yt6-Pz4" not in conversation.summary
    # The extractive fold (no model) is masked too.
    extractive = conversation_with_the_value()
    services.summary_store(plan=services.summary_fold_plan(conversation=extractive, recent_budget=100))
    extractive.refresh_from_db()
    assert extractive.summary and "Rq8-Wm2-Yt6-Pz4" not in extractive.summary
