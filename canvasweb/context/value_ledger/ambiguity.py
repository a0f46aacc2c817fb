"""Which of several matching subjects a correction replaces.

A correction often matches more than one subject as well as another: the items of one list, every
value said with a common word, a value said beside the change. These rules pick the subjects it
names, or none when nothing tells them apart: a missed retirement leaves a stale value beside the
current one, a wrong one hides a current value behind "[old value → now …]".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..capture.values import compatible
from ..value_mentions.mention import Mention, same_value
from .cues import _CUE_WORDS
from .events import _Event
from .scoring import _Slot, _word_overlap


def _as_float(number: str) -> float | None:
    try:
        return float(number)
    except ValueError:
        return None


def _without_weaker_siblings(
    m: Mention,
    chosen: list[tuple[float, _Slot, bool]],
    scored: Sequence[tuple[float, float, _Slot, bool]],
    mentions: Sequence[Mention],
) -> list[tuple[float, _Slot, bool]]:
    """Of subjects whose values one message stated together (items of a list: "the spring code
    gives 12 % off. The student code gives 8 %"), a correction replaces only the one it matches
    best; the others are facts of their own, however many words they share. Best = most shared
    subject words, then most shared words of the sentence each value was said in (a clause
    in brackets often holds the words that tell the items apart)."""
    overlap = {id(s): ov for _sc, ov, s, _same in scored}
    said = m.sentence_words | m.context

    def closeness(s: _Slot) -> tuple[float, float]:
        stated = s.current or (s.retired[-1] if s.retired else None)
        around = stated.sentence_words if stated is not None else frozenset()
        return overlap[id(s)], _word_overlap(said, around)

    best_of: dict[int, tuple[float, float]] = {}
    for _sc, s, same in chosen:
        if not same and s.stated_in >= 0:
            best_of[s.stated_in] = max(best_of.get(s.stated_in, (0.0, 0.0)), closeness(s))
    best = [c for c in chosen if c[2] or c[1].stated_in < 0 or closeness(c[1]) >= best_of[c[1].stated_in]]
    # Siblings tied on both: nothing tells them apart. One that the correction's sentence states again
    # keeps its value ("41 of 42 back now" after "37 of 42 back"). The others are replaced when that
    # sentence states as many new values of their kind ("是B座612和614" for "B座512和514"); one new
    # value names none of them ("the room is ours from 13:00" is no new time for every item of a
    # running order).
    in_sentence = [
        x for x in mentions if x.sentence == m.sentence and not x.negated and compatible(x.type, m.type)
    ]
    tied: dict[int, list[_Slot]] = {}
    for _sc, s, same in best:
        if not same and s.stated_in >= 0:
            tied.setdefault(s.stated_in, []).append(s)
    kept: list[tuple[float, _Slot, bool]] = []
    for c in best:
        if c[2] or c[1].stated_in < 0:
            kept.append(c)
            continue
        group = tied[c[1].stated_in]
        if len(group) == 1:
            kept.append(c)
            continue
        olds = [s.current for s in group if s.current is not None]
        current = c[1].current
        if current is not None and any(same_value(x, current) for x in in_sentence):
            continue  # restated, unchanged
        new: dict[str, Mention] = {}
        for x in sorted(in_sentence, key=lambda x: x.start):
            if not any(same_value(x, o) for o in olds):
                new.setdefault(x.key, x)
        changing = [
            s for s in group if s.current is None or not any(same_value(x, s.current) for x in in_sentence)
        ]
        if len(changing) > max(1, len(new)):
            continue
        if len(changing) == len(new) > 1 and m.key in new:
            # item for item, in the order both were said: 401 replaces 301, 403 replaces 303
            order = sorted(changing, key=_said_at)
            if order[list(new).index(m.key)] is not c[1]:
                continue
        kept.append(c)
    return kept


def _closest_sentence(
    m: Mention, changed: list[tuple[float, _Slot, bool]]
) -> list[tuple[float, _Slot, bool]]:
    """The subject whose value was said in the sentence closest to `m`'s (and the one before it:
    "deposit deadline was friday. final figure is 41 pupils"), or the two, if no third is as close."""
    around = m.sentence_words | m.previous_words

    def closeness(s: _Slot) -> float:
        said = s.current or (s.retired[-1] if s.retired else None)
        return _word_overlap(around, said.sentence_words) if said is not None else 0.0

    ranked = sorted(changed, key=lambda c: -closeness(c[1]))
    top = [c for c in ranked if closeness(c[1]) >= closeness(ranked[0][1])]
    # two subjects as close give way together, as a value said on the canvas and in chat does
    return top if closeness(ranked[0][1]) > 0 and len(top) <= 2 else []


def _beside_the_change(m: Mention, ev: _Event) -> bool:
    """`m` stands outside the clauses that carry the message's cue while a value of its kind stands
    in one: it is said beside the change, not as part of it."""
    return (
        bool(ev.cued_clauses)
        and m.type != "name"  # a name's part in a change is read from its own frame (names.py)
        and not m.changed_to
        and m.start not in ev.cued_clauses
        and any(x is not m and x.start in ev.cued_clauses and compatible(x.type, m.type) for x in ev.mentions)
    )


def _subject_words(s: _Slot) -> set[str]:
    return {w for w in s.words if w not in _CUE_WORDS}


def _amount(m: Mention) -> float | None:
    """The quantity a money, count, duration or plain number mention states, for comparing sizes."""
    if m.type in ("money", "duration"):
        return _as_float(m.key.split(":", 1)[-1])
    if m.type in ("number", "count", "percent"):
        return _as_float(m.key if m.type == "count" else m.number)
    return None


def _nearest_amount(m: Mention, subjects: list[_Slot]) -> _Slot | None:
    """The subject whose amount is clearly nearest `m`'s (within half the other's distance, as a
    ratio), or None."""
    new = _amount(m)
    if not new or new <= 0:
        return None
    distance: list[tuple[float, _Slot]] = []
    for s in subjects:
        old = _amount(s.current) if s.current is not None else None
        if not old or old <= 0:
            return None
        distance.append((abs(math.log(new / old)), s))
    distance.sort(key=lambda d: d[0])
    return distance[0][1] if distance[0][0] < 0.5 * distance[1][0] else None


def _said_at(s: _Slot) -> tuple[int, int]:
    said = s.current or (s.retired[-1] if s.retired else None)
    return (s.stated_in, said.start if said is not None else 0)
