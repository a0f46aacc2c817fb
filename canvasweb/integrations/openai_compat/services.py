"""The OpenAI-compatible endpoint's ORM side: who asks, which conversation, the chat turn, its record.

A request becomes a chat turn of the canvas through the chat's own entry
points (`chat.services.turn_prepare` / `turn_finish`): the question is stored,
facts in it become capture suggestions, the context is compiled at the user's
role (pinned anchors, question-matched and linked nodes, the rolling summary,
recent messages) under the token budget, and the model request is on record
for Inspect.

Clients of the OpenAI API are stateless: they resend the whole conversation
every time. The conversation to continue is the one named by the
`X-Canvasweb-Conversation` header, else the user's conversation on this canvas
whose stored messages are exactly the client's earlier messages, else a new one
that starts with the client's earlier messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.chat import services as chat_services
from canvasweb.chat.context_inputs import TOKEN_CACHE
from canvasweb.chat.models import (
    Conversation,
    Message,
    MessageRole,
    MessageSource,
    MessageStatus,
    ModelRequest,
)
from canvasweb.common.errors import CanvasError, InvalidOperation, NotFound
from canvasweb.context.redaction import mask_credentials
from canvasweb.context.tokens import count_tokens

from ..access import external_canvas, token_from_header, user_for_token
from .errors import OpenAIError
from .requests import ChatRequest

CHANNEL = "api"
MATCH_RECENT_CONVERSATIONS = 20


@dataclass
class ApiTurn:
    turn: chat_services.PreparedTurn
    messages: list[dict]
    role: str


def authenticate(*, authorization: str | None):
    try:
        return user_for_token(token_from_header(authorization))
    except CanvasError as exc:
        raise OpenAIError(401, f"{exc.message}", code="invalid_api_key") from None


def models_for(*, user) -> list[dict]:
    """Every canvas the user may reach from outside the page, as an OpenAI model entry."""
    return [
        {
            "id": f"canvas:{canvas.pk}",
            "object": "model",
            "created": int(canvas.created_at.timestamp()),
            "owned_by": "canvasweb",
            "canvasweb": {"name": canvas.name, "role": role},
        }
        for canvas, role, _ in canvas_selectors.canvas_list_for_user(user=user)
        if canvas.agent_external_access
    ]


def turn_open(*, user, chat: ChatRequest, conversation_header: str | None) -> ApiTurn:
    try:
        canvas, role = external_canvas(user=user, canvas_id=chat.canvas_id, channel=CHANNEL)
    except CanvasError as exc:
        raise OpenAIError.from_canvas_error(exc, param="model") from None
    try:
        with transaction.atomic():
            conversation = _conversation(
                user=user, canvas_id=canvas.pk, chat=chat, header=conversation_header
            )
            turn = chat_services.turn_prepare(
                user=user,
                canvas_id=canvas.pk,
                text=chat.question,
                viewport=None,
                conversation_id=conversation.pk,
            )
            messages = _with_client_instructions(turn.messages, chat.system)
            if messages is not turn.messages:  # the record shows exactly what the upstream gets
                ModelRequest.objects.filter(pk=turn.model_request.pk).update(messages=messages)
    except CanvasError as exc:
        raise OpenAIError.from_canvas_error(exc) from None
    return ApiTurn(turn=turn, messages=messages, role=role)


def turn_close(
    *,
    api_turn: ApiTurn,
    text: str,
    usage: dict | None,
    latency_ms: int,
    error: str = "",
    error_code: str = "",
    stopped: bool = False,
) -> None:
    chat_services.turn_finish(
        turn=api_turn.turn,
        text=text,
        usage=usage,
        latency_ms=latency_ms,
        error=error,
        error_code=error_code,
        stopped=stopped,
    )


def _conversation(*, user, canvas_id: int, chat: ChatRequest, header: str | None) -> Conversation:
    if header not in (None, ""):
        if not header.strip().isdigit() or len(header.strip()) > 18:
            raise InvalidOperation(
                "X-Canvasweb-Conversation must be a conversation id", field="X-Canvasweb-Conversation"
            )
        conversation = chat_services.conversation_for_user(user=user, conversation_id=int(header))
        if conversation.canvas_id != canvas_id:
            raise NotFound("no such conversation on this canvas", field="X-Canvasweb-Conversation")
        return conversation
    earlier = [(role, text.strip()) for role, text in chat.history]
    if earlier:
        found = _continued(user=user, canvas_id=canvas_id, earlier=earlier)
        if found is not None:
            return found
    first = earlier[0][1] if earlier else chat.question
    conversation = chat_services.conversation_create(
        user=user, canvas_id=canvas_id, title=_title(f"via API: {first}")
    )
    for role, text in earlier:  # the client's earlier turns, so the compiled history has them
        Message.objects.create(
            conversation=conversation,
            role=role,
            status=MessageStatus.COMPLETE,
            content=text,
            source=MessageSource.USER_INPUT if role == MessageRole.USER else MessageSource.ASSISTANT_REPLY,
            token_count=count_tokens(text, encoding=TOKEN_CACHE.encoding),
        )
    return conversation


def _continued(*, user, canvas_id: int, earlier: list[tuple[str, str]]) -> Conversation | None:
    """The user's recent conversation on this canvas whose messages are exactly `earlier`."""
    kept = (
        Q(messages__role__in=[MessageRole.USER, MessageRole.ASSISTANT])
        & ~Q(messages__status=MessageStatus.ERROR)
        & ~Q(messages__content="")
    )
    candidates = (
        Conversation.objects.filter(user=user, canvas_id=canvas_id)
        .annotate(kept=Count("messages", filter=kept))
        .filter(kept=len(earlier))
        .order_by("-updated_at")[:MATCH_RECENT_CONVERSATIONS]
    )
    for conversation in candidates:
        stored = [
            (m.role, m.content.strip())
            for m in conversation.messages.filter(role__in=[MessageRole.USER, MessageRole.ASSISTANT])
            .exclude(status=MessageStatus.ERROR)
            .exclude(content="")
            .order_by("id")
        ]
        if stored == earlier:
            return conversation
    return None


def _with_client_instructions(messages: list[dict], system: str) -> list[dict]:
    """The client's own system prompt goes after Canvasweb's system layers (which it cannot override)."""
    if not system.strip():
        return messages
    leading = 0
    while leading < len(messages) and messages[leading].get("role") == "system":
        leading += 1
    note = {
        "role": "system",
        "content": "Instructions from the client application:\n" + mask_credentials(system),
    }
    return [*messages[:leading], note, *messages[leading:]]


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:59] + "…"
