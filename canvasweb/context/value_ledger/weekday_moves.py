"""Weekday corrections: a day said without a date, and the dates and subjects it can move."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ..capture.values import find_values
from ..capture.weekdays import WEEKDAY_WORD_RE
from ..value_mentions.mention import Mention, same_value
from ..value_mentions.words import WEEKDAY_WORDS, subject_words
from .cues import _CUE_WORDS
from .events import _Event
from .scoring import _overlap, _Slot, _word_overlap
from .shifts import shifted_key


def _weak_day_dropped(
    m: Mention, words: frozenset[str], scored: list[tuple[float, float, _Slot, bool]], old_named: set[int]
) -> list[tuple[float, float, _Slot, bool]]:
    """The weekday written inside a date ("Sat 15 Nov") is weak evidence of its subject: a subject
    that shares only that day with the statement gives way to one that shares another word ("the
    tasting is moving to Sat 15 Nov" moves the tasting, not the opening on "Sat 22 Nov"). Alone, it
    still finds the subject ("cutover is now Saturday 21 March" after "we picked Saturday 14 March")."""
    own = WEEKDAY_WORDS & subject_words(m.raw) if m.type == "date" else frozenset()
    if not own or len(scored) < 2:
        return scored

    def only_the_day(s: _Slot) -> bool:
        shared = {w for w in words & s.words if w not in _CUE_WORDS}
        return bool(shared) and shared <= own

    if all(only_the_day(s) or not (words & s.words) for _sc, _ov, s, _same in scored):
        return scored
    return [c for c in scored if c[3] or id(c[2]) in old_named or not only_the_day(c[2])]


WEEKDAY_REACH = 6  # messages: how far back a weekday correction without a subject reaches


def _dates_on_day(m: Mention, slots: Sequence[_Slot]) -> list[_Slot]:
    """A day named as lost ("周二的档期没了", "the Tuesday slot is gone") names the date said with that
    day ("4月8号周二", "Tue 3 March") as the old one: the subjects sharing the sentence's words, else
    the only one."""
    dated = [
        s
        for s in slots
        if s.current is not None and s.current.type == "date" and m.key in _weekday_keys(s.current.raw)
    ]
    said = m.context | m.sentence_words
    sharing = [s for s in dated if _overlap(said, s) > 0]
    return sharing or (dated if len(dated) == 1 else [])


@functools.lru_cache(maxsize=4096)
def _weekday_keys(raw: str) -> frozenset[str]:
    """The weekdays written inside a date ("4月8号周二" -> {"tue"})."""
    return frozenset(
        v.key for d in WEEKDAY_WORD_RE.finditer(raw) for v in find_values(d.group(0)) if v.type == "weekday"
    )


def _shifted_from(ev: _Event, slots: Sequence[_Slot]) -> set[int]:
    """Subjects whose current date a stated shift names as the old one: "pushed the move a week …
    Saturday 21 June now" names 14 June, "提前三天，改到5月2日" names 5月5日. The shift is said in the
    date's sentence or the one before; of several subjects holding that date, the one sharing most
    words."""
    by_sentence = dict(ev.shifts)
    out: set[int] = set()
    for m in ev.mentions:
        if m.negated or m.type != "date":
            continue
        days = by_sentence.get(m.sentence) or by_sentence.get(m.sentence - 1)
        old_key = shifted_key(m.key, -days) if days else None
        if old_key is None:
            continue
        holders = [
            s
            for s in slots
            if s.current is not None and s.current.type == "date" and s.current.key == old_key
        ]
        if holders:
            said = m.context | m.sentence_words | m.previous_words
            out.add(id(max(holders, key=lambda s: (_overlap(said, s), slots.index(s)))))
    return out


def _changed_again(m: Mention, ev: _Event, cands: Sequence[_Slot]) -> list[tuple[float, float, _Slot, bool]]:
    """A value changed "again" ("the dentist has to move me again, now it's Friday at 09:10", "又推到
    周五上午") replaces a value of its kind that was itself changed before: the one whose words the
    sentence shares, else, with none shared, the one changed last."""
    changed = [
        s
        for s in cands
        if s.current is not None
        and (s.retired or s.current.changed_to)  # "改成周三": a value set by a change
        and s.since < ev.order
        and not same_value(m, s.current)
    ]
    said = m.context | m.sentence_words
    sharing = [s for s in changed if _word_overlap(frozenset(said), s.words) > 0]
    pool = sharing or changed
    if not pool:
        return []
    latest = max(pool, key=lambda s: s.since)
    return [(1.0, 0.0, latest, False)]


def _nearby_weekday(m: Mention, ev: _Event, cands: Sequence[_Slot]) -> list[tuple[float, float, _Slot, bool]]:
    """A cued weekday correction that names no subject ("actually it's Thursday", "改成周四") is
    about the one weekday subject a user message stated in the WEEKDAY_REACH messages before it;
    with none or several, it replaces nothing."""
    if m.type != "weekday" or any(
        w not in _CUE_WORDS and w not in WEEKDAY_WORDS for w in m.context | m.sentence_words
    ):
        return []
    near = [
        s
        for s in cands
        if s.kind == "weekday"
        and s.current is not None
        and 0 <= s.stated_in < ev.position
        and ev.position - s.stated_in <= WEEKDAY_REACH
    ]
    if len(near) != 1 or near[0].current is None or same_value(m, near[0].current):
        return []
    return [(1.0, 0.0, near[0], False)]


# Values whose exact figure is unlikely to be said of two things: a chat subject holding one is the
# node's subject whatever words the chat used ("两台按 36.8 万算" for "报价 ¥368,000/台").
