"""Conversations and their messages: create, look up for their owner, page, and as API dicts.

Reads and writes of the chat's own rows only; a conversation is visible to its user while they are
still a member of its canvas.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.common.errors import InvalidOperation, NotFound

from .models import Conversation, Message, MessageRole, ModelRequest


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
    if (
        conversation is None
        or canvas_selectors.user_role(user=user, canvas_id=conversation.canvas_id) is None
    ):
        raise NotFound("no such conversation", field="conversation_id")
    return conversation


def conversations_for(*, user, canvas_id: int) -> list[Conversation]:
    canvas_selectors.canvas_for_member(user=user, canvas_id=canvas_id)
    return list(Conversation.objects.filter(user=user, canvas_id=canvas_id).order_by("-updated_at"))


MESSAGE_PAGE_DEFAULT = 100


MESSAGE_PAGE_MAX = 500


def messages_page(
    *, conversation: Conversation, before: int | None = None, limit: int | None = None
) -> tuple[list[Message], int | None]:
    """The newest `limit` messages with an id below `before`, oldest first, and the `before` of the
    next (older) page or None. Two queries whatever the page holds: messages, then their model
    request ids (prefetched, so message_to_dict asks nothing per assistant message)."""
    limit = MESSAGE_PAGE_DEFAULT if limit is None else limit
    if not 1 <= limit <= MESSAGE_PAGE_MAX:
        raise InvalidOperation(f"limit must be between 1 and {MESSAGE_PAGE_MAX}", field="limit")
    rows = Message.objects.filter(conversation=conversation)
    if before is not None:
        rows = rows.filter(id__lt=before)
    rows = rows.order_by("-id").prefetch_related(
        Prefetch("model_requests", queryset=ModelRequest.objects.order_by("id").only("id", "message_id"))
    )
    page = list(rows[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    page.reverse()
    return page, (page[0].pk if more and page else None)


def message_to_dict(message: Message) -> dict:
    # The first request of a turn holds the compiled context; agent rounds follow it.
    if message.role != MessageRole.ASSISTANT or not message.pk:
        request_ids = []
    elif "model_requests" in getattr(message, "_prefetched_objects_cache", {}):
        request_ids = [r.pk for r in message.model_requests.all()]  # prefetched, in id order
    else:
        request_ids = list(message.model_requests.order_by("id").values_list("id", flat=True))
    request_id = request_ids[0] if request_ids else None
    return {
        "id": message.pk,
        "conversation_id": message.conversation_id,
        "role": message.role,
        "source": message.source,
        "content": message.content,
        "status": message.status,
        "error": message.error or None,
        "error_code": message.error_code or None,
        "token_count": message.token_count,
        "model_request_id": request_id,
        "model_request_ids": request_ids,
        "created_at": message.created_at.isoformat().replace("+00:00", "Z"),
        **({"handles": dict(message.handles or {})} if message.role == MessageRole.ASSISTANT else {}),
    }


def conversation_to_dict(conversation: Conversation) -> dict:
    return {
        "id": conversation.pk,
        "canvas_id": conversation.canvas_id,
        "title": conversation.title,
        "summary": conversation.summary,
        "created_at": conversation.created_at.isoformat().replace("+00:00", "Z"),
        "updated_at": conversation.updated_at.isoformat().replace("+00:00", "Z"),
    }
