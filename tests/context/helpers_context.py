"""Small builders shared by the context tests."""

from __future__ import annotations

from canvasweb.context.tokens import count_tokens
from canvasweb.context.types import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS, NodeData


def node(node_id: str, content: str = "", **kw) -> NodeData:
    return NodeData(id=node_id, content=content or f"note {node_id}", **kw)


def prompt_tokens(messages: list[dict]) -> int:
    """Independent count of what the compiled request costs."""
    return sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages) + REPLY_PRIMING_TOKENS


def all_text(messages: list[dict]) -> str:
    return "\n".join(m["content"] for m in messages)
