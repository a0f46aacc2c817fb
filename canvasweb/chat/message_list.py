"""The message list as the chat panel shows it: each reply with its agent chips (the turn's tool calls)
and its node handles, each question with the facts captured from it, in their current state.

Everything a reload needs to redraw what was seen live. A constant number of queries per page
(tool calls, suggestions, the reader's role), however many messages it holds.
"""

from __future__ import annotations

from canvasweb.canvases import selectors as canvas_selectors

from .models import Conversation, FactSuggestion, Message, MessageRole
from .report_visibility import hidden_node_ids
from .suggestions import suggestion_to_dict


def message_list_payload(*, user, conversation: Conversation, messages: list[Message], to_dict) -> list[dict]:
    """`to_dict(message)` for each message, plus `agent_actions` (assistant), `suggestions` (user)
    and `handles` filtered for the reader's current role (nodes they may no longer see drop out)."""
    assistant_ids = [m.pk for m in messages if m.role == MessageRole.ASSISTANT]
    user_ids = [m.pk for m in messages if m.role == MessageRole.USER]
    actions = agent_actions_by_message(message_ids=assistant_ids)
    captured: dict[int, list[dict]] = {}
    if user_ids:
        for suggestion in FactSuggestion.objects.filter(message_id__in=user_ids).order_by("id"):
            captured.setdefault(suggestion.message_id, []).append(suggestion_to_dict(suggestion))
    hidden: set[str] | frozenset[str] = set()
    if any(m.handles for m in messages):
        role = canvas_selectors.user_role(user=user, canvas_id=conversation.canvas_id)
        hidden = hidden_node_ids(canvas_id=conversation.canvas_id, role=role)
    out = []
    for message in messages:
        item = to_dict(message)
        if message.role == MessageRole.ASSISTANT:
            item["agent_actions"] = actions.get(message.pk, [])
            item["handles"] = {h: i for h, i in (message.handles or {}).items() if str(i) not in hidden}
        elif message.role == MessageRole.USER:
            item["suggestions"] = captured.get(message.pk, [])
        out.append(item)
    return out


def agent_actions_by_message(*, message_ids: list[int]) -> dict[int, list[dict]]:
    """The agent.action frames of these assistant messages, rebuilt from the tool-call records."""
    if not message_ids:
        return {}
    from canvasweb.agent.models import AgentToolCall, ToolOutcome  # the agent app builds on chat

    out: dict[int, list[dict]] = {}
    rows = (
        AgentToolCall.objects.filter(message_id__in=message_ids)
        .order_by("id")
        .only(
            "conversation_id",
            "message_id",
            "round",
            "call_id",
            "tool",
            "outcome",
            "code",
            "reason",
            "proposal_id",
            "revision",
        )
    )
    for call in rows:
        if call.message_id is None:  # never: the query filters on message_id__in
            continue
        refused = call.outcome == ToolOutcome.REFUSED
        out.setdefault(call.message_id, []).append(
            {
                "type": "agent.action",
                "conversation_id": call.conversation_id,
                "message_id": call.message_id,
                "round": call.round,
                "call_id": call.call_id,
                "tool": call.tool,
                "outcome": call.outcome,
                # the reason was masked like the live frame's message when it was recorded
                "error": {"code": call.code, "message": call.reason, "field": None} if refused else None,
                "proposal_id": call.proposal_id,
                "revision": call.revision,
                "dismissed_suggestion_ids": [],
            }
        )
    return out
