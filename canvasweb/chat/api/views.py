"""Chat REST endpoints: conversations, messages, model request inspection, suggestions, context preview.

The streaming chat itself runs over the canvas WebSocket (docs/protocol.md, "Chat").
"""

from __future__ import annotations

import functools
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from canvasweb.canvases.api.serializers.errors import errors
from canvasweb.chat import executor, services
from canvasweb.chat.message_list import message_list_payload
from canvasweb.common.drf import JSONAPIView, json_object
from canvasweb.common.errors import InvalidOperation
from canvasweb.common.json_safety import finite_float

from . import serializers as s

CHAT = "chat"
CANVAS_ID = OpenApiParameter("canvas_id", OpenApiTypes.INT, OpenApiParameter.PATH)


def _number(body: dict, name: str) -> float:
    value = finite_float(body.get(name, 0.0))
    if value is None:
        raise InvalidOperation(f"{name} must be a finite number", field=name)
    return value


class ConversationListView(JSONAPIView):
    @extend_schema(
        operation_id="conversation_list",
        tags=[CHAT],
        parameters=[CANVAS_ID],
        summary="Your conversations on a canvas (newest first)",
        responses={200: s.ConversationSerializer(many=True), **errors(401, 404)},
    )
    def get(self, request, canvas_id: int):
        conversations = services.conversations_for(user=request.user, canvas_id=canvas_id)
        return Response([services.conversation_to_dict(c) for c in conversations])

    @extend_schema(
        operation_id="conversation_create",
        tags=[CHAT],
        parameters=[CANVAS_ID],
        summary="Start a conversation",
        request=s.ConversationCreateSerializer,
        responses={201: s.ConversationSerializer, **errors(400, 401, 404)},
    )
    def post(self, request, canvas_id: int):
        body = json_object(request.data, allowed={"title"})
        conversation = services.conversation_create(
            user=request.user, canvas_id=canvas_id, title=body.get("title", "")
        )
        return Response(services.conversation_to_dict(conversation), status=status.HTTP_201_CREATED)


class MessageListView(JSONAPIView):
    @extend_schema(
        operation_id="conversation_messages",
        tags=[CHAT],
        summary="A page of messages of one of your conversations (the newest page by default), "
        "oldest first, with each reply's agent actions and handles and each question's "
        "captured suggestions",
        parameters=[
            OpenApiParameter(
                "limit",
                OpenApiTypes.INT,
                OpenApiParameter.QUERY,
                description=f"messages per page, 1-{services.MESSAGE_PAGE_MAX} "
                f"(default {services.MESSAGE_PAGE_DEFAULT})",
            ),
            OpenApiParameter(
                "before",
                OpenApiTypes.INT,
                OpenApiParameter.QUERY,
                description="only messages with a smaller id (the X-Next-Before header of the previous page)",
            ),
        ],
        responses={200: s.MessageListItemSerializer(many=True), **errors(400, 401, 404)},
    )
    def get(self, request, conversation_id: int):
        conversation = services.conversation_for_user(user=request.user, conversation_id=conversation_id)
        messages, next_before = services.messages_page(
            conversation=conversation,
            before=_query_int(request, "before"),
            limit=_query_int(request, "limit"),
        )
        response = Response(
            message_list_payload(
                user=request.user,
                conversation=conversation,
                messages=messages,
                to_dict=services.message_to_dict,
            )
        )
        if next_before is not None:
            response["X-Next-Before"] = str(next_before)
            limit = len(messages)
            response["Link"] = f'<{request.path}?before={next_before}&limit={limit}>; rel="next"'
        return response


