"""Compile one chat turn's prompt: pure function from plain data to messages + report.

Layers, in prompt order:
  1. system rules           never trimmed (BudgetConfigError if they cannot fit);
  2. canvas block           `context_role` message, delimited as data (strategy "canvas");
  3. rolling summary        `context_role` message (strategies "summary", "canvas");
  4. recent messages        the last `recent_floor_messages` always kept (cut to fit
                            if they alone overflow), older ones added newest-first
                            while they fit, and the window stays contiguous;
  5. the question           always last, user role (cut only if it alone overflows).

Budget arithmetic (all in tokens, message overhead included):
  * each message costs its content + MESSAGE_OVERHEAD_TOKENS (4: role and
    delimiters), and the reply priming costs REPLY_PRIMING_TOKENS (3) once;
    so the sum we report is never below what the API will bill;
  * system, question and the floor are paid first; the planned canvas /
    summary / recent amounts are then scaled down proportionally if the rest
    does not hold them; anything left over goes to recent messages;
  * unused budget flows forward in computation order: question -> recent,
    canvas -> half to recent and half to the summary, recent -> summary (the
    summary covers exactly the turns that did not fit the window, so it is
    computed last);
  * strategies without a layer hand its plan to recent messages.
  The final messages are measured exactly once more; the total never exceeds
  budget.total.

Everything that leaves passes through mask_credentials and through a masker
for the values of secret nodes (a secret pasted into chat stays out of the
history and the summary). Tool-role messages are cut to
`tool_message_max_tokens` and sent as labelled user-role text, because
MessageData carries no tool-call ids for the OpenAI "tool" role.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from .history_recall import RecallCandidate, is_low_information, past_match_share, recall_history
from .redaction import build_secret_masker, mask_credentials, secret_fingerprint, secret_values
from .render import render_canvas_block
from .retire import retire_outdated
from .selection import CanvasIndex, select_nodes
from .sentences import SentenceInfo
from .summary import build_summary
from .tokens import TokenCache, truncate_to_tokens
from .types import (
    MESSAGE_OVERHEAD_TOKENS,
    REPLY_PRIMING_TOKENS,
    Budget,
    BudgetConfigError,
    CompiledContext,
    CompileReport,
    CompileRequest,
    MessageData,
    Truncation,
)
from .value_ledger import build_ledger

TOOL_PREFIX = "[tool output]\n"
MIN_USEFUL_TOKENS = 12  # a layer smaller than this is not worth a message
# When the canvas block leaves at least this share of its plan unused, the window
# and the summary hand CHAT_MEMORY_SHIFT x (unused share) of their plans to recall.
IDLE_CANVAS_SHARE = 0.5
# Question matches' share of a canvas block smaller than SMALL_BLOCK_TOKENS.
SMALL_BLOCK_TOKENS = 400
QUESTION_SHARE_SMALL = 0.55
CHAT_MEMORY_SHIFT = 0.8
# The summary's quarter of the unused canvas share moves to recall by the same factor.
IDLE_SHARE_FOLLOWS = True
_REDACTED_RE = re.compile(r"\[REDACTED:([a-z_]+)\]")


class _Prepared:
    __slots__ = ("message", "text", "tokens")

    def __init__(self, message: MessageData, text: str, tokens: int) -> None:
        self.message = message
        self.text = text
        self.tokens = tokens

    @property
    def cost(self) -> int:
        return self.tokens + MESSAGE_OVERHEAD_TOKENS

    @property
    def role(self) -> str:
        return "user" if self.message.role == "tool" else self.message.role


def compile_context(*, request: CompileRequest) -> CompiledContext:
    """Build the chat messages for one turn within the token budget."""
    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    cache: TokenCache = (
        request.token_cache if request.token_cache is not None else TokenCache(encoding=request.encoding)
    )
    count = cache.count
    strategy = request.strategy

    # Index (canvas strategy) or just the secret values (other strategies).
    index: CanvasIndex | None = request.index
    if index is None and (strategy == "canvas" or request.nodes):
        t = time.perf_counter()
        index = CanvasIndex.build(
            nodes=request.nodes, edges=request.edges, min_weight=request.selection.min_weight
        )
        timings["index_build"] = _ms(t)
    if index is not None:
        secret_mask, fingerprint = index.secret_masker, index.secret_fingerprint
    else:
        values = secret_values(n.content for n in request.nodes if n.sensitivity == "secret")
        secret_mask, fingerprint = build_secret_masker(values), secret_fingerprint(values)

    def mask(text: str) -> str:
        return secret_mask(mask_credentials(text))

    # 1. system layer: never trimmed.
    system_text = mask(request.system_prompt)
    system_cost = count(system_text) + MESSAGE_OVERHEAD_TOKENS
    fixed = system_cost + REPLY_PRIMING_TOKENS
    budget = _resolve_budget(request.budget, fixed)
    total = budget.total
    report = CompileReport(
        strategy=strategy,
        budget={
            "total": budget.total,
            "system": budget.system,
            "canvas": budget.canvas,
            "summary": budget.summary,
            "recent": budget.recent,
            "question": budget.question,
            "recent_floor_messages": budget.recent_floor_messages,
            "recall": budget.recall,
        },
    )

    # 5. the question (paid before the optional layers, placed last).
    avail = total - fixed
    if avail < MESSAGE_OVERHEAD_TOKENS + 1:
        raise BudgetConfigError(
            f"budget {total} leaves no room for the question after the system layer ({fixed})"
        )
    question_text = mask(request.question)
    q_tokens = count(question_text)
    if q_tokens + MESSAGE_OVERHEAD_TOKENS > avail:
        question_text = truncate_to_tokens(
            question_text, max_tokens=avail - MESSAGE_OVERHEAD_TOKENS, encoding=cache.encoding
        )
        report.truncations.append(
            Truncation(
                layer="question",
                item_id="question",
                original_tokens=q_tokens,
                kept_tokens=count(question_text),
            )
        )
        q_tokens = count(question_text)
    question_cost = q_tokens + MESSAGE_OVERHEAD_TOKENS
    pool = avail - question_cost

    # History is prepared (masked, tool output cut, counted) lazily, newest
    # first, through the cache: turns that end up folded are never tokenized.
    messages_in = request.messages
    n_hist = len(messages_in)
    # Turns folded into the stored rolling summary precede `messages`; only the
    # recall layer reads them. `every` indexes both: archived first.
    archived = request.archived_messages
    offset = len(archived)
    every = archived + messages_in

    # History filters, applied to messages newest first:
    #  * all strategies: sentences mostly about nodes this role may not see
    #    are withheld (a viewer's chat may quote internal canvas content);
    #  * canvas strategy: statements retired by a later correction in the
    #    chat, or restating a superseded/archived node, are blanked out
    #    (version drift). Baselines keep stale history verbatim.
    later_corrections: list[SentenceInfo] = []
    retired: set[str] = set()
    retire_stale = index.is_stale_text if (strategy == "canvas" and index is not None) else None
    restricted = None
    if index is not None and request.role != "owner":

        def restricted(terms: frozenset[str]) -> bool:
            return index.is_restricted_text(terms, role=request.role)

    # Values retired by subject (value_ledger.py): a later correction in the chat, a supersede
    # or an archive retires a value in every message that states it about that subject.
    ledger = (
        build_ledger(messages=every, nodes=index.nodes, cache=cache)
        if strategy == "canvas" and index is not None and request.retire_values
        else None
    )
    prepared: dict[int, _Prepared] = {}

    def current(i: int) -> _Prepared:
        """History message i (of `messages`; negative = archived), prepared once. Call newest first:
        each message's corrections retire statements in the older ones."""
        got = prepared.get(i)
        if got is None:
            got = prepared[i] = _current(every[i + offset], i + offset)
        return got

    def _current(m: MessageData, position: int) -> _Prepared:
        p = _prepare_message(
            m, cache=cache, mask=mask, variant=fingerprint, tool_max=request.tool_message_max_tokens
        )
        if strategy != "canvas" and restricted is None:
            return p
        # Sentence filters read the message as said; the value ledger then rewrites what is left.
        raw = retire_outdated(
            message=p.message,
            later_corrections=later_corrections if strategy == "canvas" else None,
            is_stale=retire_stale,
            is_restricted=restricted,
            cache=cache,
            position=position,
        )
        if ledger and position in ledger.by_position:
            raw = ledger.rewrite(position, m.content if raw is None else raw, original=m.content)
        if raw is None or raw == m.content:
            return p
        retired.add(p.message.id)
        return _prepare_message(
            p.message,
            cache=cache,
            mask=mask,
            variant=fingerprint,
            tool_max=request.tool_message_max_tokens,
            content=raw,
        )

    # 4a. the floor: the last N messages, cut to fit if they alone overflow.
    floor_n = min(budget.recent_floor_messages, n_hist)
    if strategy == "full":
        floor_n = min(max(floor_n, 1), n_hist)
    floor: list[_Prepared] = []
    for i in range(n_hist - 1, n_hist - floor_n - 1, -1):
        p = current(i)
        if p.cost <= pool:
            floor.append(p)
            pool -= p.cost
            continue
        room = pool - MESSAGE_OVERHEAD_TOKENS
        if room >= MIN_USEFUL_TOKENS:
            cut = truncate_to_tokens(p.text, max_tokens=room, encoding=cache.encoding)
            cut_p = _Prepared(p.message, cut, count(cut))
            report.truncations.append(
                Truncation(
                    layer="recent", item_id=p.message.id, original_tokens=p.tokens, kept_tokens=cut_p.tokens
                )
            )
            floor.append(cut_p)
            pool -= cut_p.cost
        break  # the floor stays contiguous: older floor messages cannot jump a gap
    floor.reverse()
    n_older = n_hist - floor_n  # messages before the floor: window or summary candidates
    if len(floor) < floor_n:  # some floor messages did not fit at all
        report.dropped_message_ids.extend(m.id for m in messages_in[: n_hist - len(floor)])
        n_older = 0
    floor_cost = sum(p.cost for p in floor)

    # Plan the optional layers inside what is left.
    use_canvas = strategy == "canvas"
    use_summary = strategy in ("summary", "canvas")
    use_recall = use_canvas and request.recall_history
    canvas_plan = budget.canvas if use_canvas else 0
    summary_plan = budget.summary if use_summary else 0
    recall_plan = budget.recall if use_recall else 0
    recent_plan = max(0, budget.recent - floor_cost) + max(0, budget.question - question_cost)
    if not use_canvas:
        recent_plan += budget.canvas
    if not use_summary:
        recent_plan += budget.summary
    if not use_recall:
        recent_plan += budget.recall
    if strategy == "full":
        canvas_plan, summary_plan, recall_plan, recent_plan = 0, 0, 0, pool
    planned = canvas_plan + summary_plan + recent_plan + recall_plan
    if planned > pool:
        scale = pool / planned if planned else 0.0
        canvas_plan = int(canvas_plan * scale)
        summary_plan = int(summary_plan * scale)
        recall_plan = int(recall_plan * scale)
        recent_plan = pool - canvas_plan - summary_plan - recall_plan
    else:
        recent_plan += pool - planned

    emb = request.embeddings
    # 2. canvas block.
    canvas_msg: str | None = None
    canvas_cost = 0
    shown_texts: list[str] = []
    if use_canvas and index is not None and canvas_plan - MESSAGE_OVERHEAD_TOKENS >= MIN_USEFUL_TOKENS:
        t = time.perf_counter()
        block_budget = canvas_plan - MESSAGE_OVERHEAD_TOKENS
        # Rank only about as many nodes as the block can hold (~32 tokens per
        # record); if they all fit and more were in range, widen and retry.
        limit = max(32, block_budget // 32)
        timings["select"] = timings["render"] = 0.0
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
                question_reserve_share=_question_share(
                    request.selection.question_reserve_share, block_budget
                ),
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
        shown_texts = [
            c.node.content for c in selection.candidates if not c.placeholder and c.node.id in shown_ids
        ]
        report.handles = block.handles
        report.truncations.extend(block.truncations)
        report.excluded_nodes = list(selection.excluded) + block.excluded
        counts = dict(selection.excluded_counts)
        counts["over_budget"] = counts.get("over_budget", 0) + len(block.excluded)
        report.excluded_counts = {k: v for k, v in sorted(counts.items()) if v}
        if block.text:
            canvas_msg = block.text
            canvas_cost = block.tokens + MESSAGE_OVERHEAD_TOKENS
    elif use_canvas:
        report.notes.append("canvas layer skipped: no room")
    # Unused canvas budget: half to the summary (denser than raw turns), half
    # to recent messages; with the recall layer on, half goes to recall and a
    # quarter each to the summary and the window. Recall and summary shares
    # are added after the window is set.
    canvas_left = canvas_plan - canvas_cost
    to_recall = canvas_left // 2 if use_recall else 0
    to_summary = (canvas_left - to_recall) // 2 if use_summary else 0
    recent_plan += canvas_left - to_summary - to_recall
    # Adaptive shares: a canvas that needs little of its share means this
    # conversation keeps its memory in the chat, not on the canvas; the window
    # and the summary then give way to recall in proportion (the floor stays).
    # How much they give is scaled by the share of the question's words that
    # the older turns contain (a question about nothing said earlier keeps its window).
    if use_recall and n_older > 0 and canvas_plan > 0 and canvas_left >= IDLE_CANVAS_SHARE * canvas_plan:
        past = past_match_share(question=request.question, messages=every[: offset + n_older], cache=cache)
        give = CHAT_MEMORY_SHIFT * (canvas_left / canvas_plan) * min(1.0, 2.0 * past)
        if give > 0:
            moved_recent, moved_summary = int(recent_plan * give), int(summary_plan * give)
            recent_plan -= moved_recent
            summary_plan -= moved_summary
            to_recall += moved_recent + moved_summary
            # The summary's part of the idle canvas share follows the same way.
            moved_idle = int(to_summary * give) if IDLE_SHARE_FOLLOWS else 0
            to_summary -= moved_idle
            to_recall += moved_idle

    # 4b. recent window: newest first, contiguous; low-information turns
    # ("Okay.", "好的") are left out instead of spending the budget.
    window: list[_Prepared] = []
    left = recent_plan
    window_start = n_older
    skipped_low_info: list[str] = []
    for i in range(n_older - 1, -1, -1):
        p = current(i)
        if use_canvas and is_low_information(p.message.content):
            skipped_low_info.append(p.message.id)
            window_start = i
            continue
        if p.cost > left:
            break
        window.append(p)
        left -= p.cost
        window_start = i
    window.reverse()
    folded = list(messages_in[:window_start])
    recent_cost = sum(p.cost for p in window) + floor_cost
    recall_plan += to_recall
    if use_recall:
        recall_plan += left // 2
        left -= left // 2
    summary_plan += left + to_summary  # recent leftover flows to the summary

    # 3b. recalled turns: everything outside the window (archived included),
    # ranked against the question; retired statements already rewritten.
    recall_msg: str | None = None
    recall_cost = 0
    recalled = None
    if use_recall and recall_plan - MESSAGE_OVERHEAD_TOKENS >= MIN_USEFUL_TOKENS and (folded or archived):
        t = time.perf_counter()
        cands = [
            RecallCandidate(position=i + offset, message=every[i + offset], text=current(i).text)
            for i in range(window_start - 1, -offset - 1, -1)
        ]
        cands.reverse()
        recalled = recall_history(
            candidates=cands,
            question=request.question,
            max_tokens=recall_plan - MESSAGE_OVERHEAD_TOKENS,
            count=count,
            cache=cache,
            question_vector=emb.question if emb is not None else None,
            vectors=emb.messages if emb is not None else None,
            already_shown=[p.text for p in window + floor] + shown_texts,
        )
        if recalled.text:
            recall_msg = recalled.text
            recall_cost = recalled.tokens + MESSAGE_OVERHEAD_TOKENS
            report.recalled_message_ids = list(recalled.message_ids)
        timings["recall"] = _ms(t)
    summary_plan += max(0, recall_plan - recall_cost)

    # 3. summary of what did not fit the window.
    summary_msg: str | None = None
    summary_cost = 0
    if use_summary and summary_plan - MESSAGE_OVERHEAD_TOKENS >= MIN_USEFUL_TOKENS:
        t = time.perf_counter()
        max_summary = summary_plan - MESSAGE_OVERHEAD_TOKENS
        if folded or request.rolling_summary:
            # A stored rolling summary (from earlier folds) is carried first;
            # turns that left the window since then are added on top.
            # The folded turns as the history filters left them (retired values rewritten);
            # prepared newest first, as the correction filter needs.
            folded_now = (
                [_as_said(current(i), every[i + offset]) for i in range(window_start - 1, -1, -1)][::-1]
                if ledger
                else folded
            )
            result = build_summary(
                messages=folded_now,
                previous_summary=request.rolling_summary,
                later_messages=[p.message for p in window + floor],
                max_tokens=max_summary,
                question=request.question,
                mask=mask,
                is_stale=index.is_stale_text if (use_canvas and index is not None) else None,
                is_restricted=restricted,
                already_shown=shown_texts + (recalled.sentences if recalled is not None else []),
                cache=cache,
            )
            summary_msg = result.text or None
            report.summarized_message_count = len(folded)
            report.summary_dropped_superseded = result.dropped_superseded
        if summary_msg:
            summary_cost = count(summary_msg) + MESSAGE_OVERHEAD_TOKENS
        timings["summary"] = _ms(t)
    if folded:
        report.dropped_message_ids.extend(m.id for m in folded)

    # Assemble in prompt order.
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_text}]
    if canvas_msg:
        messages.append({"role": request.context_role, "content": canvas_msg})
    if summary_msg:
        messages.append({"role": request.context_role, "content": summary_msg})
    if recall_msg:
        messages.append({"role": request.context_role, "content": recall_msg})
    for p in window + floor:
        messages.append({"role": p.role, "content": p.text})
    messages.append({"role": "user", "content": question_text})
    report.included_message_ids = [p.message.id for p in window + floor]
    if skipped_low_info:
        report.notes.append(f"{len(skipped_low_info)} low-information turns left out of the window")
    omitted = [i for i in report.included_message_ids + report.recalled_message_ids if i in retired]
    if omitted:
        report.notes.append("outdated or restricted statements omitted from messages " + ", ".join(omitted))

    report.layer_tokens = {
        "system": system_cost,
        "canvas": canvas_cost,
        "summary": summary_cost,
        "recall": recall_cost,
        "recent": recent_cost,
        "question": question_cost,
        "priming": REPLY_PRIMING_TOKENS,
    }
    report.total_tokens = sum(report.layer_tokens.values())
    if report.total_tokens > total:  # defensive: every part above was measured exactly
        raise AssertionError(f"compiled {report.total_tokens} tokens over budget {total}")
    report.redactions = _redaction_counts(messages)
    timings["total"] = _ms(t_start)
    report.timings_ms = timings
    return CompiledContext(messages=messages, report=report)


