"""The chat's call into the context compiler: check the question, compile for a role, the preview.

A chat turn (services.turn_compile), the context preview (`context.preview`, the REST preview),
MCP's ask and the drift benchmark all compile through `compile_for`, so they see the context
exactly as a turn would.
"""

from __future__ import annotations

from typing import Any, cast

from django.utils import timezone

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.common.errors import InvalidOperation
from canvasweb.context.compiler import compile_context
from canvasweb.context.types import CompiledContext, CompileRequest, Role, Strategy

from .context_inputs import (
    TOKEN_CACHE,
    archived_history_for,
    canvas_inputs,
    history_for,
    viewport_from,
)
from .conversations import conversation_for_user
from .embeddings import embedding_inputs
from .llm import ModelConfig
from .models import Conversation
from .prompts import SYSTEM_PROMPT
from .report_visibility import hidden_node_ids, visible_exclusions

MAX_QUESTION_CHARS = 8000


def validate_question(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidOperation("the question is empty", field="text")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidOperation(
            f"the question is {len(text)} characters; the limit is {MAX_QUESTION_CHARS}", field="text"
        )
    return text.strip()


def compile_for(
    *,
    canvas_id: int,
    role: str,
    question: str,
    viewport: dict | None,
    conversation: Conversation | None = None,
    exclude_message_id: int | None = None,
    strategy: Strategy = "canvas",
    budget: int | None = None,
) -> CompiledContext:
    nodes, edges, index = canvas_inputs(canvas_id=canvas_id)
    history = history_for(conversation=conversation, exclude_id=exclude_message_id) if conversation else ()
    archived = archived_history_for(conversation=conversation) if conversation else ()
    config = ModelConfig.from_settings()
    vectors = embedding_inputs(
        question=question, nodes=nodes, messages=archived + history, role=role, config=config
    )
    try:
        view = viewport_from(viewport)
    except (TypeError, ValueError) as exc:
        raise InvalidOperation(f"viewport is invalid: {exc}", field="viewport") from None
    request = CompileRequest(
        system_prompt=SYSTEM_PROMPT,
        question=question,
        messages=history,
        nodes=nodes,
        edges=edges,
        index=index,
        viewport=view,
        role=cast(Role, role),  # a membership role: Membership.role's choices are exactly these
        budget=budget or config.prompt_budget,
        strategy=strategy,
        token_cache=TOKEN_CACHE,
        encoding=TOKEN_CACHE.encoding,
        rolling_summary=(conversation.summary or None) if conversation else None,
        archived_messages=archived,
        now=timezone.now().isoformat(),
        embeddings=vectors,
    )
    return compile_context(request=request)


def context_preview(
    *, user, canvas_id: int, text: str, viewport: dict | None, conversation_id: int | None = None
) -> dict:
    """What the next turn would send, without sending or storing anything."""
    if not isinstance(text, str):  # REST and the socket both land here
        raise InvalidOperation("text must be a string", field="text")
    _, role = canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    conversation = (
        conversation_for_user(user=user, conversation_id=conversation_id)
        if conversation_id is not None
        else None
    )
    question = text.strip() or "(your next question)"
    compiled = compile_for(
        canvas_id=canvas_id,
        role=role,
        question=question[:MAX_QUESTION_CHARS],
        viewport=viewport,
        conversation=conversation,
    )
    return preview_payload(compiled, canvas_id=canvas_id, role=role)


def preview_payload(compiled: CompiledContext, *, canvas_id: int, role: str) -> dict:
    """The report as this role may see it: nodes it may not see are left out, even as ids or counts."""
    report = compiled.report
    excluded, excluded_counts = visible_exclusions(
        report.excluded_nodes, report.excluded_counts, hidden=hidden_node_ids(canvas_id=canvas_id, role=role)
    )
    return {
        "budget": report.budget,
        "layer_tokens": report.layer_tokens,
        "total_tokens": report.total_tokens,
        "included": [
            {
                "node_id": n.node_id,
                "handle": n.handle,
                "rank": n.rank,
                "reason": n.reason,
                "tokens": n.tokens,
                "placeholder": n.placeholder,
            }
            for n in report.included_nodes
        ],
        "excluded": excluded[:200],
        "excluded_counts": excluded_counts,
        "truncations": [
            vars(t) if not hasattr(t, "__slots__") else {s: getattr(t, s) for s in t.__slots__}
            for t in report.truncations
        ],
        "notes": report.notes,
    }
