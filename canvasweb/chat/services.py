"""Chat turns: store the question, compile the context, record the model request, fold the summary.

Synchronous and ORM-bound; the WebSocket streaming lives in chat/turns.py and
calls these through `database_sync_to_async`. Canvas writes (accepting a
suggested fact) go through canvases.services like every other write.

This module holds the turn itself (check, compile, store, finish); the rest of the chat's
service layer lives beside it and is importable from here too: turn_context.py (compiling
the context, the context preview), conversations.py (conversations, messages),
summary_fold.py (the rolling summary), model_requests.py (the model-request record, LLM
status), suggestions.py (deciding fact suggestions; suggestion_capture.py captures them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.common.errors import NotFound
from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import CompiledContext

from .context_inputs import TOKEN_CACHE
from .context_inputs import history_for as history_for
from .conversations import MESSAGE_PAGE_DEFAULT as MESSAGE_PAGE_DEFAULT
from .conversations import MESSAGE_PAGE_MAX as MESSAGE_PAGE_MAX
from .conversations import conversation_create as conversation_create
from .conversations import conversation_for_user
from .conversations import conversation_to_dict as conversation_to_dict
from .conversations import conversations_for as conversations_for
from .conversations import message_to_dict as message_to_dict
from .conversations import messages_page as messages_page
from .llm import ModelConfig
from .model_requests import llm_status as llm_status
from .model_requests import model_request_for as model_request_for
from .model_requests import model_request_to_dict as model_request_to_dict
from .models import Conversation, Message, MessageRole, MessageSource, MessageStatus, ModelRequest
from .report_visibility import hidden_node_ids, visible_report_dict
from .suggestion_capture import capture_suggestions
from .suggestions import (
    suggestion_accept as suggestion_accept,
)
from .suggestions import (
    suggestion_dismiss as suggestion_dismiss,
)
from .suggestions import (
    suggestion_to_dict as suggestion_to_dict,
)
from .suggestions import (
    suggestions_for_conversation as suggestions_for_conversation,
)
from .summary_fold import KEEP_AFTER_FOLD as KEEP_AFTER_FOLD
from .summary_fold import SUMMARY_MAX_TOKENS as SUMMARY_MAX_TOKENS
from .summary_fold import FoldPlan as FoldPlan
from .summary_fold import summary_fold_plan as summary_fold_plan
from .summary_fold import summary_prompt as summary_prompt
from .summary_fold import summary_store as summary_store
from .turn_context import MAX_QUESTION_CHARS as MAX_QUESTION_CHARS
from .turn_context import compile_for as compile_for
from .turn_context import context_preview as context_preview
from .turn_context import preview_payload as preview_payload
from .turn_context import validate_question as validate_question


@dataclass
class PreparedTurn:
    conversation: Conversation
    user_message: Message
    assistant_message: Message
    model_request: ModelRequest
    messages: list[dict]
    role: str
    handles: dict[str, str]
    suggestions: list[dict] = field(default_factory=list)
    compiled: CompiledContext | None = None
    # The compile report as this role may see it (sent as chat.started.context).
    preview: dict | None = None


# --- a chat turn -------------------------------------------------------------------------


@dataclass
class TurnStart:
    """What a turn needs before compiling: checked, nothing written yet."""

    user: Any
    canvas: Any
    role: str
    question: str
    conversation: Conversation | None


def turn_prepare(
    *,
    user,
    canvas_id: int,
    text: Any,
    viewport: dict | None,
    conversation_id: int | None = None,
    tools: list[dict] | None = None,
) -> PreparedTurn:
    """Store the question, compile the context, open the model request record, capture facts.

    Four steps, so the socket path (chat/turns.py) can run the heavy ones off the database
    thread: `turn_begin` checks (no writes), `turn_compile` compiles (reads only, no
    transaction held), `turn_store` writes the turn's rows in one short transaction, and
    `turn_capture` offers fact suggestions for the stored question (after that transaction:
    capture reads the earlier messages and writes only its own suggestion rows).
    """
    start = turn_begin(user=user, canvas_id=canvas_id, text=text, conversation_id=conversation_id)
    compiled = turn_compile(start=start, viewport=viewport)
    turn = turn_store(start=start, compiled=compiled, tools=tools)
    turn_capture(turn=turn)
    return turn


def turn_begin(*, user, canvas_id: int, text: Any, conversation_id: int | None = None) -> TurnStart:
    question = validate_question(text)
    canvas, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    conversation = None
    if conversation_id is not None:
        conversation = conversation_for_user(user=user, conversation_id=conversation_id)
        if conversation.canvas_id != canvas.pk:
            raise NotFound("no such conversation on this canvas", field="conversation_id")
    return TurnStart(user=user, canvas=canvas, role=role, question=question, conversation=conversation)


def turn_compile(*, start: TurnStart, viewport: dict | None) -> CompiledContext:
    """Compile the context (the question is not stored yet, so the history is exactly what precedes it)."""
    return compile_for(
        canvas_id=start.canvas.pk,
        role=start.role,
        question=start.question,
        viewport=viewport,
        conversation=start.conversation,
    )


def turn_capture(*, turn: PreparedTurn) -> list[dict]:
    """The rules' fact suggestions for the turn's question (set on the turn and returned)."""
    turn.suggestions = capture_suggestions(
        conversation=turn.conversation, message=turn.user_message, role=turn.role
    )
    return turn.suggestions


def turn_store(
    *, start: TurnStart, compiled: CompiledContext, tools: list[dict] | None = None
) -> PreparedTurn:
    config = ModelConfig.from_settings()
    user, canvas, question = start.user, start.canvas, start.question
    with transaction.atomic():
        conversation = start.conversation
        if conversation is None:
            conversation = Conversation.objects.create(canvas=canvas, user=user, title=_title_from(question))
        elif not conversation.title:  # created without a title: named after its first question
            conversation.title = _title_from(question)
            conversation.save(update_fields=["title"])
        user_message = Message.objects.create(
            conversation=conversation,
            role=MessageRole.USER,
            source=MessageSource.USER_INPUT,
            content=question,
            token_count=count_tokens(question, encoding=TOKEN_CACHE.encoding),
        )
        report = compiled.report
        hidden = hidden_node_ids(canvas_id=canvas.pk, role=start.role)
        assistant = Message.objects.create(
            conversation=conversation,
            role=MessageRole.ASSISTANT,
            source=MessageSource.ASSISTANT_REPLY,
            content="",
            status=MessageStatus.STREAMING,
            handles={h: i for h, i in report.handles.items() if str(i) not in hidden},
        )
        model_request = ModelRequest.objects.create(
            conversation=conversation,
            message=assistant,
            canvas=canvas,
            user=user,
            purpose="chat",
            model=config.model,
            base_url=config.base_url,
            strategy=report.strategy,
            messages=compiled.messages,
            tools=tools,
            layer_tokens=report.layer_tokens,
            budget=report.budget.get("total", 0),
            included_node_ids=[n.node_id for n in report.included_nodes],
            report=visible_report_dict(report.to_dict(), hidden=hidden),
        )
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
    return PreparedTurn(
        conversation=conversation,
        user_message=user_message,
        assistant_message=assistant,
        model_request=model_request,
        messages=compiled.messages,
        role=start.role,
        handles=dict(report.handles),
        compiled=compiled,
        preview=preview_payload(compiled, canvas_id=canvas.pk, role=start.role),
    )


def turn_finish(
    *,
    turn: PreparedTurn,
    text: str,
    usage: dict | None,
    latency_ms: int,
    error: str = "",
    error_code: str = "",
    stopped: bool = False,
    tool_calls: list | None = None,
    handles: dict[str, str] | None = None,
) -> Message:
    """Close the assistant message and its model request; fold old turns into the summary if due.

    `handles`: the agent's handle map at the end of the turn (it issues new ones for nodes it searched,
    read or added), kept on the reply so its `[n7]` references stay links."""
    assistant = turn.assistant_message
    fields = ["content", "token_count", "status", "error", "error_code"]
    new = {h: str(i) for h, i in (handles or {}).items() if (assistant.handles or {}).get(h) != str(i)}
    if new:
        hidden = hidden_node_ids(canvas_id=turn.conversation.canvas_id, role=turn.role)
        assistant.handles = {**(assistant.handles or {}), **{h: i for h, i in new.items() if i not in hidden}}
        fields.append("handles")
    assistant.content = text
    assistant.token_count = count_tokens(text, encoding=TOKEN_CACHE.encoding) if text else 0
    assistant.status = (
        MessageStatus.ERROR if error else MessageStatus.STOPPED if stopped else MessageStatus.COMPLETE
    )
    assistant.error = error
    assistant.error_code = error_code if error else ""
    assistant.save(update_fields=fields)
    request = turn.model_request
    request.response_text = text
    request.usage = usage
    request.latency_ms = latency_ms
    request.error = error
    if tool_calls is not None:
        request.tool_calls = tool_calls
    request.save(update_fields=["response_text", "usage", "latency_ms", "error", "tool_calls"])
    return assistant


def record_model_round(
    *,
    turn: PreparedTurn,
    purpose: str,
    messages: list[dict],
    tools: list[dict] | None,
    text: str,
    tool_calls: list | None,
    usage: dict | None,
    latency_ms: int,
    error: str = "",
) -> ModelRequest:
    """An extra request in the same turn (an agent tool round): on record like the first."""
    report = turn.compiled.report if turn.compiled else None
    return ModelRequest.objects.create(
        conversation=turn.conversation,
        message=turn.assistant_message,
        canvas_id=turn.conversation.canvas_id,
        user=turn.conversation.user,
        purpose=purpose,
        model=turn.model_request.model,
        base_url=turn.model_request.base_url,
        strategy=turn.model_request.strategy,
        messages=messages,
        tools=tools,
        layer_tokens=report.layer_tokens if report else {},
        budget=turn.model_request.budget,
        included_node_ids=turn.model_request.included_node_ids,
        report=turn.model_request.report,
        response_text=text,
        tool_calls=tool_calls,
        usage=usage,
        latency_ms=latency_ms,
        error=error,
    )


def _title_from(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= 60 else line[:59] + "…"


# --- fact capture (chat/suggestion_capture.py) ------------------------------------------------------------------


def _capture_suggestions(*, conversation: Conversation, message: Message, role: str) -> list[dict]:
    """The deterministic capture of a user message (the benchmark's `canvas+capture` calls this)."""
    return capture_suggestions(conversation=conversation, message=message, role=role)
