"""The rolling summary: when old turns are due, the fold request, and storing the new summary.

The model writes the summary when one is configured; otherwise (or when it returns nothing) the
deterministic extractive summary of canvasweb.context.summary is stored. Both are masked like every
prompt: no credentials, no values of secret nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from canvasweb.context.redaction import mask_credentials
from canvasweb.context.summary import SUMMARY_PROMPT_TEMPLATE, build_summary, should_fold, wrap_model_summary
from canvasweb.context.tokens import count_tokens

from .context_inputs import TOKEN_CACHE, canvas_inputs, message_data
from .models import Conversation, Message, MessageStatus

# Messages always kept verbatim after a fold (the rest go into the summary).
KEEP_AFTER_FOLD = 4


SUMMARY_MAX_TOKENS = 600


@dataclass
class FoldPlan:
    """Messages due to be folded into the summary (and the ones kept verbatim)."""

    conversation: Conversation
    fold: list[Message]
    keep: list[Message]
    # Masks the values of the canvas's secret nodes (the fold request and the stored summary never hold them).
    secret_mask: Callable[[str], str] = field(default=lambda text: text)


def summary_fold_plan(*, conversation: Conversation, recent_budget: int) -> FoldPlan | None:
    """When the verbatim window passes 70 % of its budget, the oldest turns are due for folding."""
    history = list(
        Message.objects.filter(conversation=conversation, id__gt=conversation.summarized_through_id)
        .exclude(status=MessageStatus.ERROR)
        .order_by("id")
    )
    recent_tokens = sum((m.token_count or 0) + 4 for m in history)
    if len(history) <= KEEP_AFTER_FOLD or not should_fold(
        recent_tokens=recent_tokens, recent_budget=recent_budget
    ):
        return None
    return FoldPlan(
        conversation=conversation,
        fold=history[:-KEEP_AFTER_FOLD],
        keep=history[-KEEP_AFTER_FOLD:],
        secret_mask=canvas_inputs(canvas_id=conversation.canvas_id)[2].secret_masker,
    )


def summary_prompt(plan: FoldPlan) -> list[dict]:
    """The model-written summary request: the template, masked like every prompt (credentials and the
    values of secret nodes)."""
    transcript = "\n".join(f"{m.role}: {m.content}" for m in plan.fold)
    prompt = SUMMARY_PROMPT_TEMPLATE.format(
        max_words=SUMMARY_MAX_TOKENS // 2,
        previous_summary=plan.conversation.summary or "(none)",
        messages=transcript,
    )
    return [{"role": "user", "content": plan.secret_mask(mask_credentials(prompt))}]


def summary_store(*, plan: FoldPlan, model_text: str | None = None) -> Conversation:
    """Fold: the model's summary when it wrote one, else the deterministic extractive summary."""
    conversation = plan.conversation
    if model_text and model_text.strip():
        text = wrap_model_summary(plan.secret_mask(mask_credentials(model_text)))
        tokens = count_tokens(text, encoding=TOKEN_CACHE.encoding)
    else:
        result = build_summary(
            messages=[message_data(m) for m in plan.fold],
            max_tokens=SUMMARY_MAX_TOKENS,
            later_messages=[message_data(m) for m in plan.keep],
            previous_summary=conversation.summary or None,
            cache=TOKEN_CACHE,
            # reconciled with the canvas: superseded/archived values leave the summary
            is_stale=canvas_inputs(canvas_id=conversation.canvas_id)[2].is_stale_text,
        )
        text = plan.secret_mask(result.text)
        tokens = result.tokens if text == result.text else count_tokens(text, encoding=TOKEN_CACHE.encoding)
    conversation.summary = text
    conversation.summary_token_count = tokens
    conversation.summarized_through_id = plan.fold[-1].pk
    conversation.save(update_fields=["summary", "summary_token_count", "summarized_through_id", "updated_at"])
    return conversation
