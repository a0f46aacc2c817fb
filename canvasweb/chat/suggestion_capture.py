"""Capturing fact suggestions from a user message (deterministic, canvasweb.context.capture).

Each captured fact becomes a pending FactSuggestion: a new fact, a supersede of a live node that
states another value of the same subject, or a fact that conflicts with a canvas constraint
(chat/suggestions.py reads and decides them). Runs on every user message; the model path in
chat/extraction.py may replace the result later.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace

from canvasweb.canvases.permissions import can_see, strictest_markable
from canvasweb.context.capture import (
    Conflict,
    Match,
    SuggestedFact,
    capture_facts,
    conflict_note,
    find_conflicts,
    match_supersede,
    more_sensitive,
    on_hold,
    restated_sensitivity,
    same_value,
    sensitivity_marked,
    stricter,
    subject_terms,
    value_key,
    with_label,
)
from canvasweb.context.capture.patterns import _HEDGE_RE
from canvasweb.context.capture.values import compatible
from canvasweb.context.types import NodeData

from .context_inputs import canvas_inputs
from .models import Conversation, FactSuggestion, Message, MessageRole, SuggestionStatus
from .suggestions import suggestion_to_dict

MAX_PER_MESSAGE = 5


CONTEXT_MESSAGES = 4  # what "it" refers to in a correction that names no subject


HISTORY_MESSAGES = 40  # how far back a chat-only value is found for old → new


# --- capture -------------------------------------------------------------------------------------------------


def capture_suggestions(
    *,
    conversation: Conversation,
    message: Message,
    role: str,
    facts: Sequence[SuggestedFact] | None = None,
    source: str = "rules",
    targets: Sequence[str | None] | None = None,
) -> list[dict]:
    """Suggestions for one user message (viewers get none: they cannot write).

    `facts` and `targets` (the node id each fact corrects, or None) come from the model path;
    without them the deterministic extractor and matcher decide.
    """
    if role == "viewer":
        return []
    held = on_hold(message.content)
    if held and (facts is not None or targets is not None):
        return []  # "leave the board for now", "画布先别动": nothing to offer, not even a conflict
    facts = list(capture_facts(text=message.content) if facts is None else facts)
    if held:
        # Held, except a correction of a value the canvas already shows: "no wait, 5433 was the old port,
        # it's 5434 — don't card it yet" still offers to retire the node that says 5433 (a wrong value left
        # on the canvas is worse than an unsettled new one). Hedged corrections stay held.
        facts = [
            replace(f, tentative=False)
            for f in facts
            if f.kind == "correction" and f.previous_value and not _HEDGE_RE.search(f.sentence)
        ]
    if targets is not None:
        targets = [t for f, t in zip(facts, targets, strict=True) if not f.tentative]
    facts = [f for f in facts if not f.tentative]
    if held and not facts:
        return []
    nodes, _, _ = canvas_inputs(canvas_id=conversation.canvas_id)
    visible = [n for n in nodes if can_see(role, n.sensitivity) and not n.superseded_by and not n.archived]
    conflicts = [] if held else find_conflicts(text=message.content, nodes=visible)
    if not facts and not conflicts:
        return []
    # A fact that restates an internal (or secret) node is at least as sensitive as that node.
    restated = restated_sensitivity(message.content, nodes)
    facts = [replace(f, sensitivity=stricter(f.sensitivity, restated)) for f in facts]
    # A fact the user wants kept from others that this role cannot mark as strictly is not offered:
    # accepting it would show it to everyone the role can ("code 5820, but don't put that where
    # anyone can see" typed by an editor, who cannot make a card secret).
    markable = [strictest_markable(role, f.sensitivity) == f.sensitivity for f in facts]
    if targets is not None:
        targets = [t for t, ok in zip(targets, markable, strict=True) if ok]
    facts = [f for f, ok in zip(facts, markable, strict=True) if ok]
    if not facts and not conflicts:
        return []
    context = _recent_text(conversation=conversation, before_id=message.pk)
    history = _earlier_user_facts(conversation=conversation, before_id=message.pk)
    conflict_ids = {c.node.id for c in conflicts}
    created: list[FactSuggestion] = []
    offered: set[str] = set()
    targeted: set[str] = set()  # one suggestion per message supersedes a given node; a second would fail
    used_conflicts: set[str] = set()
    by_id = {n.id: n for n in visible}
    for index, fact in enumerate(facts[:MAX_PER_MESSAGE]):
        if targets is not None:
            target = by_id.get(targets[index] or "")
            match = _model_match(fact, target) if target is not None and target.id not in targeted else None
        else:
            matches = [
                m
                for m in match_supersede(fact=fact, nodes=visible, context=context)
                if m.node.id not in targeted and (fact.kind == "correction" or m.node.id not in conflict_ids)
            ]
            match = matches[0] if matches else None
        if held and not (match and same_value(match.old_value, fact.previous_value or "")):
            continue  # held: only the supersede of a node holding the value the message names as old
        # A label that shares no word with the node it corrects is no subject ("for the full run it comes
        # to £2,150" for "Lighting hire: £1,450"): the node's own words say what the value is about.
        if match and (not fact.label or not subject_terms(fact.label) & subject_terms(match.node.content)):
            fact = with_label(fact, match.label or "")
        previous = fact.previous_value or (match.old_value if match else None)
        if match is None:
            earlier = _earlier_value(fact, history)
            if earlier is not None:
                if not fact.label and earlier.label:
                    fact = with_label(fact, earlier.label)
                previous = previous or earlier.value
        key = value_key(fact.value) if fact.value else fact.content.strip().lower()
        if key in offered:
            continue  # one sentence can match several patterns; offer each value once
        offered.add(key)
        content = fact.content
        if match and not fact.label:
            content = _rewritten(match.node.content, match.old_value, fact.value or "") or content
        conflict = next(
            (
                c
                for c in conflicts
                if c.node.id not in used_conflicts
                and _same_clause(c, fact)
                and not (match and match.node.id == c.node.id)
            ),
            None,
        )  # replacing it is no conflict
        if conflict:
            used_conflicts.add(conflict.node.id)
        if match:
            targeted.add(match.node.id)
        created.append(
            _create(
                conversation=conversation,
                message=message,
                role=role,
                fact=fact,
                content=content,
                previous=previous,
                match=match,
                conflict=conflict,
                source=source,
            )
        )
    # The clause of a conflict is as private as the message says its facts are (and as the nodes it
    # restates); one this role cannot mark that strictly is not offered, like any other fact.
    clause_sensitivity = stricter(sensitivity_marked(message.content), restated)
    clause_markable = strictest_markable(role, clause_sensitivity) == clause_sensitivity
    for conflict in conflicts:  # a conflict with no captured fact of its own: the clause becomes the fact
        if conflict.node.id in used_conflicts or conflict.node.id in targeted or not clause_markable:
            continue
        fact = SuggestedFact(
            content=conflict.sentence,
            kind="decision",
            subject="",
            value=conflict.value,
            reason=f"conflicts with a constraint ({conflict.reason})",
            sentence=conflict.sentence,
            sensitivity=clause_sensitivity,
        )
        created.append(
            _create(
                conversation=conversation,
                message=message,
                role=role,
                fact=fact,
                content=conflict.sentence,
                previous=None,
                match=None,
                conflict=conflict,
                source=source,
            )
        )
    _retire_earlier_pending(conversation=conversation, message=message, new=created)
    return [suggestion_to_dict(s) for s in created]


def _model_match(fact: SuggestedFact, node: NodeData) -> Match:
    warnings = tuple(
        w
        for w, on in (
            ("pinned", node.pinned),
            ("more_sensitive", more_sensitive(node.sensitivity, fact.sensitivity)),
        )
        if on
    )
    return Match(
        node=node, old_value=fact.previous_value or "", label=fact.label, score=1.0, warnings=warnings
    )


def _create(
    *,
    conversation: Conversation,
    message: Message,
    role: str,
    fact: SuggestedFact,
    content: str,
    previous: str | None,
    match: Match | None,
    conflict: Conflict | None,
    source: str,
) -> FactSuggestion:
    # A correction of an internal node is internal too, unless the user says otherwise when accepting.
    sensitivity = strictest_markable(
        role, stricter(fact.sensitivity, match.node.sensitivity) if match else fact.sensitivity
    )
    # Warn for what accepting as suggested would do: retire a pinned node, or one more restricted than the
    # new fact (an editor's correction of a node they cannot mark as strictly).
    warnings = [w for w in (match.warnings if match else ()) if w != "more_sensitive"]
    if match and more_sensitive(match.node.sensitivity, sensitivity):
        warnings.append("more_sensitive")
    return FactSuggestion.objects.create(
        conversation=conversation,
        message=message,
        content=content[:2000],
        kind=match.node.kind if match else _node_kind(fact.kind),
        subject=(fact.subject or "")[:200],
        value=(fact.value or "")[:200],
        reason=fact.reason[:200],
        label=fact.label[:200],
        previous_value=(previous or "")[:200],
        supersede_node_id=uuid.UUID(match.node.id) if match else None,
        supersede_content=match.node.content[:2000] if match else "",
        conflict_node_id=uuid.UUID(conflict.node.id) if conflict else None,
        conflict_content=conflict.node.content[:2000] if conflict else "",
        note=conflict_note(conflict)[:300] if conflict else "",
        warnings=warnings,
        source=source,
        sensitivity=sensitivity,
    )


def _node_kind(fact_kind: str) -> str:
    return {
        "config": "config",
        "number": "fact",
        "rule": "requirement",
        "correction": "decision",
        "decision": "decision",
    }.get(fact_kind, "fact")


def _same_clause(conflict: Conflict, fact: SuggestedFact) -> bool:
    return bool(fact.value) and (
        conflict.value in (fact.value or "")
        or (fact.value or "") in conflict.value
        or same_value(conflict.value, fact.value or "")
    )


def _rewritten(node_text: str, old: str, new: str) -> str | None:
    """The node's own sentence with the old value replaced ("Postgres listens on port 5434.")."""
    if old and new and node_text.count(old) == 1 and len(node_text) <= 300:
        return node_text.replace(old, new)
    return None


