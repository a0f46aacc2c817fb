"""Who is writing: a person, or the agent acting for a person in a conversation."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from django.contrib.auth.models import User

Channel = Literal["rest", "websocket", "agent", "import", "system", "admin"]


@dataclass(frozen=True)
class Actor:
    user: User
    kind: Literal["user", "agent"] = "user"
    channel: Channel = "rest"
    conversation_id: int | None = None
    message_id: int | None = None
    agent_run_id: str = ""
    # Set when a person approved an agent proposal; lets a propose-mode write through.
    approved_by: User | None = None
    # Why the write happened when it is not a plain edit: revert, undo, redo, import.
    reason: str = ""
    # The tool outside the page the agent works in, e.g. "MCP (Claude Desktop)"; empty for the in-page chat.
    via: str = ""

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    def with_reason(self, reason: str) -> Actor:
        return replace(self, reason=reason)


def user_actor(user: User, *, channel: Channel = "rest", reason: str = "") -> Actor:
    return Actor(user=user, kind="user", channel=channel, reason=reason)


def agent_actor(
    user: User,
    *,
    conversation_id: int | None,
    message_id: int | None = None,
    agent_run_id: str = "",
    approved_by: User | None = None,
    via: str = "",
) -> Actor:
    return Actor(
        user=user,
        kind="agent",
        channel="agent",
        conversation_id=conversation_id,
        message_id=message_id,
        agent_run_id=agent_run_id,
        approved_by=approved_by,
        via=via,
    )