def _query_int(request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 15 or int(raw) < 1:
        raise InvalidOperation(f"{name} must be a positive integer", field=name)
    return int(raw)


class SuggestionListView(JSONAPIView):
    @extend_schema(
        operation_id="conversation_suggestions",
        tags=[CHAT],
        summary="Every fact suggestion of one of your conversations, oldest first (restored on reload)",
        responses={200: s.SuggestionSerializer(many=True), **errors(401, 404)},
    )
    def get(self, request, conversation_id: int):
        conversation = services.conversation_for_user(user=request.user, conversation_id=conversation_id)
        return Response(services.suggestions_for_conversation(conversation=conversation))


class ModelRequestView(JSONAPIView):
    @extend_schema(
        operation_id="model_request_detail",
        tags=[CHAT],
        summary="Inspect: exactly what the model was sent for a reply, and what came back",
        responses={200: s.ModelRequestSerializer, **errors(401, 404)},
    )
    def get(self, request, request_id: int):
        record = services.model_request_for(user=request.user, request_id=request_id)
        return Response(services.model_request_to_dict(record, user=request.user))


class SuggestionAcceptView(JSONAPIView):
    @extend_schema(
        operation_id="suggestion_accept",
        tags=[CHAT],
        summary="Put a captured fact on the canvas (through the write path, as you): a new node, a "
        "supersede of the node it corrects, and a conflicts_with link to a constraint it breaks",
        request=s.SuggestionAcceptSerializer,
        responses={200: s.SuggestionResultSerializer, **errors(400, 401, 403, 404)},
    )
    def post(self, request, suggestion_id: int):
        body = json_object(
            request.data, allowed={"x", "y", "supersede", "sensitivity", "confirm"}, nullable={"sensitivity"}
        )
        supersede, confirm = body.get("supersede", True), body.get("confirm", False)
        for name, value in (("supersede", supersede), ("confirm", confirm)):
            if not isinstance(value, bool):
                raise InvalidOperation(f"{name} must be true or false", field=name)
        sensitivity = body.get("sensitivity")
        if sensitivity is not None and not isinstance(sensitivity, str):
            raise InvalidOperation("sensitivity must be a string", field="sensitivity")
        return Response(
            services.suggestion_accept(
                user=request.user,
                suggestion_id=suggestion_id,
                x=_number(body, "x"),
                y=_number(body, "y"),
                supersede=supersede,
                sensitivity=sensitivity,
                confirm=confirm,
            )
        )


class SuggestionDismissView(JSONAPIView):
    @extend_schema(
        operation_id="suggestion_dismiss",
        tags=[CHAT],
        summary="Dismiss a captured fact",
        request=None,
        responses={200: s.SuggestionResultSerializer, **errors(400, 401, 404)},
    )
    def post(self, request, suggestion_id: int):
        json_object(request.data, allowed=())
        return Response(services.suggestion_dismiss(user=request.user, suggestion_id=suggestion_id))


class ContextPreviewView(JSONAPIView):
    @extend_schema(
        operation_id="context_preview",
        tags=[CHAT],
        parameters=[CANVAS_ID],
        summary="What the next chat turn would send from this viewport (nothing is sent)",
        request=s.PreviewInputSerializer,
        responses={200: s.PreviewSerializer, **errors(400, 401, 404)},
    )
    def post(self, request, canvas_id: int):
        body = json_object(
            # viewport null = the defaults, as in the socket's context.preview and chat.send
            request.data,
            allowed={"text", "conversation_id", "viewport"},
            nullable={"conversation_id", "viewport"},
        )
        viewport = body.get("viewport")
        if viewport is not None and not isinstance(viewport, dict):
            raise InvalidOperation("viewport must be an object", field="viewport")
        # In a compile worker (chat/executor.py): off this thread's GIL, and the worker's canvas index.
        return Response(
            executor.run(
                services.context_preview,
                user=request.user,
                canvas_id=canvas_id,
                text=body.get("text", ""),
                viewport=viewport,
                conversation_id=body.get("conversation_id"),
                key=canvas_id,
            )
        )


_context_preview_on_this_thread = ContextPreviewView.as_view()


@csrf_exempt  # DRF's session authentication checks CSRF itself, as for every API view
async def context_preview_view(request: HttpRequest, canvas_id: int) -> HttpResponse:
    """The preview waits for its compile worker. Under Daphne a sync view runs on the one thread that
    every socket's database work shares, so that wait would hold up everyone's edits: with a worker,
    the view runs on a thread of its own (with its own database connection)."""
    if executor.mode() == "inline":  # the compile runs right here: nothing to wait for
        return await sync_to_async(_rendered_preview, thread_sensitive=True)(request, canvas_id)
    call = functools.partial(executor.with_fresh_connection, _rendered_preview, request, canvas_id)
    return await sync_to_async(call, thread_sensitive=False)()


def _rendered_preview(request: HttpRequest, canvas_id: int) -> HttpResponse:
    response: Any = _context_preview_on_this_thread(request, canvas_id=canvas_id)
    if hasattr(response, "render"):
        response.render()
    return response


# drf-spectacular finds the endpoint and its schema through the view class.
context_preview_view.cls = ContextPreviewView  # type: ignore[attr-defined]
context_preview_view.initkwargs = {}  # type: ignore[attr-defined]


class LLMStatusView(JSONAPIView):
    @extend_schema(
        operation_id="llm_status",
        tags=[CHAT],
        summary="Is a model configured?",
        responses={200: s.LLMStatusSerializer, **errors(401)},
    )
    def get(self, request):
        return Response(services.llm_status())
