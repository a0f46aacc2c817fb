"""Chat turns: store the question, compile the context, record the model request, fold the summary.

Synchronous and ORM-bound; the WebSocket streaming lives in chat/turns.py and
calls these through `database_sync_to_async`. Canvas writes (accepting a
suggested fact) go through canvases.services like every other write.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Sensitivity
from canvasweb.canvases.occupied import place_new_node
from canvasweb.canvases.operations import COORDINATE_LIMIT
from canvasweb.canvases.permissions import can_see, strictest_markable
from canvasweb.common.errors import InvalidOperation, NotFound
from canvasweb.context.capture import capture_facts, find_superseded_candidates, stricter
from canvasweb.context.compiler import compile_context
from canvasweb.context.redaction import mask_credentials
from canvasweb.context.summary import SUMMARY_PROMPT_TEMPLATE, build_summary, should_fold, wrap_model_summary
from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import CompiledContext, CompileRequest

from .context_inputs import TOKEN_CACHE, canvas_inputs, history_for, message_data, viewport_from
from .llm import ModelConfig
from .models import (Conversation, FactSuggestion, Message, MessageRole, MessageSource, MessageStatus, ModelRequest,
                     SuggestionStatus)
from .prompts import SYSTEM_PROMPT

MAX_QUESTION_CHARS = 8000
# Messages always kept verbatim after a fold (the rest go into the summary).
KEEP_AFTER_FOLD = 4
SUMMARY_MAX_TOKENS = 600


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


# --- conversations --------------------------------------------------------------------


def conversation_create(*, user, canvas_id: int, title: str = "") -> Conversation:
    canvas, _ = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    if not isinstance(title, str) or len(title) > 200:
        raise InvalidOperation("title must be a string of at most 200 characters", field="title")
    return Conversation.objects.create(canvas=canvas, user=user, title=title.strip())


def conversation_for_user(*, user, conversation_id: Any) -> Conversation:
    """The user's own conversation on a canvas they still belong to."""
    if isinstance(conversation_id, bool) or not isinstance(conversation_id, int):
        raise InvalidOperation("conversation_id must be an integer", field="conversation_id")
    conversation = Conversation.objects.select_related("canvas").filter(pk=conversation_id, user=user).first()
    if conversation is None or canvas_selectors.user_role(user=user, canvas_id=conversation.canvas_id) is None:
        raise NotFound("no such conversation", field="conversation_id")
    return conversation


def conversations_for(*, user, canvas_id: int) -> list[Conversation]:
    canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    return list(Conversation.objects.filter(user=user, canvas_id=canvas_id).order_by("-updated_at"))


def message_to_dict(message: Message) -> dict:
    # The first request of a turn holds the compiled context; agent rounds follow it.
    request_ids = (list(message.model_requests.order_by("id").values_list("id", flat=True))
                   if message.role == MessageRole.ASSISTANT and message.pk else [])
    request_id = request_ids[0] if request_ids else None
    return {
        "id": message.pk, "conversation_id": message.conversation_id, "role": message.role,
        "source": message.source, "content": message.content, "status": message.status,
        "error": message.error or None, "error_code": message.error_code or None,
        "token_count": message.token_count, "model_request_id": request_id, "model_request_ids": request_ids, "created_at": message.created_at.isoformat().replace("+00:00", "Z"),
    }


def conversation_to_dict(conversation: Conversation) -> dict:
    return {
        "id": conversation.pk, "canvas_id": conversation.canvas_id, "title": conversation.title,
        "summary": conversation.summary, "created_at": conversation.created_at.isoformat().replace("+00:00", "Z"),
        "updated_at": conversation.updated_at.isoformat().replace("+00:00", "Z"),
    }


# --- compiling ------------------------------------------------------------------------


