"""Which values in the history are retired, by subject: a store of subjects and their current values.

The conversation is read oldest first, with the canvas's supersedes and
archives put in at the time they happened. Every value mention
(value_mentions/) either joins a *subject* (a slot: the words said around
its values, and the value that is current for it) or opens a new one:

* a user statement of a value of a compatible type (a port for a port, a
  date for a date) about the same subject replaces the subject's current
  value, which is then retired. "About the same subject" = shared subject
  words: one is enough when the sentence carries a correction cue
  ("actually", "scratch that", "now", "no longer", "改成", "刚才说错了", …) or
  the message names the subject's current value as the old one; otherwise
  two, covering half of the statement's words. Every subject that matches
  nearly as well as the best (>= 60 %) is replaced too, so A said in a node
  and B said in chat both give way to C; one that matches clearly worse (a
  look-alike: "current crash-free 99.71 %" next to "halt below 99.2 %") keeps
  its value;
* a mention named as the old value ("not 4840", "8443 停用了", "99.2 is too
  loose") retires that value in the subject it matches best;
* a superseded node: at the time of the supersede, its replacement is read as
  a correction whose old values are the ones only the old version has;
  an archived node: its values that no live node holds are retired in the
  subjects that share its words;
* assistant replies never retire anything; their mentions join the subject
  they echo;
* names (names.py, ../name_mentions.py) are values too once a correction frames one
  ("no longer Halvorsen", "从国家会议中心换到了新国展"); a new name replaces only the name its
  message names as old, and that correction retires it only in the subject its sentence's
  words point to.

A value said again later by the user as current is current again (A -> B -> A).
`RetiredValues.rewrite` replaces each retired mention in a message by
`[old value → now <current>]` (or `[old value]` when there is no current value,
and inside the message that retires it). A marker never names a retired value: when the
current value was retired since in another subject, it names what replaced it there if that
subject clearly is the same one, else it reads `[old value]` (`_live_value`).

`build_ledger` (here) runs the parts: events.py builds the events it reads (messages and
canvas nodes), cues.py holds the correction cues, scoring.py scores the subjects a mention may
be about, apply_event.py applies each event to the subjects (ambiguity.py: which of several equally
matching subjects a correction replaces; weekday_moves.py: weekday corrections), result.py is
`RetiredValues`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..name_mentions import NameSpan
from ..ranking import parse_timestamp
from ..types import MessageData, NodeData
from ..value_mentions.mention import Mention, same_value
from .apply_event import _apply
from .cues import _CUE_WORDS
from .events import (
    _again_sentences,
    _canvas_events,
    _cue_sentences,
    _cued_clauses,
    _cued_text_sentences,
    _Event,
    _mentions,
    _plain_sentences,
    _ValueSet,
)
from .names import message_names
from .result import NOW_MARKER, OLD_MARKER, RetiredValues
from .scoring import _PROPER, _WEIGHTS, _Slot, proper_name_words
from .shifts import shift_sentences

if TYPE_CHECKING:
    from ..tokens import TokenCache

__all__ = ["NOW_MARKER", "OLD_MARKER", "RetiredValues", "_ValueSet", "build_ledger"]


def build_ledger(
    *,
    messages: Sequence[MessageData],
    nodes: Sequence[NodeData] = (),
    cache: TokenCache | None = None,
    memo: Callable[[str, Callable[[], Any]], Any] | None = None,
) -> RetiredValues:
    """Retired value mentions of `messages` (the whole history, oldest first) given the canvas `nodes`.

    `memo` (CanvasIndex.derived) keeps the canvas's own value changes between compiles: reading them
    walks every node, ~25 ms per compile at 10,000 nodes with a chat that states values.
    """
    events: list[_Event] = []
    names = message_names(messages, cache)
    for pos, m in enumerate(messages):
        if m.role == "tool":
            continue
        mentions = _mentions(m, cache, names[pos])
        if not mentions:
            continue
        when = parse_timestamp(m.created_at)
        cue, cued_text, plain, again, shifts, cued_clauses = _sentences(m, mentions, names[pos], cache)
        events.append(
            _Event(
                time=when,
                order=pos,
                role=m.role,
                position=pos,
                mentions=mentions,
                cue_sentences=cue,
                cued_text_sentences=cued_text,
                plain_sentences=plain,
                again_sentences=again,
                shifts=shifts,
                cued_clauses=cued_clauses,
            )
        )
    if not events:
        # No message states a value, so nothing can be retired in one (canvas events alone only
        # own slots at position -1). Skips the pass over every node: a preview without a
        # conversation on a 100,000-node canvas spent seconds in it.
        return RetiredValues()
    canvas_events = (
        memo("value-ledger-canvas-events", lambda: _canvas_events(nodes, cache))
        if memo is not None
        else _canvas_events(nodes, cache)
    )
    events.extend(_reaching_the_conversation(canvas_events, events))
    # Canvas events without a time go last; the others by time, then the conversation's order, then
    # the canvas's (after every message of the same time).
    events.sort(key=lambda e: (e.time is None, e.time or 0.0, e.role == "canvas", e.order))
    df: dict[str, int] = {}
    for ev in events:
        for w in set().union(*(m.context for m in ev.mentions)):
            df[w] = df.get(w, 0) + 1
    _WEIGHTS.clear()
    _WEIGHTS.update({w: min(1.0, 4.0 / n) for w, n in df.items()})
    _PROPER.clear()
    _PROPER.update(proper_name_words((m for m in messages if m.role != "tool"), cache))
    slots: list[_Slot] = []
    owner: dict[tuple[int, int], _Slot] = {}
    for ev in events:
        _apply(ev, slots, owner)
    result = RetiredValues()
    for (pos, start), slot in owner.items():
        if pos < 0:
            continue
        mention = next(x for x in _event_mentions(events, pos) if x.start == start)
        if not any(same_value(mention, r) for r in slot.retired):
            continue
        if slot.current is not None and same_value(mention, slot.current):
            continue
        # Inside the message that set the new value the old one is only named ("not Fergus. Fergus
        # is her husband"): it reads "[old value]", not "now <new>" about another sentence's subject.
        live = _live_value(slot, slots) if not mention.negated and slot.stated_in != pos else None
        now = live.raw if live is not None else ""
        if now and live is not None and not mention.unit_text:
            now += live.unit_text  # the unit as written, unless the old mention's own follows
        marker = NOW_MARKER.format(value=now) if now and "]" not in now and len(now) <= 40 else OLD_MARKER
        result.by_position.setdefault(pos, []).append((mention, marker))
        result.count += 1
    return result


def _live_value(slot: _Slot, slots: Sequence[_Slot]) -> Mention | None:
    """The value a marker on one of `slot`'s retired mentions may name: its current value, unless
    that value is retired too (B replaced by C in another subject, or by a canvas supersede). Then
    the value that replaced it, when the subject that retired it clearly is the same one (it
    shares at least two subject words, half of the smaller subject's), else none: a marker never
    names a retired value."""
    here, current, seen = slot, slot.current, {id(slot)}
    while current is not None:
        value = current
        retiring = [
            s
            for s in slots
            if id(s) not in seen
            and not (s.current is not None and same_value(value, s.current))
            and any(same_value(value, r) for r in s.retired)
        ]
        if not retiring:
            return current
        same = [s for s in retiring if _clearly_same(here, s)]
        if not same:
            return None
        here = max(same, key=lambda s: len(_subject(here) & _subject(s)))
        seen.add(id(here))
        current = here.current
    return None


def _subject(s: _Slot) -> set[str]:
    return {w for w in s.words if w not in _CUE_WORDS}


def _clearly_same(a: _Slot, b: _Slot) -> bool:
    shared = len(_subject(a) & _subject(b))
    return shared >= 2 and 2 * shared >= min(len(_subject(a)), len(_subject(b)))


_SentenceKinds = tuple[
    frozenset[int],
    frozenset[int],
    frozenset[int],
    frozenset[int],
    tuple[tuple[int, int], ...],
    frozenset[int],
]


def _sentences(
    m: MessageData, mentions: tuple[Mention, ...], names: tuple[NameSpan, ...], cache: TokenCache | None
) -> _SentenceKinds:
    """A message's cued, cued-text, plain and "again" sentences and its date shifts, kept with its
    mentions: reading the cues was a third of a warm build once messages that name a value without
    digits became events."""

    def read() -> _SentenceKinds:
        plain = _plain_sentences(m.content) if m.role == "assistant" else frozenset()
        user = m.role == "user"
        again = _again_sentences(m.content) if user else frozenset()
        shifts = shift_sentences(m.content) if user and any(x.type == "date" for x in mentions) else ()
        return (
            _cue_sentences(m.content, mentions),
            _cued_text_sentences(m.content),
            plain,
            again,
            shifts,
            _cued_clauses(m.content, mentions),
        )

    if cache is None:
        return read()
    return cache.memo(key=("value-cues-2", m.id, m.role, names), source=m.content, compute=read)


def _event_mentions(events: Sequence[_Event], pos: int) -> tuple[Mention, ...]:
    for e in events:
        if e.position == pos and e.role != "canvas":
            return e.mentions
    return ()


def _reaching_the_conversation(
    canvas_events: Sequence[_Event], message_events: Sequence[_Event]
) -> list[_Event]:
    """The canvas events that can touch a subject the conversation opened.

    A canvas event never opens a subject; it changes one whose value it names or whose words it
    shares (apply_event._apply), and the subjects' values and words come from the messages and from
    the canvas events applied before. So an event sharing no value and no word with those, directly
    or through another such event, changes nothing: leaving it out keeps a compile on a large canvas
    from walking every supersede and archive in it.
    """
    values = _ValueSet()
    words: set[str] = set()
    for ev in message_events:
        values.update(ev.mentions)
        for m in ev.mentions:
            words |= m.context
    kept: list[_Event] = []
    waiting = list(canvas_events)
    while waiting:
        still: list[_Event] = []
        for ev in waiting:
            if any(m in values or not words.isdisjoint(m.context | ev.node_words) for m in ev.mentions):
                kept.append(ev)
                values.update(ev.mentions)
                for m in ev.mentions:
                    words |= m.context | ev.node_words
            else:
                still.append(ev)
        if len(still) == len(waiting):
            break
        waiting = still
    return kept
