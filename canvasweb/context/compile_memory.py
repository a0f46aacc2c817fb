"""The compiler's chat memory beyond the window: recalled turns and the rolling summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .compile_history import MIN_USEFUL_TOKENS, HistoryView, PreparedMessage
from .history_recall import RecallCandidate, recall_history
from .selection import CanvasIndex
from .summary import build_summary
from .types import MESSAGE_OVERHEAD_TOKENS, CompileReport, CompileRequest


@dataclass(slots=True)
class RecallLayer:
    text: str | None = None
    cost: int = 0
    sentences: list[str] = field(default_factory=list)  # what recall quoted (the summary skips it)


def build_recall_layer(
    *,
    request: CompileRequest,
    history: HistoryView,
    window_start: int,
    plan: int,
    shown: list[str],
    report: CompileReport,
) -> RecallLayer | None:
    """Everything outside the window (archived turns included), ranked against the question; retired
    statements already rewritten. None when the layer did not run."""
    emb = request.embeddings
    offset = history.offset
    cands = [
        RecallCandidate(position=i + offset, message=history.message(i), text=history.current(i).text)
        for i in range(window_start - 1, -offset - 1, -1)
    ]
    cands.reverse()
    recalled = recall_history(
        candidates=cands,
        question=request.question,
        max_tokens=plan - MESSAGE_OVERHEAD_TOKENS,
        count=history.cache.count,
        cache=history.cache,
        question_vector=emb.question if emb is not None else None,
        vectors=emb.messages if emb is not None else None,
        already_shown=shown,
    )
    layer = RecallLayer(sentences=list(recalled.sentences))
    if recalled.text:
        layer.text = recalled.text
        layer.cost = recalled.tokens + MESSAGE_OVERHEAD_TOKENS
        report.recalled_message_ids = list(recalled.message_ids)
    return layer


def build_summary_layer(
    *,
    request: CompileRequest,
    history: HistoryView,
    index: CanvasIndex | None,
    use_canvas: bool,
    window_start: int,
    later: list[PreparedMessage],
    plan: int,
    mask: Callable[[str], str],
    already_shown: list[str],
    report: CompileReport,
) -> tuple[str | None, int]:
    """A summary of what did not fit the window, and its cost.

    A stored rolling summary (from earlier folds) is carried first; turns that left the
    window since then are added on top, as the history filters left them (retired values
    rewritten; prepared newest first, as the correction filter needs)."""
    folded = list(history.messages[:window_start])
    summary_msg: str | None = None
    if folded or request.rolling_summary:
        folded_now = (
            [history.as_said(i) for i in range(window_start - 1, -1, -1)][::-1] if history.ledger else folded
        )
        result = build_summary(
            messages=folded_now,
            previous_summary=request.rolling_summary,
            later_messages=[p.message for p in later],
            max_tokens=plan - MESSAGE_OVERHEAD_TOKENS,
            question=request.question,
            mask=mask,
            is_stale=index.is_stale_text if (use_canvas and index is not None) else None,
            is_restricted=history.restricted,
            already_shown=already_shown,
            cache=history.cache,
        )
        summary_msg = result.text or None
        report.summarized_message_count = len(folded)
        report.summary_dropped_superseded = result.dropped_superseded
    cost = history.cache.count(summary_msg) + MESSAGE_OVERHEAD_TOKENS if summary_msg else 0
    return summary_msg, cost


def worth_a_message(plan: int) -> bool:
    return plan - MESSAGE_OVERHEAD_TOKENS >= MIN_USEFUL_TOKENS
