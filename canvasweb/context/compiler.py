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

The steps live in their own modules: compile_budget.py (the arithmetic and the
layers' plans), compile_history.py (each turn prepared once through the history
filters; floor and window), compile_canvas.py (the canvas block) and
compile_memory.py (recall and the summary). This module runs them in order and
assembles the messages and the report.

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

from .compile_budget import (
    fit_question,
    narrowed_canvas_plan,
    plan_layers,
    resolve_budget,
    share_unused_canvas,
)
from .compile_canvas import CanvasLayer, build_canvas_layer
from .compile_history import MIN_USEFUL_TOKENS, HistoryView, PreparedMessage, take_floor, take_window
from .compile_memory import RecallLayer, build_recall_layer, build_summary_layer, worth_a_message
from .history_recall import is_low_information, past_match_share
from .redaction import build_secret_masker, mask_credentials, secret_fingerprint, secret_values
from .selection import CanvasIndex
from .tokens import TokenCache
from .types import (
    MESSAGE_OVERHEAD_TOKENS,
    REPLY_PRIMING_TOKENS,
    BudgetConfigError,
    CompiledContext,
    CompileReport,
    CompileRequest,
)

_REDACTED_RE = re.compile(r"\[REDACTED:([a-z_]+)\]")


def compile_context(*, request: CompileRequest) -> CompiledContext:
    """Build the chat messages for one turn within the token budget."""
    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    cache: TokenCache = (
        request.token_cache if request.token_cache is not None else TokenCache(encoding=request.encoding)
    )
    strategy = request.strategy
    index = _canvas_index(request, timings)
    if index is not None:
        secret_mask, fingerprint = index.secret_masker, index.secret_fingerprint
    else:
        values = secret_values(n.content for n in request.nodes if n.sensitivity == "secret")
        secret_mask, fingerprint = build_secret_masker(values), secret_fingerprint(values)

    def mask(text: str) -> str:
        return secret_mask(mask_credentials(text))

    # 1. system layer: never trimmed.
    system_text = mask(request.system_prompt)
    system_cost = cache.count(system_text) + MESSAGE_OVERHEAD_TOKENS
    fixed = system_cost + REPLY_PRIMING_TOKENS
    budget = resolve_budget(request.budget, fixed)
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
    question_text, question_cost = fit_question(
        mask(request.question), avail=avail, cache=cache, truncations=report.truncations
    )
    pool = avail - question_cost

    history = HistoryView(
        messages=request.messages,
        archived=request.archived_messages,
        index=index,
        strategy=strategy,
        role=request.role,
        retire_values=request.retire_values,
        cache=cache,
        mask=mask,
        fingerprint=fingerprint,
        tool_max=request.tool_message_max_tokens,
    )
    messages_in = request.messages
    n_hist = len(messages_in)

    # 4a. the floor: the last N messages, cut to fit if they alone overflow.
    floor_n = min(budget.recent_floor_messages, n_hist)
    if strategy == "full":
        floor_n = min(max(floor_n, 1), n_hist)
    floor = take_floor(history, floor_n=floor_n, pool=pool, truncations=report.truncations)
    floor_cost = sum(p.cost for p in floor)
    pool -= floor_cost
    n_older = n_hist - floor_n  # messages before the floor: window or summary candidates
    if len(floor) < floor_n:  # some floor messages did not fit at all
        report.dropped_message_ids.extend(m.id for m in messages_in[: n_hist - len(floor)])
        n_older = 0

    plan = plan_layers(
        budget,
        strategy=strategy,
        recall_history=request.recall_history,
        pool=pool,
        floor_cost=floor_cost,
        question_cost=question_cost,
    )

    # 2. canvas block.
    canvas = CanvasLayer()
    truncations_before_canvas = len(report.truncations)
    question_memo: dict[str, dict[int, float]] = {}  # the question's node scores, shared by both selections
    if plan.use_canvas and index is not None and plan.canvas - MESSAGE_OVERHEAD_TOKENS >= MIN_USEFUL_TOKENS:
        canvas = build_canvas_layer(
            request=request,
            index=index,
            plan=plan.canvas,
            cache=cache,
            mask=mask,
            fingerprint=fingerprint,
            report=report,
            timings=timings,
            question_memo=question_memo,
        )
    elif plan.use_canvas:
        report.notes.append("canvas layer skipped: no room")
    past_share = _once(
        lambda: past_match_share(
            question=request.question, messages=history.every[: history.offset + n_older], cache=cache
        )
    )
    if canvas.cost and index is not None:
        smaller = narrowed_canvas_plan(
            plan,
            canvas_cost=canvas.cost,
            relevant_cost=canvas.relevant_cost,
            n_older=n_older,
            min_cost=MIN_USEFUL_TOKENS + MESSAGE_OVERHEAD_TOKENS,
            past_share=past_share,
        )
        if smaller is not None:
            report.notes.append(
                f"canvas block narrowed to {smaller} tokens: {canvas.relevant_cost} of {canvas.cost} answer the question"
            )
            del report.truncations[truncations_before_canvas:]
            canvas = build_canvas_layer(
                request=request,
                index=index,
                plan=smaller,
                cache=cache,
                mask=mask,
                fingerprint=fingerprint,
                report=report,
                timings=timings,
                question_memo=question_memo,
            )
    share_unused_canvas(plan, canvas_cost=canvas.cost, n_older=n_older, past_share=past_share)

    # 4b. recent window: newest first, contiguous; low-information turns
    # ("Okay.", "好的") are left out instead of spending the budget.
    window, window_start, left, skipped_low_info = take_window(
        history,
        n_older=n_older,
        budget=plan.recent,
        skip_low_information=is_low_information if plan.use_canvas else None,
    )
    folded = list(messages_in[:window_start])
    recent_cost = sum(p.cost for p in window) + floor_cost
    plan.recall += plan.to_recall
    if plan.use_recall:
        plan.recall += left // 2
        left -= left // 2
    plan.summary += left + plan.to_summary  # recent leftover flows to the summary

    # 3b. recalled turns.
    recalled: RecallLayer | None = None
    if plan.use_recall and worth_a_message(plan.recall) and (folded or history.archived):
        t = time.perf_counter()
        recalled = build_recall_layer(
            request=request,
            history=history,
            window_start=window_start,
            plan=plan.recall,
            shown=[p.text for p in window + floor] + canvas.shown_texts,
            report=report,
        )
        timings["recall"] = _ms(t)
    recall_cost = recalled.cost if recalled is not None else 0
    plan.summary += max(0, plan.recall - recall_cost)

    # 3. summary of what did not fit the window.
    summary_msg: str | None = None
    summary_cost = 0
    if plan.use_summary and worth_a_message(plan.summary):
        t = time.perf_counter()
        summary_msg, summary_cost = build_summary_layer(
            request=request,
            history=history,
            index=index,
            use_canvas=plan.use_canvas,
            window_start=window_start,
            later=window + floor,
            plan=plan.summary,
            mask=mask,
            already_shown=canvas.shown_texts + (recalled.sentences if recalled is not None else []),
            report=report,
        )
        timings["summary"] = _ms(t)
    if folded:
        report.dropped_message_ids.extend(m.id for m in folded)

    messages = _assemble(
        request=request,
        system_text=system_text,
        layers=(canvas.text, summary_msg, recalled.text if recalled is not None else None),
        turns=window + floor,
        question_text=question_text,
    )
    report.included_message_ids = [p.message.id for p in window + floor]
    if skipped_low_info:
        report.notes.append(f"{len(skipped_low_info)} low-information turns left out of the window")
    omitted = [i for i in report.included_message_ids + report.recalled_message_ids if i in history.retired]
    if omitted:
        report.notes.append("outdated or restricted statements omitted from messages " + ", ".join(omitted))

    report.layer_tokens = {
        "system": system_cost,
        "canvas": canvas.cost,
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


def _canvas_index(request: CompileRequest, timings: dict[str, float]) -> CanvasIndex | None:
    """The request's index, or one built here (canvas strategy, or any strategy with nodes: other
    strategies need the secret values)."""
    given: CanvasIndex | None = request.index
    if given is not None or not (request.strategy == "canvas" or request.nodes):
        return given
    t = time.perf_counter()
    index = CanvasIndex.build(
        nodes=request.nodes, edges=request.edges, min_weight=request.selection.min_weight
    )
    timings["index_build"] = _ms(t)
    return index


def _assemble(
    *,
    request: CompileRequest,
    system_text: str,
    layers: tuple[str | None, ...],
    turns: list[PreparedMessage],
    question_text: str,
) -> list[dict[str, Any]]:
    """Messages in prompt order: system, canvas / summary / recall (context role), turns, question."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_text}]
    for text in layers:
        if text:
            messages.append({"role": request.context_role, "content": text})
    for p in turns:
        messages.append({"role": p.role, "content": p.text})
    messages.append({"role": "user", "content": question_text})
    return messages


def _redaction_counts(messages: Sequence[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in messages:
        for kind in _REDACTED_RE.findall(m["content"]):
            counts[kind] = counts.get(kind, 0) + 1
    return dict(sorted(counts.items()))


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)


def _once(fn: Callable[[], float]) -> Callable[[], float]:
    """`fn`, computed on the first call only."""
    box: list[float] = []

    def get() -> float:
        if not box:
            box.append(fn())
        return box[0]

    return get
