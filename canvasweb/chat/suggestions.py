"""Fact suggestions: what a user message states or corrects, offered as one-click canvas changes.

Capture runs on every user message (deterministic, canvasweb.context.capture;
the model path in chat/extraction.py may replace the result later). A
suggestion is a clean statement ("JWT expiry: 30 minutes") and one of:
  * create: a new fact;
  * supersede: it retires a live node that states another value of the same
    subject (old → new shown; a pinned or more sensitive node is flagged and
    accepting must confirm);
  * conflicts_with: it breaks a canvas constraint (a date range, a cap, a
    forbidden weekday); accepting adds the fact linked to the constraint.
Accepting goes through canvases.services like every other write.

This module reads and decides suggestions; capturing them is chat/suggestion_capture.py.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.db import transaction

from canvasweb.canvases import selectors as canvas_selectors
from canvasweb.canvases import services as canvas_services
from canvasweb.canvases.actors import user_actor
from canvasweb.canvases.models import Sensitivity
from canvasweb.canvases.occupied import place_new_node
from canvasweb.canvases.operations import COORDINATE_LIMIT
from canvasweb.canvases.permissions import can_see
from canvasweb.common.errors import InvalidOperation, NotFound
from canvasweb.context.capture import (
    more_sensitive,
)
from canvasweb.context.types import NodeData

from .context_inputs import canvas_inputs
from .models import Conversation, FactSuggestion, SuggestionStatus

WARNING_TEXT = {
    "pinned": "retires a pinned node",
    "more_sensitive": "retires a node more restricted than this fact",
}


# --- reading -------------------------------------------------------------------------------------------------


def suggestion_to_dict(suggestion: FactSuggestion) -> dict:
    return {
        "id": suggestion.pk,
        "conversation_id": suggestion.conversation_id,
        "message_id": suggestion.message_id,
        "content": suggestion.content,
        "kind": suggestion.kind,
        "subject": suggestion.subject,
        "label": suggestion.label,
        "value": suggestion.value,
        "previous_value": suggestion.previous_value or None,
        "reason": suggestion.reason,
        "sensitivity": suggestion.sensitivity,
        "status": suggestion.status,
        "action": suggestion.action,
        "source": suggestion.source,
        "supersede_node_id": str(suggestion.supersede_node_id) if suggestion.supersede_node_id else None,
        "supersede_content": suggestion.supersede_content or None,
        "conflict_node_id": str(suggestion.conflict_node_id) if suggestion.conflict_node_id else None,
        "conflict_content": suggestion.conflict_content or None,
        "note": suggestion.note or None,
        "warnings": list(suggestion.warnings or []),
        "created_node_id": str(suggestion.created_node_id) if suggestion.created_node_id else None,
    }


def suggestions_for_conversation(*, conversation: Conversation) -> list[dict]:
    """Every suggestion of a conversation, oldest first (the chat restores them on reload)."""
    return [
        suggestion_to_dict(s) for s in FactSuggestion.objects.filter(conversation=conversation).order_by("id")
    ]


def _suggestion_for(*, user, suggestion_id: Any) -> FactSuggestion:
    if isinstance(suggestion_id, bool) or not isinstance(suggestion_id, int):
        raise InvalidOperation("suggestion_id must be an integer", field="suggestion_id")
    suggestion = (
        FactSuggestion.objects.select_related("conversation")
        .filter(pk=suggestion_id, conversation__user=user)
        .first()
    )
    if (
        suggestion is None
        or canvas_selectors.user_role(user=user, canvas_id=suggestion.conversation.canvas_id) is None
    ):
        raise NotFound("no such suggestion", field="suggestion_id")
    return suggestion


# --- deciding ------------------------------------------------------------------------------------------------


def suggestion_accept(
    *,
    user,
    suggestion_id: int,
    x: float = 0.0,
    y: float = 0.0,
    supersede: bool = True,
    sensitivity: str | None = None,
    confirm: bool = False,
) -> dict:
    """One click: the fact becomes a node (superseding the old one, linked to a constraint) through the write path.

    `sensitivity` overrides the suggested one; the write path refuses one the user may not set.
    Retiring a pinned node, or one more restricted than the new fact, needs `confirm`.
    """
    suggestion = _suggestion_for(user=user, suggestion_id=suggestion_id)
    if suggestion.status != SuggestionStatus.PENDING:
        raise InvalidOperation(f"this suggestion was already {suggestion.status}", field="suggestion_id")
    if sensitivity is not None and sensitivity not in Sensitivity.values:
        raise InvalidOperation(
            f"sensitivity must be one of {', '.join(Sensitivity.values)}", field="sensitivity"
        )
    final_sensitivity = sensitivity or suggestion.sensitivity
    superseding = bool(supersede and suggestion.supersede_node_id)
    old = _live_node(suggestion) if superseding else None
    if superseding:
        warnings = _accept_warnings(old=old, suggestion=suggestion, sensitivity=final_sensitivity)
        if warnings and not confirm:
            raise InvalidOperation(
                "this "
                + " and ".join(WARNING_TEXT[w] for w in warnings)
                + "; accept again with confirm: true to retire it",
                field="confirm",
            )
    node_id = uuid.uuid4()
    x, y = place_new_node(
        canvas_id=suggestion.conversation.canvas_id,
        want=(x, y),
        content=suggestion.content,
        limit=COORDINATE_LIMIT,
    )  # the wanted spot, or the nearest free one
    body = {
        "id": str(node_id),
        "content": suggestion.content,
        "kind": suggestion.kind,
        "x": x,
        "y": y,
        "tags": ["captured"],
        "sensitivity": final_sensitivity,
    }
    op: dict[str, Any] = {"type": "node.create", "node": body}
    if old is not None:  # the new value takes the old node's place: its kind, weight, pin, tags and links
        body.update(
            kind=old.kind,
            weight=old.weight,
            pinned=old.pinned,
            tags=list(dict.fromkeys([*old.tags, "captured"]))[:20],
        )
        op = {"type": "node.supersede", "id": old.id, "node": body}
        takeover = _take_over_links(
            user=user, canvas_id=suggestion.conversation.canvas_id, old=old, new_id=node_id
        )
        if old.pinned:  # the retired value is no anchor any more; its pin moved to the new node
            takeover.append({"type": "node.update", "id": old.id, "fields": {"pinned": False}})
        if takeover:
            op = {"type": "batch", "ops": [op, *takeover]}
    actor = user_actor(user, channel="rest")
    canvas_id = suggestion.conversation.canvas_id
    with transaction.atomic():
        # Check-then-write as one step: of two concurrent accepts, the second waits on this row lock and
        # then sees the status the first one set.
        locked = (
            FactSuggestion.objects.select_for_update()
            .filter(pk=suggestion.pk)
            .values_list("status", flat=True)
        )
        status_now = locked.first()
        if status_now != SuggestionStatus.PENDING:
            raise InvalidOperation(f"this suggestion was already {status_now}", field="suggestion_id")
        result = canvas_services.apply_operation(
            actor=actor, canvas_id=canvas_id, op=op, client_op_id=f"suggestion-{suggestion.pk}"
        )
        if suggestion.conflict_node_id:
            result = canvas_services.apply_operation(
                actor=actor,
                canvas_id=canvas_id,
                client_op_id=f"suggestion-{suggestion.pk}-conflict",
                op={
                    "type": "edge.create",
                    "edge": {
                        "source": str(node_id),
                        "target": str(suggestion.conflict_node_id),
                        "relation": "conflicts_with",
                    },
                },
            )
        FactSuggestion.objects.filter(pk=suggestion.pk).update(
            status=SuggestionStatus.ACCEPTED, created_node_id=node_id
        )
    suggestion.refresh_from_db()
    return {"suggestion": suggestion_to_dict(suggestion), "revision": result.revision}


def _take_over_links(*, user, canvas_id: int, old: NodeData, new_id: uuid.UUID) -> list[dict[str, Any]]:
    """edge.create ops giving the new node the old node's links (to live nodes the user may see); the
    old node keeps its own, so its history still reads as it was."""
    role = canvas_selectors.user_role(user=user, canvas_id=canvas_id)
    nodes, edges, _ = canvas_inputs(canvas_id=canvas_id)
    live = {
        n.id
        for n in nodes
        if role and can_see(role, n.sensitivity) and not n.superseded_by and not n.archived
    }
    ops: list[dict[str, Any]] = []
    for edge in edges:
        if edge.relation == "supersedes" or old.id not in (edge.source, edge.target):
            continue
        other = edge.target if edge.source == old.id else edge.source
        if other not in live:
            continue
        source, target = (str(new_id), other) if edge.source == old.id else (other, str(new_id))
        body: dict[str, Any] = {"source": source, "target": target, "relation": edge.relation}
        if edge.label:
            body["label"] = edge.label
        ops.append({"type": "edge.create", "edge": body})
    return ops[:400]  # a batch holds 500 ops


def _live_node(suggestion: FactSuggestion) -> NodeData | None:
    nodes, _, _ = canvas_inputs(canvas_id=suggestion.conversation.canvas_id)
    return next((n for n in nodes if n.id == str(suggestion.supersede_node_id)), None)


def _accept_warnings(*, old: NodeData | None, suggestion: FactSuggestion, sensitivity: str) -> list[str]:
    """What retiring the node costs, as of now (the node may have been pinned since the suggestion)."""
    if old is None:
        return list(suggestion.warnings or [])
    return [
        w
        for w, on in (
            ("pinned", old.pinned),
            ("more_sensitive", more_sensitive(old.sensitivity, sensitivity)),
        )
        if on
    ]


def suggestion_dismiss(*, user, suggestion_id: int) -> dict:
    suggestion = _suggestion_for(user=user, suggestion_id=suggestion_id)
    if suggestion.status == SuggestionStatus.PENDING:
        FactSuggestion.objects.filter(pk=suggestion.pk).update(status=SuggestionStatus.DISMISSED)
        suggestion.refresh_from_db()
    return {"suggestion": suggestion_to_dict(suggestion)}


def dismiss_duplicates_of_agent_op(*, user_message_id: int | None, op: dict) -> list[int]:
    """The agent proposed (or made) a change a pending suggestion of the same message offers: only one shows.

    Same change = the same node superseded, or the same value in a new node; the suggestion is
    dismissed (the proposal stays, with its review flow). Returns the dismissed ids.
    """
    if user_message_id is None or not isinstance(op, dict):
        return []
    raw_node = op.get("node")
    node = raw_node if isinstance(raw_node, dict) else {}
    target = str(op.get("id")) if op.get("type") == "node.supersede" and op.get("id") else None
    if op.get("type") not in ("node.create", "node.supersede"):
        return []
    content = str(node.get("content") or "")
    dismissed = []
    for s in FactSuggestion.objects.filter(message_id=user_message_id, status=SuggestionStatus.PENDING):
        same_target = (
            target is not None and s.supersede_node_id is not None and str(s.supersede_node_id) == target
        )
        same_fact = bool(content) and (
            _norm(s.content) == _norm(content)
            or (
                bool(s.value)
                and _norm(s.value) in _norm(content)
                and (target is None) == (s.supersede_node_id is None)
            )
        )
        if same_target or same_fact:
            FactSuggestion.objects.filter(pk=s.pk).update(
                status=SuggestionStatus.DISMISSED, reason=(s.reason + " · also proposed by the agent")[:200]
            )
            dismissed.append(s.pk)
    return dismissed


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def visible_nodes(*, canvas_id: int, role: str) -> list[NodeData]:
    nodes, _, _ = canvas_inputs(canvas_id=canvas_id)
    return [n for n in nodes if can_see(role, n.sensitivity) and not n.superseded_by and not n.archived]
