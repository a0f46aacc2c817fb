"""Which values in the history are retired, by subject: a store of subjects and their current values.

The conversation is read oldest first, with the canvas's supersedes and
archives put in at the time they happened. Every value mention
(value_mentions.py) either joins a *subject* (a slot: the words said around
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
  they echo.

A value said again later by the user as current is current again (A -> B -> A).
`RetiredValues.rewrite` replaces each retired mention in a message by
`[old value → now <current>]` (or `[old value]` when there is no current value,
and inside the message that retires it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .capture.values import compatible
from .ranking import parse_timestamp
from .sentences import CORRECTION_RE
from .types import MessageData, NodeData
from .value_mentions import Mention, find_mentions, same_value, sentence_spans, subject_words

if TYPE_CHECKING:
    from .tokens import TokenCache

_CUE_RE = re.compile(
    r"\b(?:now|no longer|final(?:ly)?|instead|changed?|moved?|switch(?:ed)?|push(?:ed)?|revised|updated?|new|"
    r"turns out|after all|anymore|any more|scratch|correct(?:ion)?|actually|can'?t|cannot|couldn'?t|won'?t|unavailable|"
    # a speaker taking back what was just said, or a value that went up or down
    r"wait|hang on|hold on|sorry|wrong|mistake|misread|typo|make (?:it|that)|(?:down|up) to|"
    r"rais(?:e|ed|ing)|lower(?:ed)?|drop(?:s|ped)?|bump(?:ed)?|settled?|going with|in the end)\b"
    r"|不能|没法|不了|最终|定了|之前|刚才|又|正式|换了|更新|变了|改|延|推迟|提前|调整|其实|现在|重新|最后|"
    # 以…为准, 不再, 最新, 说错/记错, 追加/涨到/降到, 按…来/准备/算: 说法不同, 都是改口
    r"以.{1,16}?为准|不再|最新|错|不对|作废|追加|涨|降|增加到|减少到|按.{1,12}?(?:来|准备|算|执行)",
    re.IGNORECASE,
)
NEAR_BEST = 0.6
# Without a correction cue, a statement replaces a value only when most of its subject words are that subject's.
UNCUED_SHARE = 0.67
OLD_NAMED_BONUS = 2.0
# A cued correction that counts the same noun as a subject's value ("… is 40" for "48 seats").
NOUN_BONUS = 1.0
OLD_MARKER = "[old value]"
NOW_MARKER = "[old value → now {value}]"


@dataclass(slots=True)
class _Slot:
    kind: str
    words: set[str]
    current: Mention | None
    retired: list[Mention] = field(default_factory=list)
    since: int = -2  # the event whose statement made `current` current


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


def _cue_sentences(text: str, mentions: Sequence[Mention]) -> frozenset[int]:
    sentences = re.split(r"(?<=[。！？!?\n])|(?<=\.)\s", text)
    cued = {i for i, s in enumerate(sentences) if _CUE_RE.search(s) or CORRECTION_RE.search(s)}
    # sentence numbering in mentions follows value_mentions' own split; a cue anywhere in the
    # message counts for a short message, and per sentence otherwise
    if cued and len(sentences) <= 2:
        return frozenset(m.sentence for m in mentions)
    return frozenset(m.sentence for m in mentions if m.sentence in cued) if cued else frozenset()


def _cued_text_sentences(text: str) -> frozenset[int]:
    """Indices of the sentences (numbered as value_mentions numbers them) that carry a cue."""
    spans = sentence_spans(text)
    return frozenset(
        i for i, (a, b) in enumerate(spans) if _CUE_RE.search(text[a:b]) or CORRECTION_RE.search(text[a:b])
    )


# Advice, conditions and questions: a reply that says them reports no change.
_HEDGE_RE = re.compile(
    r"\b(?:could|would|should|might|maybe|perhaps|suggest|recommend|if|how about|what about|option|consider)\b"
    r"|[?？]|建议|可以|如果|要不|或者|考虑|是否|吗",
    re.IGNORECASE,
)


def _plain_sentences(text: str) -> frozenset[int]:
    """Indices of the sentences (numbered as value_mentions numbers them) that neither ask nor advise."""
    return frozenset(i for i, (a, b) in enumerate(sentence_spans(text)) if not _HEDGE_RE.search(text[a:b]))


class RetiredValues:
    """The result: per message position, the spans to rewrite."""

    def __init__(self) -> None:
        self.by_position: dict[int, list[tuple[Mention, str]]] = {}
        self.count = 0

    def rewrite(self, position: int, text: str, original: str | None = None) -> str:
        """`text` with the retired values of message `position` replaced by their markers.

        `original` is the message as the ledger read it, when `text` is already a rewritten
        version (sentences retired whole): each value is found again by the words before it,
        and values whose sentence is gone are skipped."""
        spans = self.by_position.get(position)
        if not spans:
            return text
        source = text if original is None else original
        out, last = [], 0
        for m, marker in sorted(spans, key=lambda s: s[0].start):
            if source[m.start : m.end] != m.raw:
                continue  # the message changed since the mention was read
            if original is None:
                at = m.start if m.start >= last else -1
            else:
                at = _relocate(m, source, text, last)
            if at < 0:
                continue
            out.append(text[last:at])
            out.append(marker)
            last = at + len(m.raw)
        out.append(text[last:])
        return "".join(out)

    def __bool__(self) -> bool:
        return bool(self.by_position)


_WEIGHTS: dict[str, float] = {}


def _occurrences(text: str, raw: str) -> list[int]:
    out, i = [], text.find(raw)
    while i >= 0:
        out.append(i)
        i = text.find(raw, i + 1)
    return out


def _relocate(m: Mention, original: str, text: str, after: int) -> int:
    """Where mention `m` of `original` is in the rewritten `text`, or -1 when its sentence is gone."""
    lead = original[max(0, m.start - 12) : m.start]
    found = text.find(lead + m.raw, after)
    if found >= 0:
        return found + len(lead)
    before, now = _occurrences(original, m.raw), _occurrences(text, m.raw)
    if len(before) == len(now) and m.start in before:
        at = now[before.index(m.start)]
        return at if at >= after else -1
    return -1


def _overlap(words: frozenset[str], slot: _Slot) -> float:
    """Shared subject words, a word said in many messages counting less (min(1, 4 / messages)).
    Words that say "this changed" ("update", "now", "最新", "改成") are about no subject."""
    return sum(_WEIGHTS.get(w, 1.0) for w in words & slot.words if w not in _CUE_WORDS)


def _shared(words: frozenset[str], slot: _Slot, common_unit: str = "") -> int:
    """How many subject words a statement shares with a subject, unweighted (cue words left out,
    and the unit word when other subjects are measured in it too: "litres" names no tank)."""
    return sum(1 for w in words & slot.words if w not in _CUE_WORDS and w != common_unit)


def _is_cue_word(w: str) -> bool:
    return bool(_CUE_RE.fullmatch(w) or CORRECTION_RE.fullmatch(w))


class _CueWords:
    """`w in _CUE_WORDS`: a subject word that is a correction cue on its own, memoized."""

    def __init__(self) -> None:
        self._seen: dict[str, bool] = {}

    def __contains__(self, w: object) -> bool:
        if not isinstance(w, str):
            return False
        got = self._seen.get(w)
        if got is None:
            got = self._seen[w] = _is_cue_word(w) or w in _CUE_STEMS
        return got


# Stems of cue words as the tokenizer leaves them ("update" -> "updat", "moved" -> "mov").
_CUE_STEMS = frozenset(
    "updat now new actually final finally instead chang mov switch correct correction scratch turn wrong "
    "wait sorry still again revis latest".split()
)
_CUE_WORDS = _CueWords()


def _same_kind(a: Mention, kind: str, b: Mention | None) -> bool:
    """A value can replace one of the same kind and shape: a port a port, a date a date; a bare
    number only a number of about as many digits ("5433" -> "5434", not "16" -> "5433")."""
    if not (compatible(a.type, kind) or compatible(kind, a.type)):
        return False
    if b is None or (a.type not in _NUMERIC and b.type not in _NUMERIC):
        return True
    if not (a.number and b.number) or ("." in a.number) != ("." in b.number):
        return False
    if a.unit and b.unit and a.unit != b.unit:
        return False  # "12 pages" and "10 sites" are about different things
    if (a.type == "percent") != (b.type == "percent") and (a.type == "percent" or a.unit):
        return False  # "below 25%" is no count of gateways nor a 15-minute interval
    slack = 1 if {a.type, b.type} & {"count", "percent"} or (a.unit and a.unit == b.unit) else 0
    return abs(len(a.number.split(".")[0]) - len(b.number.split(".")[0])) <= slack


_NUMERIC = frozenset({"number", "count", "port", "percent"})


def build_ledger(
    *, messages: Sequence[MessageData], nodes: Sequence[NodeData] = (), cache: TokenCache | None = None
) -> RetiredValues:
    """Retired value mentions of `messages` (the whole history, oldest first) given the canvas `nodes`."""
    events: list[_Event] = []
    for pos, m in enumerate(messages):
        if m.role == "tool":
            continue
        mentions = _mentions(m, cache)
        if not mentions:
            continue
        when = parse_timestamp(m.created_at)
        events.append(
            _Event(
                time=when,
                order=pos,
                role=m.role,
                position=pos,
                mentions=mentions,
                cue_sentences=_cue_sentences(m.content, mentions),
                cued_text_sentences=_cued_text_sentences(m.content),
                plain_sentences=_plain_sentences(m.content) if m.role == "assistant" else frozenset(),
            )
        )
    if not events:
        # No message states a value, so nothing can be retired in one (canvas events alone only
        # own slots at position -1). Skips the pass over every node: a preview without a
        # conversation on a 100,000-node canvas spent seconds in it.
        return RetiredValues()
    events.extend(_canvas_events(nodes, len(messages), cache))
    # Canvas events without a time go last; the others by time, then conversation order.
    events.sort(key=lambda e: (e.time is None, e.time or 0.0, e.order, e.role == "canvas"))
    df: dict[str, int] = {}
    for ev in events:
        for w in set().union(*(m.context for m in ev.mentions)):
            df[w] = df.get(w, 0) + 1
    _WEIGHTS.clear()
    _WEIGHTS.update({w: min(1.0, 4.0 / n) for w, n in df.items()})
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
        now = slot.current.raw if slot.current is not None and not mention.negated else ""
        if now and slot.current is not None and not mention.unit_text:
            now += slot.current.unit_text  # the unit as written, unless the old mention's own follows
        marker = NOW_MARKER.format(value=now) if now and "]" not in now and len(now) <= 40 else OLD_MARKER
        result.by_position.setdefault(pos, []).append((mention, marker))
        result.count += 1
    return result


def _event_mentions(events: Sequence[_Event], pos: int) -> tuple[Mention, ...]:
    for e in events:
        if e.position == pos and e.role != "canvas":
            return e.mentions
    return ()


def _mentions(m: MessageData, cache: TokenCache | None) -> tuple[Mention, ...]:
    if cache is None:
        return find_mentions(m.content)
    return cache.memo(
        key=("value-mentions", m.id), source=m.content, compute=lambda: find_mentions(m.content)
    )


def _node_mentions(n: NodeData, cache: TokenCache | None) -> tuple[Mention, ...]:
    if cache is None:
        return find_mentions(n.content)
    return cache.memo(
        key=("value-mentions-node", n.id, n.version),
        source=n.content,
        compute=lambda: find_mentions(n.content),
    )


def _canvas_events(
    nodes: Sequence[NodeData], n_messages: int, cache: TokenCache | None = None
) -> list[_Event]:
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
        order = n_messages + i
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
    return out


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


def _apply(ev: _Event, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]) -> None:
    user_like = ev.role in ("user", "canvas")
    named_old: set[int] = set()  # ids of slots whose value this event names as the old one
    for m in ev.mentions:
        if not m.negated:
            continue
        words = m.context | ev.node_words
        holders = [s for s in slots if s.current is not None and same_value(m, s.current)]
        holders += [s for s in slots if s not in holders and any(same_value(m, r) for r in s.retired)]
        if ev.role == "canvas":
            holders = [s for s in holders if words & s.words]
        best = max(holders, key=lambda s: (_overlap(words, s), slots.index(s)), default=None)
        if best is None:
            if ev.role != "canvas":
                slot = _Slot(kind=m.type, words=set(m.context), current=None, retired=[m])
                slots.append(slot)
                owner[(ev.position, m.start)] = slot
            continue
        if user_like and best.current is not None and same_value(m, best.current):
            best.retired.append(best.current)
            best.current = None
        best.words |= m.context
        named_old.add(id(best))
        if ev.position >= 0:
            owner[(ev.position, m.start)] = best
    # Slots whose value the same message names (non-negated) next to a new value of its kind.
    for m in ev.mentions:
        if m.negated:
            continue
        for s in slots:
            if (
                s.current is not None
                and same_value(m, s.current)
                and any(
                    x is not m and not x.negated and compatible(x.type, s.kind) and not same_value(x, m)
                    for x in ev.mentions
                )
                and m.sentence in ev.cue_sentences
            ):
                named_old.add(id(s))
    for m in ev.mentions:
        if m.negated:
            continue
        if m.question and ev.role == "user" and _join_asked(m, ev, slots, owner):
            continue
        if user_like and ev.position >= 0:
            # The old value named beside the new one in the same correction ("dinner is £52 a head,
            # the £48 was last year's"): it is the value this message just retired.
            just_retired = [
                s
                for s in slots
                if s.since == ev.order and s.current is not m and any(same_value(m, r) for r in s.retired)
            ]
            if just_retired:
                owner[(ev.position, m.start)] = just_retired[0]
                continue
        if m.share:
            _open_share(m, ev, slots, owner)
            continue
        words = m.context | ev.node_words
        cands = [
            s for s in slots if _same_kind(m, s.kind, s.current or (s.retired[-1] if s.retired else None))
        ]
        cued = m.sentence in ev.cue_sentences or _cue_just_before(m, ev)
        user_like = ev.role in ("user", "canvas") or _reports_a_change(m, ev)
        scored = _score(m, words, cands, ev, named_old, cued)
        if not scored and cued and user_like and ev.role != "canvas":
            # A correction often names its subject in another clause ("scratch that build number,
            # we pushed 0.9.417"): try the whole sentence's words.
            # A correction may also name its subject in the sentence before, when that one is the
            # cue ("We're not doing X any more. It's Y now.").
            around = m.sentence_words | (
                m.previous_words if m.sentence - 1 in ev.cued_text_sentences else frozenset()
            )
            wide = [c for c in _score(m, around | words, cands, ev, named_old, cued) if c[0] >= 1.0]
            scored = (
                sorted(wide, key=lambda c: -c[1])[:1]
                if len(wide) == 1
                or (len(wide) > 1 and sorted(c[1] for c in wide)[-2] < NEAR_BEST * max(c[1] for c in wide))
                else []
            )
        if not scored:
            if ev.role != "canvas":
                slot = _Slot(kind=m.type, words=set(m.context), current=m, since=ev.order)
                slots.append(slot)
                if ev.position >= 0:
                    owner[(ev.position, m.start)] = slot
            continue
        best_overlap = max(ov for _, ov, _, _ in scored)
        chosen = [
            (sc, s, same)
            for sc, ov, s, same in scored
            if ov >= NEAR_BEST * best_overlap or id(s) in named_old or same
        ]
        # A value this message names as the old one beside its replacement is that subject's: it
        # joins it and states nothing for any other subject.
        named_here = [
            c
            for c in scored_named(scored, named_old)
            if c[1].current is not None and same_value(m, c[1].current)
        ]
        if named_here:
            chosen = named_here
        if not user_like:
            # An echo joins the subject whose value it repeats; it never replaces a value.
            echo = [c for c in scored if c[3]] or [
                c for c in scored if c[2].current is None and any(same_value(m, r) for r in c[2].retired)
            ]
            if echo:
                s = max(echo, key=lambda c: c[1])[2]
                s.words |= m.context
                owner[(ev.position, m.start)] = s
            else:
                slot = _Slot(kind=m.type, words=set(m.context), current=m, since=ev.order)
                slots.append(slot)
                owner[(ev.position, m.start)] = slot
            continue
        home = None
        for _rank, s, _same in sorted(chosen, key=lambda c: -c[0]):
            if s.current is not None and not same_value(m, s.current):
                s.retired.append(s.current)
                s.since = ev.order
            s.retired = [r for r in s.retired if not same_value(m, r)]  # said again: current again
            s.current = m
            s.words |= m.context
            home = home or s
        if ev.position >= 0 and home is not None:
            owner[(ev.position, m.start)] = home


def _open_share(m: Mention, ev: _Event, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]) -> None:
    """A share of another quantity ("€7,600, half of the new total") is a subject of its own: it
    joins a subject that already holds that value, or opens one, and never replaces the quantity
    it is a share of."""
    holder = next((s for s in slots if s.current is not None and same_value(m, s.current)), None)
    if holder is None:
        holder = _Slot(kind=m.type, words=set(m.context), current=m, since=ev.order)
        slots.append(holder)
    else:
        holder.words |= m.context
    if ev.position >= 0:
        owner[(ev.position, m.start)] = holder


def scored_named(
    scored: Sequence[tuple[float, float, _Slot, bool]], named_old: set[int]
) -> list[tuple[float, _Slot, bool]]:
    """The scored subjects this event names as old, as (score, slot, same) like `chosen`."""
    return [(sc, s, same) for sc, _ov, s, same in scored if id(s) in named_old]


def _reports_a_change(m: Mention, ev: _Event) -> bool:
    """A reply that reports a change as done ("TAP changed my flight, I'm on TP1363 now") is a
    correction like the user's: its cued sentence states this one value of its kind, plainly. Advice
    ("we could move it to 10:00?") and sentences with several values of a kind (a sum, a comparison)
    are not."""
    return (
        ev.role == "assistant"
        and m.sentence in ev.plain_sentences
        and m.sentence in ev.cue_sentences
        and sum(1 for x in ev.mentions if x.sentence == m.sentence and compatible(x.type, m.type)) == 1
    )


def _cue_just_before(m: Mention, ev: _Event) -> bool:
    """The sentence before states no value and carries the cue: "Committee finally settled it.
    Adults at £17." / "起点换了。以东门为准…"."""
    before = m.sentence - 1
    return (
        ev.role == "user"
        and before in ev.cued_text_sentences
        and not any(x.sentence == before for x in ev.mentions)
    )


