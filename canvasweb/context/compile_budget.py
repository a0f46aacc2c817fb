"""The compiler's budget arithmetic: the fixed part, the question, and the optional layers' plans.

All amounts are tokens, message overhead included. System, question and the
floor are paid first; the planned canvas / summary / recall / recent amounts are
then scaled down proportionally if the rest does not hold them, and anything left
over goes to recent messages. Unused budget flows forward in computation order
(see `share_unused_canvas`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .tokens import TokenCache, truncate_to_tokens
from .types import MESSAGE_OVERHEAD_TOKENS, Budget, BudgetConfigError, Truncation

# When the canvas block leaves at least this share of its plan unused, the window
# and the summary hand CHAT_MEMORY_SHIFT x (unused share) of their plans to recall.
IDLE_CANVAS_SHARE = 0.5
CHAT_MEMORY_SHIFT = 0.8
# The summary's quarter of the unused canvas share moves to recall by the same factor.
IDLE_SHARE_FOLLOWS = True
# A canvas block that fills its plan with records seated only for viewport proximity is
# narrowed when the question is about the chat: at least this share of its words occur
# in older turns. The narrowed block keeps its relevant records plus NARROW_SLACK_TOKENS.
NARROW_WHEN_PAST_SHARE = 0.5
NARROW_SLACK_TOKENS = 40


def resolve_budget(budget: Budget | int, fixed: int) -> Budget:
    if isinstance(budget, Budget):
        if fixed > budget.total:
            raise BudgetConfigError(f"system layer needs {fixed} tokens but total budget is {budget.total}")
        return budget
    return Budget.from_total(total=int(budget), system=fixed)


def fit_question(
    question_text: str, *, avail: int, cache: TokenCache, truncations: list[Truncation]
) -> tuple[str, int]:
    """The question, cut only if it alone overflows what the system layer left; and its cost."""
    q_tokens = cache.count(question_text)
    if q_tokens + MESSAGE_OVERHEAD_TOKENS > avail:
        question_text = truncate_to_tokens(
            question_text, max_tokens=avail - MESSAGE_OVERHEAD_TOKENS, encoding=cache.encoding
        )
        truncations.append(
            Truncation(
                layer="question",
                item_id="question",
                original_tokens=q_tokens,
                kept_tokens=cache.count(question_text),
            )
        )
        q_tokens = cache.count(question_text)
    return question_text, q_tokens + MESSAGE_OVERHEAD_TOKENS


@dataclass(slots=True)
class LayerPlan:
    """Planned tokens per optional layer (message overhead included) and which layers run."""

    use_canvas: bool
    use_summary: bool
    use_recall: bool
    canvas: int = 0
    summary: int = 0
    recall: int = 0
    recent: int = 0
    # Shares of the unused canvas plan, added after the window is set.
    to_recall: int = 0
    to_summary: int = 0


def plan_layers(
    budget: Budget,
    *,
    strategy: str,
    recall_history: bool,
    pool: int,
    floor_cost: int,
    question_cost: int,
) -> LayerPlan:
    """Plans inside `pool` (what is left after system, question and floor). Strategies without a
    layer hand its plan to recent messages; `full` gives everything to recent messages."""
    use_canvas = strategy == "canvas"
    use_summary = strategy in ("summary", "canvas")
    use_recall = use_canvas and recall_history
    plan = LayerPlan(use_canvas=use_canvas, use_summary=use_summary, use_recall=use_recall)
    plan.canvas = budget.canvas if use_canvas else 0
    plan.summary = budget.summary if use_summary else 0
    plan.recall = budget.recall if use_recall else 0
    plan.recent = max(0, budget.recent - floor_cost) + max(0, budget.question - question_cost)
    if not use_canvas:
        plan.recent += budget.canvas
    if not use_summary:
        plan.recent += budget.summary
    if not use_recall:
        plan.recent += budget.recall
    if strategy == "full":
        plan.canvas, plan.summary, plan.recall, plan.recent = 0, 0, 0, pool
    planned = plan.canvas + plan.summary + plan.recent + plan.recall
    if planned > pool:
        scale = pool / planned if planned else 0.0
        plan.canvas = int(plan.canvas * scale)
        plan.summary = int(plan.summary * scale)
        plan.recall = int(plan.recall * scale)
        plan.recent = pool - plan.canvas - plan.summary - plan.recall
    else:
        plan.recent += pool - planned
    return plan


def narrowed_canvas_plan(
    plan: LayerPlan,
    *,
    canvas_cost: int,
    relevant_cost: int,
    n_older: int,
    min_cost: int,
    past_share: Callable[[], float],
) -> int | None:
    """A smaller canvas plan when the block is busy but little of it answers the question.

    A canvas full of notes near the viewport (captured facts, a busy board) can fill its whole
    plan without one record that matches the question; the idle-canvas shift below then never
    fires and the recall layer stays small, although the answer was said in an older turn.
    When the records seated for relevance (anchors, links, question matches) need less than
    IDLE_CANVAS_SHARE of the plan and the question is about the chat (`past_share`), the block
    is rebuilt at that size plus NARROW_SLACK_TOKENS so the rest goes to recall. `None` keeps
    the plan: no recall layer, nothing older, a block already idle enough for the shift, a block
    that answers the question, or a question about nothing said earlier."""
    if not (plan.use_recall and n_older > 0 and plan.canvas > 0):
        return None
    if plan.canvas - canvas_cost >= IDLE_CANVAS_SHARE * plan.canvas:
        return None  # the shift fires as it is; narrowing would only drop nearby records
    if relevant_cost >= IDLE_CANVAS_SHARE * plan.canvas:
        return None
    smaller = max(relevant_cost + NARROW_SLACK_TOKENS, min_cost)
    if smaller >= plan.canvas or past_share() < NARROW_WHEN_PAST_SHARE:
        return None
    return smaller


def share_unused_canvas(
    plan: LayerPlan, *, canvas_cost: int, n_older: int, past_share: Callable[[], float]
) -> None:
    """Hand the canvas block's unused plan on, in place.

    Half goes to the summary (denser than raw turns), half to recent messages; with the
    recall layer on, half goes to recall and a quarter each to the summary and the window.
    Adaptive shares: a canvas that needs little of its share means this conversation keeps
    its memory in the chat, not on the canvas; the window and the summary then give way to
    recall in proportion (the floor stays). How much they give is scaled by the share of the
    question's words that the older turns contain (`past_share`, read only when needed: a
    question about nothing said earlier keeps its window)."""
    canvas_left = plan.canvas - canvas_cost
    plan.to_recall = canvas_left // 2 if plan.use_recall else 0
    plan.to_summary = (canvas_left - plan.to_recall) // 2 if plan.use_summary else 0
    plan.recent += canvas_left - plan.to_summary - plan.to_recall
    if not (
        plan.use_recall and n_older > 0 and plan.canvas > 0 and canvas_left >= IDLE_CANVAS_SHARE * plan.canvas
    ):
        return
    give = CHAT_MEMORY_SHIFT * (canvas_left / plan.canvas) * min(1.0, 2.0 * past_share())
    if give <= 0:
        return
    moved_recent, moved_summary = int(plan.recent * give), int(plan.summary * give)
    plan.recent -= moved_recent
    plan.summary -= moved_summary
    plan.to_recall += moved_recent + moved_summary
    # The summary's part of the idle canvas share follows the same way.
    moved_idle = int(plan.to_summary * give) if IDLE_SHARE_FOLLOWS else 0
    plan.to_summary -= moved_idle
    plan.to_recall += moved_idle