def _recent_text(*, conversation: Conversation, before_id: int) -> str:
    rows = (
        Message.objects.filter(conversation=conversation, id__lt=before_id)
        .exclude(role=MessageRole.TOOL)
        .order_by("-id")
        .values_list("content", flat=True)[:CONTEXT_MESSAGES]
    )
    return "\n".join(reversed(list(rows)))


def _earlier_user_facts(*, conversation: Conversation, before_id: int) -> list[SuggestedFact]:
    """Facts of the earlier user messages, newest first (a chat-only value a correction changes)."""
    rows = (
        Message.objects.filter(conversation=conversation, id__lt=before_id, role=MessageRole.USER)
        .order_by("-id")
        .values_list("content", flat=True)[:HISTORY_MESSAGES]
    )
    return [f for text in rows for f in capture_facts(text=text) if f.value and not f.tentative]


def _earlier_value(fact: SuggestedFact, history: Sequence[SuggestedFact]) -> SuggestedFact | None:
    """The value an earlier message stated for the same subject (only for corrections and same-subject facts)."""
    if not fact.value:
        return None
    terms = subject_terms(fact.label) if fact.label else frozenset()
    for earlier in history:
        if same_value(earlier.value or "", fact.value) or not compatible(
            fact.value_type or "text", earlier.value_type or "text"
        ):
            continue
        other = subject_terms(earlier.label) if earlier.label else frozenset()
        if terms and other and len(terms & other) / len(terms) >= 0.6:
            return earlier
        if not terms and fact.kind == "correction" and other:
            return earlier  # "刚才说错了，是4月1日": the last value of this type
    return None


def _retire_earlier_pending(
    *, conversation: Conversation, message: Message, new: list[FactSuggestion]
) -> None:
    """A corrected value still waiting as a suggestion (A → B said, B → C said now) is dismissed: B is retired.
    So is one the new message repeats (the same fact for the same node): the list shows it once, from the
    newest message."""
    for suggestion in new:
        FactSuggestion.objects.filter(
            conversation=conversation,
            status=SuggestionStatus.PENDING,
            message_id__lt=message.pk,
            content=suggestion.content,
            supersede_node_id=suggestion.supersede_node_id,
        ).update(status=SuggestionStatus.DISMISSED)
    for suggestion in new:
        if not suggestion.previous_value or not suggestion.label:
            continue
        terms = subject_terms(suggestion.label)
        for older in FactSuggestion.objects.filter(
            conversation=conversation, status=SuggestionStatus.PENDING, message_id__lt=message.pk
        ).exclude(label=""):
            other = subject_terms(older.label)
            if (
                terms
                and other
                and len(terms & other) / len(terms) >= 0.6
                and same_value(older.value, suggestion.previous_value)
            ):
                FactSuggestion.objects.filter(pk=older.pk).update(status=SuggestionStatus.DISMISSED)