def _join_asked(m: Mention, ev: _Event, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]) -> bool:
    """A value in a question asserts nothing ("I said 10 November last time, right?"): it joins the
    subject that holds it, as current or as retired, and is rewritten like that subject's other
    mentions. False when no subject holds it (the question may then state a value of its own)."""
    holders = [
        s
        for s in slots
        if (s.current is not None and same_value(m, s.current)) or any(same_value(m, r) for r in s.retired)
    ]
    if not holders:
        return False
    best = max(holders, key=lambda s: (_overlap(m.context, s), slots.index(s)))
    if ev.position >= 0:
        owner[(ev.position, m.start)] = best
    return True


def _slot_unit(s: _Slot) -> str:
    old = s.current or (s.retired[-1] if s.retired else None)
    return old.unit if old is not None else ""


def _counts_the_same_noun(m: Mention, words: frozenset[str], s: _Slot) -> bool:
    """The correction counts what the subject's value counts: "48 seats" and "the seated maximum is
    40" (a count's noun is the strongest word of its subject; it weighs only when no other subject
    counts it). Generic measure words (人, 个, 名) and short words do not count."""
    noun = _slot_unit(s)
    if not noun or (noun.isascii() and len(noun) < 3) or (not noun.isascii() and len(noun) < 2):
        return False
    return noun == m.unit or noun in words


