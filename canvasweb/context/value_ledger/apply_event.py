"""Applying one event to the subjects: a value replaces, joins or opens a subject, or retires one.

`owner` maps each mention, by (message position, start), to the subject it belongs to; the
result (result.py) rewrites the mentions whose subject has retired their value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..capture.values import compatible
from ..value_mentions.mention import Mention, same_value
from .ambiguity import (
    _as_float,
    _beside_the_change,
    _closest_sentence,
    _nearest_amount,
    _subject_words,
    _without_weaker_siblings,
)
from .cues import _CUE_WORDS, APPRAISAL_WORDS
from .events import _Event
from .scoring import NEAR_BEST, _overlap, _same_kind, _score, _shared, _Slot
from .weekday_moves import _changed_again, _dates_on_day, _nearby_weekday, _shifted_from, _weak_day_dropped

# Words around a value that say it is kept as it was (stemmed as value_mentions leaves them).
_KEPT_WORDS = frozenset(
    {"stay", "remain", "unchang", "still", "不变", "照旧", "仍然", "依旧", "没变", "维持"}
)


def _versions_of_line(m: Mention, slots: list[_Slot]) -> list[_Slot]:
    """ "v79.4.0, not the 78 line": a bare number said as the old value names the versions of that
    major line ("v78.12.0")."""
    major = m.raw.strip()
    if not major.isdigit():
        return []
    return [
        s
        for s in slots
        if s.current is not None
        and s.current.type == "version"
        and re.match(rf"[vV]?{major}(?:\.|$)", s.current.raw.strip()) is not None
    ]


def _apply(ev: _Event, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]) -> None:
    user_like = ev.role in ("user", "canvas")
    named_old: set[int] = set()  # ids of slots whose value this event names as the old one
    for m in ev.mentions:
        if not m.negated:
            continue
        words = m.context | ev.node_words
        holders = [s for s in slots if s.current is not None and same_value(m, s.current)]
        holders += [s for s in slots if s not in holders and any(same_value(m, r) for r in s.retired)]
        if m.type == "weekday" and ev.role == "user":
            holders += _dates_on_day(m, slots)
        if not holders and m.type == "number":
            holders = _versions_of_line(m, slots)
        if ev.role == "canvas":
            holders = (
                [s for s in holders if words & s.words]
                or _bare_holder(m, holders)
                or _sole_holder(m, holders)
            )
        if m.type == "name":
            # One name is said about many things: its correction retires it where the sentence's
            # words point ("Radek is out, Mirela takes over as captain": as captain, not elsewhere).
            words = words | m.sentence_words
            if len(holders) > 1:
                holders = [s for s in holders if _overlap(words, s) > 0]
        best = max(holders, key=lambda s: (_overlap(words, s), slots.index(s)), default=None)
        if best is None:
            # "staying with us, not the Inn": a name no statement held is left as said
            if ev.role != "canvas" and m.type != "name":
                slot = _Slot(kind=m.type, words=set(m.context), current=None, retired=[m])
                slots.append(slot)
                owner[(ev.position, m.start)] = slot
            continue
        if user_like and best.current is not None and same_value(m, best.current):
            best.retired.append(best.current)
            best.current = None
        if ev.role == "canvas" and m.type == "ident":
            # A model or part code names one thing wherever it is said ("SM-704 这个月缺货", said
            # before the card was replaced): the supersede retires it in every subject that holds it.
            for other in holders:
                if other is not best and other.current is not None and same_value(m, other.current):
                    other.retired.append(other.current)
                    other.current = None
        best.words |= m.context
        named_old.add(id(best))
        if ev.position >= 0:
            owner[(ev.position, m.start)] = best
    if ev.shifts:
        named_old |= _shifted_from(ev, slots)
    # Slots whose value the same message names (non-negated) next to a new value of its kind. When
    # it names several of a kind and the cue stands in the clause of some, those are the old ones
    # ("16号验完…，18号肯定开不了。挪到4月25号": the 18th, not the inspection on the 16th).
    beside_new: list[tuple[Mention, _Slot]] = []
    for m in ev.mentions:
        if m.negated or not m.context.isdisjoint(_KEPT_WORDS):
            continue  # "concessions stay at £9" beside the new adult price names no old value
        for s in slots:
            if (
                s.current is not None
                and same_value(m, s.current)
                and any(
                    x is not m
                    and not x.negated
                    and compatible(x.type, s.kind)
                    and not same_value(x, m)
                    # beside it: a long message states many values of one kind about many things
                    and abs(x.sentence - m.sentence) <= 1
                    for x in ev.mentions
                )
                and m.sentence in ev.cue_sentences
                # seven weekdays are said about many things: the same day names this subject's
                # value only when it is said with some of its words
                and (m.type != "weekday" or _overlap(m.context, s) > 0)
            ):
                beside_new.append((m, s))
    for m, s in beside_new:
        kind_named = [x for x, _s in beside_new if compatible(x.type, m.type) and not same_value(x, m)]
        if (
            kind_named
            and m.start not in ev.cued_clauses
            and any(x.start in ev.cued_clauses for x in kind_named)
        ):
            continue
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
        if m.type == "name" and ev.role == "assistant" and not m.changed_to:
            told = _reply_about_retired_name(m, ev, slots)
            if told is not None:
                owner[(ev.position, m.start)] = told
                continue
        if m.share:
            _open_share(m, ev, slots, owner)
            continue
        words = m.context | ev.node_words
        cands = [
            s for s in slots if _same_kind(m, s.kind, s.current or (s.retired[-1] if s.retired else None))
        ]
        cued = (
            m.sentence in ev.cue_sentences
            or _cue_just_before(m, ev)
            or (m.changed_to and ev.role == "user")
            or (m.type == "name" and m.changed_to)
        )
        user_like = ev.role in ("user", "canvas") or _reports_a_change(m, ev)
        if m.type == "name":
            # A name replaces only the name this message names as old ("no longer Halvorsen, …"); one
            # said without that joins the subject that holds it. Shared words alone are too weak
            # for names: a long message names many things ("DTS" is no new read replica).
            cands = [
                s for s in cands if id(s) in named_old or (s.current is not None and same_value(m, s.current))
            ]
        named_for_m = named_old
        if _beside_the_change(m, ev) and not any(
            id(s) in named_old and s.current is not None and same_value(m, s.current) for s in slots
        ):
            # "消防说16号验完…，18号肯定开不了。挪到4月25号": the 16th is said beside the change, about
            # something else; it is neither cued nor the new value of the day named as old (the old
            # value itself, said beside its replacement, still is the old one).
            cued = False
            named_for_m = set()
        summed = _old_total(m, ev, cands) if user_like and cued else None
        old_named = named_for_m | {id(summed)} if summed is not None else named_for_m
        scored = _weak_day_dropped(m, words, _score(m, words, cands, ev, old_named, cued), old_named)
        if (
            not scored
            and cued
            and user_like
            and ev.role != "canvas"
            # the sentence's change goes to the value it names as the new one ("大门六点才开，装卸工
            # 改成 6:15 到": 6:15, not the gate's hour)
            and not any(
                x is not m and x.changed_to and x.sentence == m.sentence and compatible(x.type, m.type)
                for x in ev.mentions
            )
            # the words of a sentence that states another kind of value are that value's, not a
            # day's ("the dinner is 22 May now and we add a Sunday hike")
            and not (
                m.type == "weekday"
                and any(x.sentence == m.sentence and x.type != "weekday" for x in ev.mentions)
            )
        ):
            # A correction often names its subject in another clause ("scratch that build number,
            # we pushed 0.9.417"): try the whole sentence's words.
            # A correction may also name its subject in the sentence before, when that one is the
            # cue ("We're not doing X any more. It's Y now.").
            around = m.sentence_words | (
                m.previous_words if m.sentence - 1 in ev.cued_text_sentences else frozenset()
            )
            # In a long sentence one shared word is chance ("… with the rent going up, £6 a session"
            # is no new rent): there it takes two.
            need = 2 if len({w for w in around if w not in _CUE_WORDS}) > LONG_SENTENCE_WORDS else 1
            wide = [
                c
                for c in _score(m, around | words, cands, ev, old_named, cued)
                if c[0] >= 1.0 and (need == 1 or _shared(around | words, c[2]) >= need)
            ]
            scored = (
                sorted(wide, key=lambda c: -c[1])[:1]
                if len(wide) == 1
                or (len(wide) > 1 and sorted(c[1] for c in wide)[-2] < NEAR_BEST * max(c[1] for c in wide))
                else []
            )
        if not scored and cued and ev.role == "user":
            scored = _nearby_weekday(m, ev, cands)
        if not scored and cued and ev.role == "user" and m.sentence in ev.again_sentences:
            scored = _changed_again(m, ev, cands)
        if not scored:
            recent = _recent_holder(m, ev, slots) if not user_like else None
            if recent is not None:
                # A reply repeating the value just set ("OK, so the app should point at 5434 now")
                # is that subject's, whatever words it uses.
                if ev.position >= 0:
                    owner[(ev.position, m.start)] = recent
                continue
            if ev.role != "canvas":
                slot = _Slot(
                    kind=m.type, words=set(m.context), current=m, since=ev.order, stated_in=ev.position
                )
                slots.append(slot)
                if ev.position >= 0:
                    owner[(ev.position, m.start)] = slot
            continue
        best_overlap = max(ov for _, ov, _, _ in scored)
        chosen = [
            (sc, s, same)
            for sc, ov, s, same in scored
            if ov >= NEAR_BEST * best_overlap or id(s) in old_named or same
        ]
        # A value this message names as the old one beside its replacement is that subject's: it
        # joins it and states nothing for any other subject.
        named_here = [
            c
            for c in scored_named(scored, old_named)
            if c[1].current is not None and same_value(m, c[1].current)
        ]
        restated = [
            c
            for c in chosen
            if c[2] and id(c[1]) not in old_named and ev.cued_clauses and m.start not in ev.cued_clauses
        ]
        if named_here:
            chosen = named_here
        elif restated:
            # A value said again outside the clause that makes the change ("消防说16号验完…，18号肯定开
            # 不了") is its own subject's, not the new value of the subject named as old.
            chosen = restated
        elif ev.role == "assistant" and any(same and s.retired for _sc, s, same in chosen):
            # A reply reporting a change the user's message already made ("Block A is now below
            # 25 %; Block B unchanged") is about that subject only.
            chosen = [c for c in chosen if c[2]]
        elif m.type == "weekday" and any(same for _sc, _s, same in chosen):
            # A day said again about a subject that holds it ("with a Sunday matinee" after "we add
            # a Sunday matinee") is that subject's, and no new day for a look-alike subject.
            chosen = [c for c in chosen if c[2]]
        else:
            chosen = _without_weaker_siblings(m, chosen, scored, ev.mentions)
            changed = [c for c in chosen if not c[2] and id(c[1]) not in old_named]
            if len(changed) > 2 and max(_shared(words, c[1]) for c in changed) <= 1:
                # One word shared with three subjects or more tells them apart only through the
                # sentences the values were said in ("礼盒展会价改成268": the 展会价 of the 礼盒, not
                # every price said with 展会); when those tie too, the value is a fact of its own.
                chosen = [c for c in chosen if c[2] or id(c[1]) in old_named] + _closest_sentence(m, changed)
            elif len(changed) == 2 and not _subject_words(changed[0][1]) & _subject_words(changed[1][1]):
                # Two subjects that share no word are two things; a new amount is the new value of
                # the one it is nearest ("单价涨到 620 元" is the package's 580, not the 350 allowance).
                nearest = _nearest_amount(m, [c[1] for c in changed])
                if nearest is not None:
                    chosen = [c for c in chosen if c[2] or id(c[1]) in old_named or c[1] is nearest]
        if not user_like:
            # An echo joins the subject whose value it repeats; it never replaces a value.
            echo = [c for c in scored if c[3]] or [
                c for c in scored if c[2].current is None and any(same_value(m, r) for r in c[2].retired)
            ]
            # A reply restating in its own words the value the user just set ("So delivery moves
            # from w/c 9 March to 23 March" after "the line's now arriving 23 March") names that
            # subject: its words join it, so a later correction of either retires both mentions.
            recent = None if echo else _recent_holder(m, ev, slots)
            joined = max(echo, key=lambda c: c[1])[2] if echo else recent
            if joined is not None:
                joined.words |= m.context
                owner[(ev.position, m.start)] = joined
            else:
                slot = _Slot(
                    kind=m.type, words=set(m.context), current=m, since=ev.order, stated_in=ev.position
                )
                slots.append(slot)
                owner[(ev.position, m.start)] = slot
            continue
        home = None
        for _rank, s, _same in sorted(chosen, key=lambda c: -c[0]):
            if s.current is not None and not same_value(m, s.current):
                s.retired.append(s.current)
                s.since = ev.order
            elif s.current is None and m.type == "name":
                s.since = ev.order  # "no longer Halvorsen … Dr Moreau now": set by this message
            elif s.current is None:
                # "2:45am, not 3:15am": set by this sentence, so a value of its kind in another
                # sentence of the message ("Students in the car park by 2:30.") is a fact of its own
                s.set_by = (ev.order, m.sentence)
            s.retired = [r for r in s.retired if not same_value(m, r)]  # said again: current again
            if s.current is None or not same_value(m, s.current):
                s.stated_in = ev.position
            s.current = m
            s.words |= m.context
            home = home or s
        if ev.position >= 0 and home is not None:
            owner[(ev.position, m.start)] = home
            if ev.role == "assistant":
                _merge_restated(m, ev, home, slots, owner)
    if ev.role == "user":
        _rejoin_named_before(ev, slots, owner)


LONG_SENTENCE_WORDS = 12  # subject words
REPLY_REACH = 3  # messages: how far back the user message a reply answers may be (tool turns between)


def _merge_restated(
    m: Mention, ev: _Event, home: _Slot, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]
) -> None:
    """A reply that reports, in the subject's words, the change the user just made in other words
    ("好的，那就是大约11点05上台" after "出场那个我看错了…差不多11点05上台", where the user's words matched
    no subject) names the subject: the subject the user's message opened with that value, and any
    other this reply set to it, are one subject from now on. The one with a history keeps its words:
    the user's other words ("booked", "the handover") would make it match unrelated changes."""
    group = [home] + [
        s
        for s in slots
        if s is not home
        and s.current is not None
        and same_value(m, s.current)
        and 0 <= ev.position - s.stated_in <= REPLY_REACH
    ]
    if len(group) < 2:
        return
    kept = max(group, key=lambda s: (len(s.retired), s is home))
    kept.words |= m.context
    for other in group:
        if other is kept:
            continue
        kept.retired += [r for r in other.retired if not any(same_value(r, x) for x in kept.retired)]
        for key, slot in owner.items():
            if slot is other:
                owner[key] = kept
        slots.remove(other)


