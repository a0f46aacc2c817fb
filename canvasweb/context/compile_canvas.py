"""The compiler's canvas block: select the nodes for this turn and render them within the block's plan."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .render import render_canvas_block
from .selection import CanvasIndex, select_nodes
from .tokens import TokenCache
from .types import MESSAGE_OVERHEAD_TOKENS, CompileReport, CompileRequest, IncludedNode

# Question matches' share of a canvas block smaller than SMALL_BLOCK_TOKENS.
SMALL_BLOCK_TOKENS = 400
QUESTION_SHARE_SMALL = 0.55


@dataclass(slots=True)
class CanvasLayer:
    text: str | None = None
    cost: int = 0
    shown_texts: list[str] = field(default_factory=list)  # contents of the nodes in the block
    # The block's cost without the records seated only for viewport proximity: what it needs
    # for anchors, linked nodes and question matches.
    relevant_cost: int = 0


def build_canvas_layer(
    *,
    request: CompileRequest,
    index: CanvasIndex,
    plan: int,
    cache: TokenCache,
    mask: Callable[[str], str],
    fingerprint: str,
    report: CompileReport,
    timings: dict[str, float],
    question_memo: dict[str, dict[int, float]] | None = None,
) -> CanvasLayer:
    """Rank only about as many nodes as the block can hold (~32 tokens per record); if they all
    fit and more were in range, widen once and retry. Fills the report's node fields."""
    emb = request.embeddings
    block_budget = plan - MESSAGE_OVERHEAD_TOKENS
    limit = max(32, block_budget // 32)
    timings.setdefault("select", 0.0)
    timings.setdefault("render", 0.0)
    retried = False
    while True:
        t = time.perf_counter()
        selection = select_nodes(
            index=index,
            viewport=request.viewport,
            role=request.role,
            question=request.question,
            config=request.selection,
            limit=limit,
            now=request.now,
            question_vector=emb.question if emb is not None else None,
            node_vectors=emb.nodes if emb is not None else None,
            question_memo=question_memo,
        )
        timings["select"] += _ms(t)
        t = time.perf_counter()
        block = render_canvas_block(
            candidates=selection.candidates,
            index=index,
            max_tokens=block_budget,
            cache=cache,
            mask=mask,
            mask_variant=fingerprint,
            max_node_tokens=request.max_node_tokens,
            question_reserve_share=question_share(request.selection.question_reserve_share, block_budget),
        )
        timings["render"] += _ms(t)
        more_in_range = selection.stats.get("viewport_limited", 0) > 0
        if (
            retried
            or not more_in_range
            or block.excluded
            or block.tokens >= 0.9 * block_budget
            or limit >= request.selection.max_candidates
        ):
            break
        # One retry, sized from the records' observed average cost.
        avg = block.tokens / max(1, len(block.included))
        limit = min(
            request.selection.max_candidates,
            limit + int((block_budget - block.tokens) / max(avg, 8.0) * 1.5) + 16,
        )
        retried = True
    report.included_nodes = block.included
    shown_ids = set(block.handles.values())
    layer = CanvasLayer(
        shown_texts=[
            c.node.content for c in selection.candidates if not c.placeholder and c.node.id in shown_ids
        ]
    )
    report.handles = block.handles
    report.truncations.extend(block.truncations)
    report.excluded_nodes = list(selection.excluded) + block.excluded
    counts = dict(selection.excluded_counts)
    counts["over_budget"] = counts.get("over_budget", 0) + len(block.excluded)
    report.excluded_counts = {k: v for k, v in sorted(counts.items()) if v}
    if block.text:
        layer.text = block.text
        layer.cost = block.tokens + MESSAGE_OVERHEAD_TOKENS
        layer.relevant_cost = layer.cost - sum(
            n.tokens for n in block.included if not _seated_for_relevance(n)
        )
    return layer


def _seated_for_relevance(node: IncludedNode) -> bool:
    return node.reason == "anchor" or node.reason.startswith("linked") or bool(node.match_score)


def question_share(base: float, block_budget: int) -> float:
    """A small canvas block holds only a few records: question relevance gets a larger share there
    than viewport proximity (QUESTION_SHARE_SMALL below SMALL_BLOCK_TOKENS, the configured share from
    twice that size, linear in between)."""
    small = QUESTION_SHARE_SMALL
    if base >= small or block_budget >= 2 * SMALL_BLOCK_TOKENS:
        return base
    if block_budget <= SMALL_BLOCK_TOKENS:
        return small
    t = (block_budget - SMALL_BLOCK_TOKENS) / SMALL_BLOCK_TOKENS
    return small + (base - small) * t


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)
