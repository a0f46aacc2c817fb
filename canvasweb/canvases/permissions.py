"""Who may do what on a canvas. Authorization lives here, never in a prompt.

A person's rights come from their role. The agent's rights are the rights of
the person it acts for, intersected with the canvas's agent policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from canvasweb.common.errors import Forbidden

from .models import AgentMode, AgentScope, AuthorKind, Role, Sensitivity

if TYPE_CHECKING:
    from .actors import Actor
    from .models import Canvas, Node

# Sensitivity level a role may see: viewer public, editor +internal, owner +secret.
SENSITIVITY_LEVEL = {Sensitivity.PUBLIC: 0, Sensitivity.INTERNAL: 1, Sensitivity.SECRET: 2}
ROLE_LEVEL = {Role.VIEWER: 0, Role.EDITOR: 1, Role.OWNER: 2}

EDIT_OPERATIONS = frozenset(
    {
        "node.create",
        "node.update",
        "node.move",
        "node.delete",
        "node.supersede",
        "node.archive",
        "edge.create",
        "edge.update",
        "edge.delete",
    }
)
ROLE_OPERATIONS: dict[str, frozenset[str]] = {
    Role.OWNER: EDIT_OPERATIONS | {"canvas.update", "canvas.delete", "member.manage", "proposal.decide"},
    Role.EDITOR: EDIT_OPERATIONS | {"proposal.decide"},
    Role.VIEWER: frozenset(),
}
AGENT_NEVER = frozenset(
    {"node.delete", "edge.delete", "canvas.update", "canvas.delete", "member.manage", "proposal.decide"}
)
AGENT_WRITABLE_TAG = "agent-writable"


def sensitivity_level(sensitivity: str) -> int:
    return SENSITIVITY_LEVEL[Sensitivity(sensitivity)]


def role_level(role: str) -> int:
    return ROLE_LEVEL[Role(role)]


def strictest_markable(role: str, wanted: str) -> str:
    """`wanted`, lowered to the strictest sensitivity `role` may set (an editor's "secret" is internal)."""
    level = min(sensitivity_level(wanted), role_level(role))
    return next(str(s) for s, lvl in SENSITIVITY_LEVEL.items() if lvl == level)


def can_see(role: str, sensitivity: str) -> bool:
    return sensitivity_level(sensitivity) <= role_level(role)


def role_allows(role: str | None, operation: str) -> bool:
    return role is not None and operation in ROLE_OPERATIONS[Role(role)]


def require_role(*, actor: Actor, role: str | None, operation: str) -> None:
    if not role_allows(role, operation):
        raise Forbidden(f"{_article(role or 'non-member')} may not perform {operation}")
    if actor.is_agent and operation in AGENT_NEVER:
        raise Forbidden(f"the agent may not perform {operation}")


def require_sensitivity_allowed(*, role: str, sensitivity: str, field: str) -> None:
    """You cannot label a node more sensitive than you yourself may see."""
    if not can_see(role, sensitivity):
        raise Forbidden(f"{_article(role)} may not mark nodes {sensitivity}", field=field)


def require_agent_may_write(*, actor: Actor, canvas: Canvas) -> None:
    """Mode gate: off refuses everything; propose needs a person's approval."""
    if not actor.is_agent:
        return
    if canvas.agent_mode == AgentMode.OFF:
        raise Forbidden("the agent is switched off on this canvas")
    if canvas.agent_mode == AgentMode.PROPOSE and actor.approved_by is None:
        raise Forbidden("on this canvas the agent may only propose changes for a person to approve")


def require_agent_may_touch(*, actor: Actor, canvas: Canvas, node: Node, operation: str) -> None:
    """Policy checks on an existing node the agent wants to change."""
    if not actor.is_agent:
        return
    if canvas.agent_protect_pinned and node.pinned:
        raise Forbidden("pinned anchors are protected from the agent on this canvas")
    if operation == "node.archive" and not canvas.agent_may_archive:
        raise Forbidden("the agent may not archive nodes on this canvas")
    if canvas.agent_scope == AgentScope.TAGGED and not (
        node.author_kind == AuthorKind.AGENT or AGENT_WRITABLE_TAG in (node.tags or [])
    ):
        raise Forbidden(
            f"the agent may only change nodes tagged {AGENT_WRITABLE_TAG} or written by the agent"
        )


def require_agent_may_set(*, actor: Actor, canvas: Canvas, fields: dict[str, Any]) -> None:
    if actor.is_agent and canvas.agent_protect_pinned and fields.get("pinned") is True:
        raise Forbidden("the agent may not create or set pinned anchors on this canvas", field="pinned")


def _article(role: str) -> str:
    return f"an {role}" if role[0] in "aeiou" else f"a {role}"