def _as_said(p: _Prepared, m: MessageData) -> MessageData:
    """The message as the history filters left it (retired statements and values rewritten), for the summary."""
    if m.role == "tool" or p.text == m.content:
        return m
    return MessageData(id=m.id + "~filtered", role=m.role, content=p.text)


def _question_share(base: float, block_budget: int) -> float:
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


def _resolve_budget(budget: Budget | int, fixed: int) -> Budget:
    if isinstance(budget, Budget):
        if fixed > budget.total:
            raise BudgetConfigError(f"system layer needs {fixed} tokens but total budget is {budget.total}")
        return budget
    return Budget.from_total(total=int(budget), system=fixed)


def _prepare_message(
    m: MessageData,
    *,
    cache: TokenCache,
    mask: Callable[[str], str],
    variant: str,
    tool_max: int,
    content: str | None = None,
) -> _Prepared:
    """Masked (and for tools, cut) text of a message with its token count, cached.

    `content` replaces the stored text (history with outdated statements omitted).
    """
    source = m.content if content is None else content

    def build() -> str:
        if m.role == "tool":
            text = mask(source)
            text = truncate_to_tokens(text, max_tokens=max(tool_max, 1), encoding=cache.encoding)
            return TOOL_PREFIX + text
        return mask(source)

    if content is not None:
        text, tokens = cache.prepared(
            key=("msg", m.id, variant, tool_max, "retired"), source=source, prepare=build
        )
        return _Prepared(m, text, tokens)
    if m.token_count is not None and m.role != "tool":
        # Trust a stored count when masking leaves the text unchanged.
        stored_count = m.token_count

        def memo() -> tuple[str, int]:
            text = build()
            return (text, stored_count if text == m.content else cache.count(text))

        text, tokens = cache.memo(key=("msg", m.id, variant, "counted"), source=m.content, compute=memo)
        return _Prepared(m, text, tokens)
    text, tokens = cache.prepared(key=("msg", m.id, variant, tool_max), source=m.content, prepare=build)
    return _Prepared(m, text, tokens)


def _redaction_counts(messages: Sequence[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in messages:
        for kind in _REDACTED_RE.findall(m["content"]):
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)