def _rejoin_named_before(ev: _Event, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]) -> None:
    """The old value said before its replacement in the same message ("£12 was what we charged last
    time. They voted the adult price up to £13.50."): it opened a subject of its own when it was read,
    but the later sentence retired it, so it is that subject's old value."""
    for m in ev.mentions:
        opened = owner.get((ev.position, m.start))
        if opened is None or opened.current is not m or opened.retired or m.negated:
            continue
        retired_here = [
            s
            for s in slots
            if s is not opened and s.since == ev.order and any(same_value(m, r) for r in s.retired)
        ]
        if len(retired_here) == 1:
            owner[(ev.position, m.start)] = retired_here[0]
            retired_here[0].words |= opened.words
            slots.remove(opened)


_DISTINCTIVE_TYPES = frozenset({"money", "ident", "port", "version"})


def _sole_holder(m: Mention, holders: Sequence[_Slot]) -> list[_Slot]:
    """The one subject whose current value is the exact figure a superseded or archived node gave up,
    when that figure has a shape of its own (an amount of four or more significant digits, an
    identifier, a port, a version). With two holders, one may be a look-alike: none is taken."""
    current = [s for s in holders if s.current is not None and same_value(m, s.current)]
    if len(current) != 1 or m.type not in _DISTINCTIVE_TYPES:
        return []
    if m.type == "money" and len(m.key.split(":")[-1].strip("0").replace(".", "")) < 2:
        return []  # "¥300,000" is a round figure many things cost; "¥368,000" is not
    return current


