"""The names each message says (name_mentions.py), for the ledger to read as values of type "name".

A name is tracked only when some message names it in a correction; then every message that says
it gets a mention of it, so the correction can retire the earlier "Halvorsen gives the keynote".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..name_mentions import (
    NameSpan,
    capitalised_names,
    corrected_names,
    name_key,
    name_occurrences,
    occurrence_pattern,
    tracked_forms,
)
from ..sentences import CORRECTION_RE
from ..types import MessageData
from .cues import _CUE_RE

if TYPE_CHECKING:
    from ..tokens import TokenCache


def message_names(messages: Sequence[MessageData], cache: TokenCache | None) -> list[tuple[NameSpan, ...]]:
    """Per message (in order), the tracked names it says; tool output says none."""
    own = [_corrected(m, cache) if m.role != "tool" else () for m in messages]
    forms = tracked_forms(n for spans in own for n in spans)
    for i, (span, full) in _names_referred_to_by_their_noun(messages, own, cache).items():
        own[i] = tuple(sorted((*own[i], span), key=lambda n: n.start))
        forms |= tracked_forms([replace(span, raw=full)])
    pattern = occurrence_pattern(forms)
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


# "the bookshop" for "the Harbourside Bookshop" said before: the name's last word, lowercase, after
# an article or a demonstrative.
_NOUN_REF_RE = re.compile(r"\b(?:the|that|this)\s+([a-z]{3,})\b")


def _names_referred_to_by_their_noun(
    messages: Sequence[MessageData], own: list[tuple[NameSpan, ...]], cache: TokenCache | None
) -> dict[int, tuple[NameSpan, str]]:
    """A user message that names a new place or firm and calls the one it replaces by its common noun
    ("the bookshop is lovely but too small … we're moving it to the Old Ropeworks", after "the launch
    at the Harbourside Bookshop") names that earlier name as the old one. The noun is the last word of
    one multi-word name said earlier, and of no other; the span is the noun, its key the full name's."""
    asking = [
        i
        for i, m in enumerate(messages)
        if m.role == "user"
        and any(n.role == "new" for n in own[i])
        and not any(n.role == "old" for n in own[i])
        and _NOUN_REF_RE.search(m.content)
    ]
    out: dict[int, tuple[NameSpan, str]] = {}
    if not asking:
        return out  # the common case: no pass over the history's names
    asks = set(asking)
    earlier: dict[str, set[str]] = {}  # last word, lowercase -> the names said before that end in it
    for i, m in enumerate(messages[: asking[-1] + 1]):
        if i in asks:
            _refer(i, m.content, own[i], earlier, out)
        if m.role != "tool":
            for name in _capitalised(m, cache):
                if " " in name:
                    earlier.setdefault(name.rsplit(" ", 1)[1].lower(), set()).add(name)
    return out


def _refer(
    i: int,
    text: str,
    spans: tuple[NameSpan, ...],
    earlier: dict[str, set[str]],
    out: dict[int, tuple[NameSpan, str]],
) -> None:
    new_keys = {n.key for n in spans if n.role == "new"}
    for ref in _NOUN_REF_RE.finditer(text):
        names = earlier.get(ref.group(1), set())
        if len(names) != 1:
            continue
        (full,) = names
        key = name_key(full)
        if key in new_keys or any(n.start <= ref.start(1) < n.end for n in spans):
            continue
        out[i] = (NameSpan(ref.start(1), ref.end(1), ref.group(1), key, "old"), full)
        return  # the first reference is the one the change is about


def _capitalised(m: MessageData, cache: TokenCache | None) -> list[str]:
    if cache is None:
        return capitalised_names(m.content)
    return cache.memo(
        key=("capitalised-names", m.id), source=m.content, compute=lambda: capitalised_names(m.content)
    )
