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


def rewritten_chat(*pairs: tuple[str, str]) -> list[str]:
    """Each (role, text) message as the value ledger leaves it (retired values rewritten)."""
    from canvasweb.context.types import MessageData
    from canvasweb.context.value_ledger import build_ledger

    history = tuple(MessageData(id=f"m{i}", role=r, content=t) for i, (r, t) in enumerate(pairs))  # type: ignore[arg-type]
    ledger = build_ledger(messages=history)
    return [ledger.rewrite(i, m.content) for i, m in enumerate(history)]