def _bare_holder(m: Mention, holders: Sequence[_Slot]) -> list[_Slot]:
    """The one subject that states the value a superseded node retires with no words of its own
    but a judgement ("4 May is tight", "ok, 5433 then", "5月9日太赶了"): with no subject of its own
    it can only be about the value that was on the board, so the supersede retires it there too.
    Never when another subject holds the same value: that one may be a look-alike about something
    else, and "printer: 21 March" names a subject."""
    current = [s for s in holders if s.current is not None and same_value(m, s.current)]
    if len(current) != 1 or not current[0].words <= APPRAISAL_WORDS:
        return []
    return current


_SUMMABLE = frozenset({"money", "count", "number"})


def _old_total(m: Mention, ev: _Event, cands: Sequence[_Slot]) -> _Slot | None:
    """The one subject whose current value, plus or minus another amount this message states, makes
    `m`: "€1,200 extra, so the total is €15,200 now" replaces the €14,000 said before whatever words
    each was said with ("3 more joined, 15 of us now", "追加 5万，现在 45万"). Only in a correction
    (the caller checks the cue): "catering £400 a day, the sound hire £8,900" adds nothing up."""
    if m.type not in _SUMMABLE or not m.number or m.negated:
        return None
    value = _as_float(m.number)
    steps = {
        step
        for x in ev.mentions
        if x is not m
        and x.type == m.type
        and x.number
        and not x.negated
        and _currency(x) == _currency(m)
        and (step := _as_float(x.number))  # neither unreadable nor zero
    }
    if value is None or not steps:
        return None
    found = [
        s
        for s in cands
        if s.current is not None
        and s.current.type == m.type
        and s.stated_in != ev.position
        and _currency(s.current) == _currency(m)
        and (old := _as_float(s.current.number)) is not None
        and old != value
        and any(abs(abs(value - old) - step) < 1e-9 for step in steps)
    ]
    return found[0] if len(found) == 1 else None


