"""What the ledger reads: one event per message that states a value, and per superseded or archived node.

An event carries its mentions (value_mentions/) and which of its sentences carry a cue or
neither ask nor advise, so that applying it (apply_event.py) needs no second look at the text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..name_mentions import NameSpan
from ..ranking import parse_timestamp
from ..sentences import CORRECTION_RE
from ..types import MessageData, NodeData
from ..value_mentions import find_mentions
from ..value_mentions.mention import Mention, same_value
from ..value_mentions.words import sentence_spans, subject_words
from .cues import _CUE_RE, _HEDGE_RE, AGAIN_RE

if TYPE_CHECKING:
    from ..tokens import TokenCache


@dataclass(slots=True)
class _Event:
    time: float | None
    order: int
    role: str  # "user" | "assistant" | "tool" | "canvas"
    position: int  # message position (canvas events: -1)
    mentions: tuple[Mention, ...]
    cue_sentences: frozenset[int]
    node_words: frozenset[str] = frozenset()
    cued_text_sentences: frozenset[int] = frozenset()  # by value_mentions' split, with or without a value
    plain_sentences: frozenset[int] = frozenset()  # sentences that neither ask nor advise
    # sentences that change a value again ("moved again", "又推到")
    again_sentences: frozenset[int] = frozenset()
    # (sentence, signed days) of "pushed a week", "提前三天" (shifts.py)
    shifts: tuple[tuple[int, int], ...] = ()
    # starts of the mentions whose own clause carries a cue ("18号肯定开不了", not "16号验完")
    cued_clauses: frozenset[int] = frozenset()


def _cue_sentences(text: str, mentions: Sequence[Mention]) -> frozenset[int]:
    sentences = re.split(r"(?<=[。！？!?\n])|(?<=\.)\s", text)
    cued = {i for i, s in enumerate(sentences) if _CUE_RE.search(s) or CORRECTION_RE.search(s)}
    # sentence numbering in mentions follows value_mentions' own split; a cue anywhere in the
    # message counts for a short message, and per sentence otherwise
    if cued and len(sentences) <= 2:
        return frozenset(m.sentence for m in mentions)
    if not cued:
        return frozenset()
    out = {m.sentence for m in mentions if m.sentence in cued}
    spans = sentence_spans(text)
    valued = {m.sentence for m in mentions}
    framing = [
        i
        for i, (a, b) in enumerate(spans)
        if i not in valued and (_CUE_RE.search(text[a:b]) or CORRECTION_RE.search(text[a:b]))
    ]
    if framing and framing[0] == 0 and len(spans) <= SHORT_MESSAGE_SENTENCES:
        # "hang on, I misread the minutes. £12 was last year's. They voted £13.50." / "出场那个我看错了。
        # …我们是第11个，差不多11点05上台。": an opening correction with no value frames the short message.
        return frozenset(valued)
    if framing and framing[-1] == len(spans) - 1 and framing[-1] - 1 in valued:
        # "…预计11:25上台。以这个为准！": a closing one confirms the sentence before it, and in a short
        # message it frames the message ("8.75% doesn't cover it. we go in at 8.9%. that's final").
        out.add(framing[-1] - 1)
        if len(spans) <= SHORT_MESSAGE_SENTENCES:
            out |= valued
    return frozenset(out)


SHORT_MESSAGE_SENTENCES = 4
_CLAUSE_END_RE = re.compile(r"[,，;；。！？!?\n]|\.\s")


def _cued_clauses(text: str, mentions: Sequence[Mention]) -> frozenset[int]:
    """Starts of the mentions whose clause (between commas, semicolons and sentence ends) has a cue."""
    out = set()
    for m in mentions:
        ends = [e.end() for e in _CLAUSE_END_RE.finditer(text, 0, m.start)]
        start = ends[-1] if ends else 0
        after = _CLAUSE_END_RE.search(text, m.end)
        clause = text[start : after.start() if after else len(text)]
        if _CUE_RE.search(clause) or CORRECTION_RE.search(clause):
            out.add(m.start)
    return frozenset(out)


CANVAS_ORDER_BASE = -1_000_000


def _cued_text_sentences(text: str) -> frozenset[int]:
    """Indices of the sentences (numbered as value_mentions numbers them) that carry a cue."""
    spans = sentence_spans(text)
    return frozenset(
        i for i, (a, b) in enumerate(spans) if _CUE_RE.search(text[a:b]) or CORRECTION_RE.search(text[a:b])
    )


def _again_sentences(text: str) -> frozenset[int]:
    """Indices of the sentences (numbered as value_mentions numbers them) that say a change happens again."""
    return frozenset(i for i, (a, b) in enumerate(sentence_spans(text)) if AGAIN_RE.search(text[a:b]))


def _plain_sentences(text: str) -> frozenset[int]:
    """Indices of the sentences (numbered as value_mentions numbers them) that neither ask nor advise."""
    return frozenset(i for i, (a, b) in enumerate(sentence_spans(text)) if not _HEDGE_RE.search(text[a:b]))


def _mentions(
    m: MessageData, cache: TokenCache | None, names: tuple[NameSpan, ...] = ()
) -> tuple[Mention, ...]:
    if cache is None:
        return find_mentions(m.content, names)
    # the names said depend on the rest of the history (names.py): they are part of the key
    return cache.memo(
        key=("value-mentions", m.id, names) if names else ("value-mentions", m.id),
        source=m.content,
        compute=lambda: find_mentions(m.content, names),
    )


def _node_mentions(n: NodeData, cache: TokenCache | None) -> tuple[Mention, ...]:
    if cache is None:
        return find_mentions(n.content)
    return cache.memo(
        key=("value-mentions-node", n.id, n.version),
        source=n.content,
        compute=lambda: find_mentions(n.content),
    )


def _canvas_events(nodes: Sequence[NodeData], cache: TokenCache | None = None) -> tuple[_Event, ...]:
    """The value changes the canvas made (supersedes, archives), in node id order (`order`); they
    depend on the nodes alone, so a compile reuses them while the canvas's texts stay the same."""
    by_id = {n.id: n for n in nodes}
    find = functools.partial(_node_mentions, cache=cache)
    live_values = _ValueSet()
    for n in nodes:
        if not n.superseded_by and not n.archived:
            live_values.update(find(n))
    out = []
    for i, n in enumerate(sorted(nodes, key=lambda n: n.id)):
        if not (n.superseded_by or n.archived):
            continue
        old = find(n)
        if not old:
            continue
        when = parse_timestamp(n.updated_at)
        # apart from the messages' positions: "set by this event" (a slot's `since`) must not take a
        # supersede for the message that happens to share its number
        order = CANVAS_ORDER_BASE + i
        if n.superseded_by:
            repl = by_id.get(n.superseded_by)
            new = find(repl) if repl is not None else ()
            gone = tuple(_as_negated(m) for m in old if not any(same_value(m, x) for x in new))
            stated = tuple(m for m in new if not any(same_value(m, x) for x in old))
            if not gone and not stated:
                continue
            words = subject_words(n.content) | (
                subject_words(repl.content) if repl is not None else frozenset()
            )
            out.append(
                _Event(
                    time=when,
                    order=order,
                    role="canvas",
                    position=-1,
                    mentions=gone + stated,
                    cue_sentences=frozenset(m.sentence for m in stated),
                    node_words=frozenset(words),
                )
            )
        else:
            gone = tuple(_as_negated(m) for m in old if m not in live_values)
            if gone:
                out.append(
                    _Event(
                        time=when,
                        order=order,
                        role="canvas",
                        position=-1,
                        mentions=gone,
                        cue_sentences=frozenset(),
                        node_words=subject_words(n.content),
                    )
                )
    return tuple(out)


class _ValueSet:
    """`m in values` == any(same_value(m, x) for x in values), by hashing instead of a scan (an archived
    node was compared with every live value: O(archived x live), ~40 s at 100,000 nodes)."""

    __slots__ = ("keys", "number_typed", "numbers")

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.numbers: set[str] = set()  # numbers of non-version mentions
        self.number_typed: set[str] = set()  # numbers of "number" mentions

    def update(self, mentions: Sequence[Mention]) -> None:
        for x in mentions:
            self.keys.add(x.key)
            if x.number and x.type != "version":
                self.numbers.add(x.number)
                if x.type == "number":
                    self.number_typed.add(x.number)

    def __contains__(self, m: Mention) -> bool:
        if m.key in self.keys:
            return True
        if not m.number or m.type == "version":
            return False
        # same_value: equal numbers when either side is a plain "number" and neither is a version.
        return m.number in (self.numbers if m.type == "number" else self.number_typed)


def _as_negated(m: Mention) -> Mention:
    from dataclasses import replace

    return replace(m, negated=True)
