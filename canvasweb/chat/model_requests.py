"""The record of what was sent to the model: look one up for its asker, as an API dict; LLM status."""

from __future__ import annotations

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.common.errors import NotFound

from .llm import ModelConfig
from .models import ModelRequest
from .report_visibility import hidden_node_ids, visible_report_dict


def model_request_for(*, user, request_id: int) -> ModelRequest:
    """The asker's own request, and only while they are still a member of its canvas (staff: any)."""
    request = ModelRequest.objects.filter(pk=request_id).select_related("conversation").first()
    if request is None or (request.conversation.user_id != user.pk and not user.is_staff):
        raise NotFound("no such model request", field="request_id")
    if not user.is_staff and canvas_selectors.user_role(user=user, canvas_id=request.canvas_id) is None:
        raise NotFound("no such model request", field="request_id")
    return request


def model_request_to_dict(request: ModelRequest, *, user=None) -> dict:
    """`report` is filtered for the asker's current role (staff who are not members see it whole)."""
    report = request.report
    if user is not None:
        role = canvas_selectors.user_role(user=user, canvas_id=request.canvas_id) or (
            "owner" if user.is_staff else None
        )
        report = visible_report_dict(report, hidden=hidden_node_ids(canvas_id=request.canvas_id, role=role))
    return {
        "id": request.pk,
        "conversation_id": request.conversation_id,
        "message_id": request.message_id,
        "purpose": request.purpose,
        "model": request.model,
        "base_url": request.base_url,
        "strategy": request.strategy,
        "messages": request.messages,
        "tools": request.tools,
        "layer_tokens": request.layer_tokens,
        "budget": request.budget,
        "included_node_ids": request.included_node_ids,
        "report": report,
        "response_text": request.response_text,
        "tool_calls": request.tool_calls,
        "usage": request.usage,
        "latency_ms": request.latency_ms,
        "error": request.error or None,
        "created_at": request.created_at.isoformat().replace("+00:00", "Z"),
    }


def llm_status() -> dict:
    config = ModelConfig.from_settings()
    return {
        "configured": config.configured,
        "model": config.model if config.configured else None,
        "context_window": config.context_window,
        "max_output_tokens": config.max_output_tokens,
        "help": None
        if config.configured
        else "Set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) and restart; see README 'Connecting a model'.",
    }