def _currency(m: Mention) -> str:
    """The currency of an amount ("eur" of "eur:15200"), and the noun or unit of a count."""
    return m.key.split(":", 1)[0] if m.type == "money" else m.unit


def _open_share(m: Mention, ev: _Event, slots: list[_Slot], owner: dict[tuple[int, int], _Slot]) -> None:
    """A share of another quantity ("€7,600, half of the new total") is a subject of its own: it
    joins a subject that already holds that value, or opens one, and never replaces the quantity
    it is a share of."""
    holder = next((s for s in slots if s.current is not None and same_value(m, s.current)), None)
    if holder is None:
        holder = _Slot(kind=m.type, words=set(m.context), current=m, since=ev.order, stated_in=ev.position)
        slots.append(holder)
    else:
        holder.words |= m.context
    if ev.position >= 0:
        owner[(ev.position, m.start)] = holder


ECHO_REACH = 4  # events: how soon after a value is set a reply repeating it is an echo of it


def _recent_holder(m: Mention, ev: _Event, slots: list[_Slot]) -> _Slot | None:
    """The one subject whose current value `m` repeats, set at most ECHO_REACH events ago."""
    holders = [
        s
        for s in slots
        if s.current is not None and same_value(m, s.current) and 0 < ev.order - s.since <= ECHO_REACH
    ]
    return holders[0] if len(holders) == 1 else None


def _reply_about_retired_name(m: Mention, ev: _Event, slots: list[_Slot]) -> _Slot | None:
    """A reply right after a correction that says the old name ("Archived the Promokit node and
    added Lurkit") is about that change: the one subject that just retired the name, when the reply
    names its new value too or shares its words."""
    got = [
        s
        for s in slots
        if 0 < ev.order - s.since <= ECHO_REACH
        and s.current is not None
        and not same_value(m, s.current)
        and any(same_value(m, r) for r in s.retired)
        and (
            _overlap(m.context, s) > 0
            or any(x is not m and s.current is not None and same_value(x, s.current) for x in ev.mentions)
        )
    ]
    return got[0] if len(got) == 1 else None


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
    if m.type == "name":
        # "Saffron Yard is fully booked, I booked Osteria Nove instead": the old name beside it is no second value
        return (
            ev.role == "assistant"
            and m.changed_to
            and m.sentence in ev.plain_sentences
            and sum(1 for x in ev.mentions if x.sentence == m.sentence and x.type == "name" and not x.negated)
            == 1
        )
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
