"""Which subjects a mention may be about, and how well: shared words, kinds of value, the thresholds.

A subject (`_Slot`) is the words said around its values and the value current for it.
`_WEIGHTS` (a word said in many messages counts less) is set by `build_ledger` for each history.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..capture.values import compatible
from ..synonyms import noun_family
from ..types import MessageData
from ..value_mentions.mention import Mention, distinct_units, same_value
from ..value_mentions.words import subject_words
from .cues import _CUE_WORDS
from .events import _Event

if TYPE_CHECKING:
    from ..tokens import TokenCache

NEAR_BEST = 0.6
# Without a correction cue, a statement replaces a value only when most of its subject words are that subject's.
UNCUED_SHARE = 0.67
OLD_NAMED_BONUS = 2.0
# A cued correction that counts the same noun as a subject's value ("… is 40" for "48 seats").
NOUN_BONUS = 1.0


@dataclass(slots=True)
class _Slot:
    kind: str
    words: set[str]
    current: Mention | None
    retired: list[Mention] = field(default_factory=list)
    since: int = -2  # the event whose statement made `current` current
    set_by: tuple[int, int] | None = (
        None  # (event, sentence) of a correction that set `current` after naming the old
    )
    stated_in: int = -1  # the message that stated `current` (-1: a canvas event or none)


_WEIGHTS: dict[str, float] = {}
# Subject words that are proper names in this history (a person, a firm, a place written with a capital
# mid-sentence: "Gaz", "Dalesway"), set by `build_ledger`. A correction that names the same rare name
# as a statement is about what that name does ("Dalesway can't be there before half eight" after
# "Dalesway's crew will be at Mill Lane for 07:30"): such a word counts as two shared words.
_PROPER: set[str] = set()


def _overlap(words: frozenset[str], slot: _Slot) -> float:
    """Shared subject words, a word said in many messages counting less (min(1, 4 / messages)).
    Words that say "this changed" ("update", "now", "最新", "改成") are about no subject."""
    return _word_overlap(words, slot.words)


def _word_overlap(words: frozenset[str], other: frozenset[str] | set[str]) -> float:
    return sum(_WEIGHTS.get(w, 1.0) for w in words & other if w not in _CUE_WORDS)


def _shared(words: frozenset[str], slot: _Slot, common_unit: str = "") -> int:
    """How many subject words a statement shares with a subject, unweighted (cue words left out,
    and the unit word when other subjects are measured in it too: "litres" names no tank)."""
    return sum(
        2 if w in _PROPER and _WEIGHTS.get(w, 1.0) >= 1.0 else 1
        for w in words & slot.words
        if w not in _CUE_WORDS and w != common_unit
    )


# Verbs of motion and time that many subjects are said with ("the tour group leaves", "the flight
# leaves", "培训 9 点开始", "晚宴 8 点开始"), as subject words hold them (English stems, jieba words).
GENERIC_VERBS = frozenset(
    "leav left start arriv end finish open clos begin began begun "
    "出发 开始 结束 到达 抵达 离开 开门 关门".split()
)


def _only_a_generic_verb(m: Mention, words: frozenset[str], s: _Slot) -> bool:
    """The statement shares only a verb like "leave" or "开始" with the subject, and its sentence
    names something the subject was never said with ("they moved the return flight, it now leaves
    at 18:05" is no new time for "once the 13:00 school class leaves the gallery"): another subject."""
    shared = {w for w in words & s.words if w not in _CUE_WORDS}
    if not shared or not shared <= GENERIC_VERBS:
        return False
    return any(not _discourse(w) for w in (words | m.sentence_words) - s.words - GENERIC_VERBS)


# Words that take a statement back or soften it ("sorry", "bad news", "说错", "不好意思"): they name
# no other subject.
_DISCOURSE_WORDS = frozenset(
    "sorry bad oop honestly apologis apology wrong mistak "
    "不好意思 好意思 好意 不好 意思 抱歉 对不起 一下 刚才 坏消息 消息".split()
)
_CJK_CUE_RE = re.compile(r"错|更正|纠正|口误")


def _discourse(w: str) -> bool:
    return w in _CUE_WORDS or w in _DISCOURSE_WORDS or (not w.isascii() and bool(_CJK_CUE_RE.search(w)))


def _same_kind(a: Mention, kind: str, b: Mention | None) -> bool:
    """A value can replace one of the same kind and shape: a port a port, a date a date; a bare
    number only a number of about as many digits ("5433" -> "5434", not "16" -> "5433")."""
    if not (compatible(a.type, kind) or compatible(kind, a.type)):
        return False
    if b is None:
        return True
    if a.type not in _NUMERIC and b.type not in _NUMERIC:
        # Amounts two orders of magnitude apart are different things ("坑位费 45 万", "日常价 169 元").
        ma, mb = _magnitude(a), _magnitude(b)
        return ma is None or mb is None or abs(ma - mb) < 2
    if not (a.number and b.number) or ("." in a.number) != ("." in b.number):
        return False
    if distinct_units(a.unit, b.unit):
        return False  # "12 pages" and "10 sites" are about different things
    if (a.type == "percent") != (b.type == "percent") and (a.type == "percent" or a.unit):
        return False  # "below 25%" is no count of gateways nor a 15-minute interval
    # A count, a percentage or a number with the same unit or label ("ICE 599" -> "ICE 1003") may
    # gain a digit; a bare number may not ("16" is no new value of "5433").
    slack = (
        1
        if {a.type, b.type} & {"count", "percent"}
        or (a.unit and b.unit and not distinct_units(a.unit, b.unit))
        or (a.label and a.label == b.label)
        else 0
    )
    return abs(len(a.number.split(".")[0]) - len(b.number.split(".")[0])) <= slack


_NUMERIC = frozenset({"number", "count", "port", "percent"})
_MULTIPLIER_RE = re.compile(r"(亿|万|千|百)|(?<=\d)\s?(bn|billion|mn|million|m|thousand|k)\b", re.I)
_MULTIPLIER_DIGITS = {
    "亿": 8,
    "万": 4,
    "千": 3,
    "百": 2,
    "bn": 9,
    "billion": 9,
    "m": 6,
    "mn": 6,
    "million": 6,
}


def _magnitude(m: Mention) -> int | None:
    """Digits before the decimal point once "万", "k", "million" are applied; None for non-amounts."""
    if m.type != "money" or not m.number:
        return None
    digits = len(m.number.split(".")[0].lstrip("0") or "0")
    mult = _MULTIPLIER_RE.search(m.raw)
    if mult:
        word = (mult.group(1) or mult.group(2)).lower()
        digits += _MULTIPLIER_DIGITS.get(word, 3)
    return digits


def _slot_unit(s: _Slot) -> str:
    old = s.current or (s.retired[-1] if s.retired else None)
    return old.unit if old is not None else ""


def _slot_period(s: _Slot) -> str:
    old = s.current or (s.retired[-1] if s.retired else None)
    return old.period if old is not None else ""


def _counts_the_same_noun(m: Mention, words: frozenset[str], s: _Slot) -> bool:
    """The correction counts what the subject's value counts: "48 seats" and "the seated maximum is
    40" (a count's noun is the strongest word of its subject; it weighs only when no other subject
    counts it). Generic measure words (人, 个, 名) and short words do not count."""
    noun = _slot_unit(s)
    if not noun or (noun.isascii() and len(noun) < 3) or (not noun.isascii() and len(noun) < 2):
        return False
    return noun == m.unit or noun in words or any(noun_family(w) == noun for w in words)


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
    if m.period and sum(1 for s in cands if _slot_period(s) == m.period) > 1:
        # A rate's period ("/month", "per night", "每月") names no subject when several subjects are
        # rates of that period: "$3,650/month" is not about the backups for being monthly too.
        words = words - {m.period, "per"}
    for s in cands:
        same = s.current is not None and same_value(m, s.current)
        if s.since == ev.order and not same:
            continue  # two values in one message are two facts, not a correction
        if not same and s.set_by is not None and s.set_by[0] == ev.order and s.set_by[1] != m.sentence:
            continue  # "2:45am, not 3:15am. Students there by 2:30.": the next sentence is another fact
        if not same and id(s) not in named_old and _only_a_generic_verb(m, words, s):
            continue
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
        if cued and not same and m.type == "ident" and _code_peers(m, cands) == [s]:
            score += NOUN_BONUS  # "改到B2-115" after "展位B2-107": the one subject whose code has this shape
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


def _code_shape(raw: str) -> str:
    """ "B2-107" and "B2-115" are one shape ("B2-999"): the letters and the first digit kept."""
    head = re.match(r"[A-Za-z]*\d?", raw)
    prefix = head.group(0) if head else ""
    return prefix + re.sub(r"\d", "9", re.sub(r"[A-Za-z]", "A", raw[len(prefix) :]))


def _code_peers(m: Mention, cands: Sequence[_Slot]) -> list[_Slot]:
    """The subjects whose current value is a code of `m`'s shape (same prefix, same layout)."""
    shape = _code_shape(m.raw)
    return [
        s
        for s in cands
        if s.current is not None and s.current.type == "ident" and _code_shape(s.current.raw) == shape
    ]


# A capitalised word inside a sentence (not its first word): "rang Gaz", "Dalesway's crew".
_MID_SENTENCE_CAPITAL_RE = re.compile(r"(?<=[a-z0-9,;:)’'] )([A-Z][a-z]{2,})\b")
_NOT_PROPER = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december i'm".split()
)


def proper_name_words(messages: Iterable[MessageData], cache: TokenCache | None = None) -> set[str]:
    """Subject words (as subject_words() leaves them) written with a capital mid-sentence somewhere in
    `messages`, and never in lower case. Each message's words are memoised: this runs every compile."""
    capital: set[str] = set()
    lower: set[str] = set()
    for m in messages:
        if cache is None:
            caps, lows = _case_words(m.content)
        else:

            def words_of(m: MessageData = m) -> tuple[frozenset[str], frozenset[str]]:
                return _case_words(m.content)

            caps, lows = cache.memo(key=("proper-words", m.id), source=m.content, compute=words_of)
        capital.update(caps)
        lower.update(lows)
    return {w for word in capital - lower for w in subject_words(word)}


def _case_words(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(words written with a capital mid-sentence, words written in lower case) of one text."""
    if not text.isascii() and not re.search(r"[A-Z]", text):
        return frozenset(), frozenset()
    caps = frozenset(
        w
        for w in (m.group(1).lower() for m in _MID_SENTENCE_CAPITAL_RE.finditer(text))
        if w not in _NOT_PROPER
    )
    return caps, frozenset(re.findall(r"\b[a-z]{3,}\b", text))
