"""The names each message says (name_mentions.py), for the ledger to read as values of type "name".

A name is tracked only when some message names it in a correction; then every message that says
it gets a mention of it, so the correction can retire the earlier "Halvorsen gives the keynote".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..name_mentions import NameSpan, corrected_names, name_occurrences, occurrence_pattern, tracked_forms
from ..sentences import CORRECTION_RE
from ..types import MessageData
from .cues import _CUE_RE

if TYPE_CHECKING:
    from ..tokens import TokenCache


def message_names(messages: Sequence[MessageData], cache: TokenCache | None) -> list[tuple[NameSpan, ...]]:
    """Per message (in order), the tracked names it says; tool output says none."""
    own = [_corrected(m, cache) if m.role != "tool" else () for m in messages]
    pattern = occurrence_pattern(tracked_forms(n for spans in own for n in spans))
    return [
        name_occurrences(m.content, pattern, spans) if m.role != "tool" else ()
        for m, spans in zip(messages, own, strict=True)
    ]


def _corrected(m: MessageData, cache: TokenCache | None) -> tuple[NameSpan, ...]:
    if cache is None:
        return _read(m.content)
    return cache.memo(key=("name-corrections", m.id), source=m.content, compute=lambda: _read(m.content))


def _read(text: str) -> tuple[NameSpan, ...]:
    """A name assigned ("由李娜负责") is the new one only in a sentence that says it changed
    ("现在改由…", "从下周起由…"); otherwise it is said plainly."""
    out = []
    for n in corrected_names(text):
        if n.role == "assigned":
            sentence = text[n.sentence_start : n.sentence_end]
            cued = _CUE_RE.search(sentence) or CORRECTION_RE.search(sentence)
            n = replace(n, role="new" if cued else "")
        out.append(n)
    return tuple(out)