def _score(
    m: Mention, words: frozenset[str], cands: Sequence[_Slot], ev: _Event, named_old: set[int], cued: bool
) -> list[tuple[float, float, _Slot, bool]]:
    """(score, overlap, slot, same value?) of the subjects `m` may be about."""
    scored: list[tuple[float, float, _Slot, bool]] = []
    unit_peers: dict[str, list[_Slot]] = {}

    def noun_peers(unit: str) -> list[_Slot]:
        """The candidate subjects whose value has this unit (or counts this noun)."""
        if unit not in unit_peers:
            unit_peers[unit] = [s for s in cands if _slot_unit(s) == unit]
        return unit_peers[unit]

    if cued and m.unit:
        noun_peers(m.unit)
    for s in cands:
        same = s.current is not None and same_value(m, s.current)
        if s.since == ev.order and not same:
            continue  # two values in one message are two facts, not a correction
        overlap = _overlap(words, s)
        if (
            same
            and ev.role == "user"
            and s.since != ev.order  # said twice in one message: one fact ("£18 … thinks £18 is steep")
            and overlap < max(1.0, 0.5 * sum(_WEIGHTS.get(w, 1.0) for w in m.context))
        ):
            same = False  # the same value said about something else ("the offsite opens 11 August too")
        score = overlap + (OLD_NAMED_BONUS if id(s) in named_old else 0.0) + (1.0 if same else 0.0)
        if cued and not same and _counts_the_same_noun(m, words, s) and noun_peers(_slot_unit(s)) == [s]:
            score += NOUN_BONUS
        if same and ev.role == "assistant" and not (overlap or not m.context):
            continue
        if same or id(s) in named_old:
            need = 1.0
        elif ev.role == "canvas":
            need = 1.5
        elif cued:
            # A short correction ("体检刚才说错了，改到 6月10日") needs one shared word; a longer one two;
            # none when the subject is the only one whose value has this unit ("5,000 mAh" for
            # "3,400 mAh", "3150千伏安" for "2500千伏安"), said by another name.
            common = m.unit if m.unit and len(noun_peers(m.unit)) > 1 else ""
            shared = _shared(words, s, common)
            need = (
                1.0
                if shared >= 2
                or sum(1 for w in words if w not in _CUE_WORDS) <= 3
                or (shared and 2 * shared >= len(s.words))  # a subject of few words, one of them named
                or (shared and m.changed_to)  # "moved us to 5434" with one subject word in the sentence
                or (m.unit and unit_peers.get(m.unit) == [s])
                else 1.5
            )
            # In a correction each shared subject word counts in full: the subject a correction
            # names is often the one the conversation keeps coming back to (a frequent word).
            in_words = float(shared) + (score - overlap)
            score = in_words if common and common in words & s.words else max(score, in_words)
            if m.unit and unit_peers.get(m.unit) == [s] and not same:
                score = max(score, 1.0)
        else:
            need = max(2.0, UNCUED_SHARE * sum(_WEIGHTS.get(w, 1.0) for w in m.context))
        if score >= need and score > 0:
            scored.append((score, overlap, s, same))
    return scored