def validate_question(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidOperation("the question is empty", field="text")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidOperation(f"the question is {len(text)} characters; the limit is {MAX_QUESTION_CHARS}",
                               field="text")
    return text.strip()


def compile_for(*, canvas_id: int, role: str, question: str, viewport: dict | None,
                conversation: Conversation | None = None, exclude_message_id: int | None = None,
                strategy: str = "canvas", budget: int | None = None) -> CompiledContext:
    nodes, edges, index = canvas_inputs(canvas_id=canvas_id)
    history = history_for(conversation=conversation, exclude_id=exclude_message_id) if conversation else ()
    config = ModelConfig.from_settings()
    try:
        view = viewport_from(viewport)
    except (TypeError, ValueError) as exc:
        raise InvalidOperation(f"viewport is invalid: {exc}", field="viewport") from None
    request = CompileRequest(
        system_prompt=SYSTEM_PROMPT, question=question, messages=history, nodes=nodes, edges=edges, index=index,
        viewport=view, role=role, budget=budget or config.prompt_budget, strategy=strategy,
        token_cache=TOKEN_CACHE, encoding=TOKEN_CACHE.encoding,
        rolling_summary=(conversation.summary or None) if conversation else None,
    )
    return compile_context(request=request)


def context_preview(*, user, canvas_id: int, text: str, viewport: dict | None,
                    conversation_id: int | None = None) -> dict:
    """What the next turn would send, without sending or storing anything."""
    _, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    conversation = (conversation_for_user(user=user, conversation_id=conversation_id)
                    if conversation_id is not None else None)
    question = text.strip() if isinstance(text, str) and text.strip() else "(your next question)"
    compiled = compile_for(canvas_id=canvas_id, role=role, question=question[:MAX_QUESTION_CHARS],
                           viewport=viewport, conversation=conversation)
    return preview_payload(compiled)


def preview_payload(compiled: CompiledContext) -> dict:
    report = compiled.report
    return {
        "budget": report.budget,
        "layer_tokens": report.layer_tokens,
        "total_tokens": report.total_tokens,
        "included": [{"node_id": n.node_id, "handle": n.handle, "rank": n.rank, "reason": n.reason,
                      "tokens": n.tokens, "placeholder": n.placeholder} for n in report.included_nodes],
        "excluded": [{"node_id": n.node_id, "reason": n.reason, "detail": n.detail}
                     for n in report.excluded_nodes[:200]],
        "excluded_counts": report.excluded_counts,
        "truncations": [vars(t) if not hasattr(t, "__slots__") else {s: getattr(t, s) for s in t.__slots__}
                        for t in report.truncations],
        "notes": report.notes,
    }


# --- a chat turn -------------------------------------------------------------------------


def turn_prepare(*, user, canvas_id: int, text: Any, viewport: dict | None,
                 conversation_id: int | None = None, tools: list[dict] | None = None) -> PreparedTurn:
    """Store the question, capture facts, compile the context and open the model request record."""
    question = validate_question(text)
    canvas, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    config = ModelConfig.from_settings()
    with transaction.atomic():
        if conversation_id is None:
            conversation = Conversation.objects.create(canvas=canvas, user=user, title=_title_from(question))
        else:
            conversation = conversation_for_user(user=user, conversation_id=conversation_id)
            if conversation.canvas_id != canvas.pk:
                raise NotFound("no such conversation on this canvas", field="conversation_id")
            if not conversation.title:  # created without a title: named after its first question
                conversation.title = _title_from(question)
                conversation.save(update_fields=["title"])
        user_message = Message.objects.create(
            conversation=conversation, role=MessageRole.USER, source=MessageSource.USER_INPUT, content=question,
            token_count=count_tokens(question, encoding=TOKEN_CACHE.encoding))
        suggestions = _capture_suggestions(conversation=conversation, message=user_message, role=role)
        compiled = compile_for(canvas_id=canvas.pk, role=role, question=question, viewport=viewport,
                               conversation=conversation, exclude_message_id=user_message.pk)
        assistant = Message.objects.create(conversation=conversation, role=MessageRole.ASSISTANT,
                                           source=MessageSource.ASSISTANT_REPLY, content="",
                                           status=MessageStatus.STREAMING)
        report = compiled.report
        model_request = ModelRequest.objects.create(
            conversation=conversation, message=assistant, canvas=canvas, user=user, purpose="chat",
            model=config.model, base_url=config.base_url, strategy=report.strategy, messages=compiled.messages,
            tools=tools, layer_tokens=report.layer_tokens, budget=report.budget.get("total", 0),
            included_node_ids=[n.node_id for n in report.included_nodes], report=report.to_dict())
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
    return PreparedTurn(conversation=conversation, user_message=user_message, assistant_message=assistant,
                        model_request=model_request, messages=compiled.messages, role=role,
                        handles=dict(report.handles), suggestions=suggestions, compiled=compiled)


def turn_finish(*, turn: PreparedTurn, text: str, usage: dict | None, latency_ms: int,
                error: str = "", error_code: str = "", stopped: bool = False,
                tool_calls: list | None = None) -> Message:
    """Close the assistant message and its model request; fold old turns into the summary if due."""
    assistant = turn.assistant_message
    assistant.content = text
    assistant.token_count = count_tokens(text, encoding=TOKEN_CACHE.encoding) if text else 0
    assistant.status = (MessageStatus.ERROR if error else MessageStatus.STOPPED if stopped
                        else MessageStatus.COMPLETE)
    assistant.error = error
    assistant.error_code = error_code if error else ""
    assistant.save(update_fields=["content", "token_count", "status", "error", "error_code"])
    request = turn.model_request
    request.response_text = text
    request.usage = usage
    request.latency_ms = latency_ms
    request.error = error
    if tool_calls is not None:
        request.tool_calls = tool_calls
    request.save(update_fields=["response_text", "usage", "latency_ms", "error", "tool_calls"])
    return assistant


def record_model_round(*, turn: PreparedTurn, purpose: str, messages: list[dict], tools: list[dict] | None,
                       text: str, tool_calls: list | None, usage: dict | None, latency_ms: int,
                       error: str = "") -> ModelRequest:
    """An extra request in the same turn (an agent tool round): on record like the first."""
    report = turn.compiled.report if turn.compiled else None
    return ModelRequest.objects.create(
        conversation=turn.conversation, message=turn.assistant_message, canvas_id=turn.conversation.canvas_id,
        user=turn.conversation.user, purpose=purpose, model=turn.model_request.model,
        base_url=turn.model_request.base_url, strategy=turn.model_request.strategy, messages=messages, tools=tools,
        layer_tokens=report.layer_tokens if report else {}, budget=turn.model_request.budget,
        included_node_ids=turn.model_request.included_node_ids, report=turn.model_request.report,
        response_text=text, tool_calls=tool_calls, usage=usage, latency_ms=latency_ms, error=error)


@dataclass
class FoldPlan:
    """Messages due to be folded into the summary (and the ones kept verbatim)."""

    conversation: Conversation
    fold: list[Message]
    keep: list[Message]


def summary_fold_plan(*, conversation: Conversation, recent_budget: int) -> FoldPlan | None:
    """When the verbatim window passes 70 % of its budget, the oldest turns are due for folding."""
    history = list(Message.objects.filter(conversation=conversation, id__gt=conversation.summarized_through_id)
                   .exclude(status=MessageStatus.ERROR).order_by("id"))
    recent_tokens = sum((m.token_count or 0) + 4 for m in history)
    if len(history) <= KEEP_AFTER_FOLD or not should_fold(recent_tokens=recent_tokens, recent_budget=recent_budget):
        return None
    return FoldPlan(conversation=conversation, fold=history[:-KEEP_AFTER_FOLD], keep=history[-KEEP_AFTER_FOLD:])


def summary_prompt(plan: FoldPlan) -> list[dict]:
    """The model-written summary request: the template, masked like every prompt."""
    transcript = "\n".join(f"{m.role}: {m.content}" for m in plan.fold)
    prompt = SUMMARY_PROMPT_TEMPLATE.format(max_words=SUMMARY_MAX_TOKENS // 2,
                                            previous_summary=plan.conversation.summary or "(none)",
                                            messages=transcript)
    return [{"role": "user", "content": mask_credentials(prompt)}]


def summary_store(*, plan: FoldPlan, model_text: str | None = None) -> Conversation:
    """Fold: the model's summary when it wrote one, else the deterministic extractive summary."""
    conversation = plan.conversation
    if model_text and model_text.strip():
        text = wrap_model_summary(mask_credentials(model_text))
        tokens = count_tokens(text, encoding=TOKEN_CACHE.encoding)
    else:
        result = build_summary(messages=[message_data(m) for m in plan.fold], max_tokens=SUMMARY_MAX_TOKENS,
                               later_messages=[message_data(m) for m in plan.keep],
                               previous_summary=conversation.summary or None, cache=TOKEN_CACHE)
        text, tokens = result.text, result.tokens
    conversation.summary = text
    conversation.summary_token_count = tokens
    conversation.summarized_through_id = plan.fold[-1].pk
    conversation.save(update_fields=["summary", "summary_token_count", "summarized_through_id", "updated_at"])
    return conversation


def fold_summary_if_due(*, conversation: Conversation, recent_budget: int) -> bool:
    """The offline fold (extractive); chat/turns.py asks the model first when one is configured."""
    plan = summary_fold_plan(conversation=conversation, recent_budget=recent_budget)
    if plan is None:
        return False
    summary_store(plan=plan)
    return True


def _title_from(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= 60 else line[:59] + "…"


# --- fact capture -----------------------------------------------------------------------------


def _capture_suggestions(*, conversation: Conversation, message: Message, role: str) -> list[dict]:
    facts = capture_facts(text=message.content)
    if not facts or role == "viewer":
        return []  # viewers cannot write, so nothing to offer
    nodes, _, _ = canvas_inputs(canvas_id=conversation.canvas_id)
    visible = [n for n in nodes if can_see(role, n.sensitivity)]
    created = []
    offered: set[str] = set()
    targeted: set[str] = set()  # one suggestion per message supersedes a given node; a second would fail
    for fact in facts[:5]:
        candidates = [n for n in find_superseded_candidates(fact=fact, nodes=visible) if n.id not in targeted]
        # One sentence can match several patterns; offer each value once.
        key = (fact.value or fact.content).strip().lower()
        if key in offered:
            continue
        offered.add(key)
        if candidates:
            targeted.add(candidates[0].id)
        # A correction of an internal node is internal too, unless the user says otherwise when accepting.
        sensitivity = stricter(fact.sensitivity, candidates[0].sensitivity) if candidates else fact.sensitivity
        created.append(FactSuggestion.objects.create(
            conversation=conversation, message=message, content=fact.content[:2000], kind=_node_kind(fact.kind),
            subject=(fact.subject or "")[:200], value=(fact.value or "")[:200], reason=fact.reason[:200],
            supersede_node_id=uuid.UUID(candidates[0].id) if candidates else None,
            sensitivity=strictest_markable(role, sensitivity)))
    return [suggestion_to_dict(s) for s in created]


def _node_kind(fact_kind: str) -> str:
    return {"config": "config", "number": "fact", "rule": "requirement", "correction": "decision",
            "decision": "decision"}.get(fact_kind, "fact")


def suggestion_to_dict(suggestion: FactSuggestion) -> dict:
    return {
        "id": suggestion.pk, "conversation_id": suggestion.conversation_id, "message_id": suggestion.message_id,
        "content": suggestion.content, "kind": suggestion.kind, "subject": suggestion.subject,
        "value": suggestion.value, "reason": suggestion.reason, "sensitivity": suggestion.sensitivity,
        "status": suggestion.status,
        "supersede_node_id": str(suggestion.supersede_node_id) if suggestion.supersede_node_id else None,
        "created_node_id": str(suggestion.created_node_id) if suggestion.created_node_id else None,
    }


def suggestion_accept(*, user, suggestion_id: int, x: float = 0.0, y: float = 0.0, supersede: bool = True,
                      sensitivity: str | None = None) -> dict:
    """One click: the fact becomes a node (or supersedes the old one) through the write path, as this user.

    `sensitivity` overrides the suggested one; the write path refuses one the user may not set.
    """
    suggestion = _suggestion_for(user=user, suggestion_id=suggestion_id)
    if suggestion.status != SuggestionStatus.PENDING:
        raise InvalidOperation(f"this suggestion was already {suggestion.status}", field="suggestion_id")
    if sensitivity is not None and sensitivity not in Sensitivity.values:
        raise InvalidOperation(f"sensitivity must be one of {', '.join(Sensitivity.values)}", field="sensitivity")
    node_id = uuid.uuid4()
    x, y = place_new_node(canvas_id=suggestion.conversation.canvas_id, want=(x, y), content=suggestion.content,
                          limit=COORDINATE_LIMIT)  # the wanted spot, or the nearest free one
    body = {"id": str(node_id), "content": suggestion.content, "kind": suggestion.kind, "x": x, "y": y,
            "tags": ["captured"], "sensitivity": sensitivity or suggestion.sensitivity}
    if supersede and suggestion.supersede_node_id:
        op = {"type": "node.supersede", "id": str(suggestion.supersede_node_id), "node": body}
    else:
        op = {"type": "node.create", "node": body}
    result = canvas_services.apply_operation(actor=user_actor(user, channel="rest"),
                                             canvas_id=suggestion.conversation.canvas_id, op=op,
                                             client_op_id=f"suggestion-{suggestion.pk}")
    FactSuggestion.objects.filter(pk=suggestion.pk).update(status=SuggestionStatus.ACCEPTED,
                                                          created_node_id=node_id)
    suggestion.refresh_from_db()
    return {"suggestion": suggestion_to_dict(suggestion), "revision": result.revision}


def suggestion_dismiss(*, user, suggestion_id: int) -> dict:
    suggestion = _suggestion_for(user=user, suggestion_id=suggestion_id)
    if suggestion.status == SuggestionStatus.PENDING:
        FactSuggestion.objects.filter(pk=suggestion.pk).update(status=SuggestionStatus.DISMISSED)
        suggestion.refresh_from_db()
    return {"suggestion": suggestion_to_dict(suggestion)}


def _suggestion_for(*, user, suggestion_id: Any) -> FactSuggestion:
    if isinstance(suggestion_id, bool) or not isinstance(suggestion_id, int):
        raise InvalidOperation("suggestion_id must be an integer", field="suggestion_id")
    suggestion = FactSuggestion.objects.select_related("conversation").filter(
        pk=suggestion_id, conversation__user=user).first()
    if suggestion is None or canvas_selectors.user_role(user=user,
                                                         canvas_id=suggestion.conversation.canvas_id) is None:
        raise NotFound("no such suggestion", field="suggestion_id")
    return suggestion


def model_request_for(*, user, request_id: int) -> ModelRequest:
    request = ModelRequest.objects.filter(pk=request_id).select_related("conversation").first()
    if request is None or (request.conversation.user_id != user.pk and not user.is_staff):
        raise NotFound("no such model request", field="request_id")
    return request


def model_request_to_dict(request: ModelRequest) -> dict:
    return {
        "id": request.pk, "conversation_id": request.conversation_id, "message_id": request.message_id,
        "purpose": request.purpose, "model": request.model, "base_url": request.base_url,
        "strategy": request.strategy, "messages": request.messages, "tools": request.tools,
        "layer_tokens": request.layer_tokens, "budget": request.budget,
        "included_node_ids": request.included_node_ids, "report": request.report,
        "response_text": request.response_text, "tool_calls": request.tool_calls, "usage": request.usage,
        "latency_ms": request.latency_ms, "error": request.error or None,
        "created_at": request.created_at.isoformat().replace("+00:00", "Z"),
    }


def llm_status() -> dict:
    config = ModelConfig.from_settings()
    return {"configured": config.configured, "model": config.model if config.configured else None,
            "context_window": config.context_window, "max_output_tokens": config.max_output_tokens,
            "help": None if config.configured else
            "Set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) and restart; see README 'Connecting a model'."}


__all__ = ["settings"]
