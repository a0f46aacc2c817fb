"""Value mentions in chat text: where a typed value is said, about what, and whether it is named as the old one.

A *mention* is one occurrence of a value (a port, a date, a sum of money, a
count, a version, a duration, a percentage, an identifier such as
`h100-spot-2`) in a message, with its span (so the value alone can be
rewritten later), its comparison key (values.py: "四十万元" = "40万元"), and
the words of the clause around it, its *subject context* (English stems and
jieba words, numbers left out). A short clause borrows the words of the
clause before it and of the message's topic header ("infra: …", "预算这边，…").

A mention is *negated* when the text names it as the value being replaced
(framing.py). Names that a correction frames (name_mentions.py) are
passed in and become mentions of type "name", negated when named as the old one. The
ledger (value_ledger/) decides which values are retired; this package only reads text.

`find_mentions` (here) finds them; mention.py holds `Mention` and `same_value`,
words.py the subject words and the clause/sentence spans, units.py what a bare
number counts (unit, period, label), framing.py the patterns that name a value as
the old one, the object of a change or a share of another quantity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..capture.values import compatible, find_values
from ..capture.weekdays import WEEKDAY_BEFORE_DATE_RE, WEEKDAY_WORD_RE
from ..synonyms import noun_family
from ..text import stem
from .framing import _CHANGED_TO_RE, _SHARE_AFTER_RE, _SHARE_BEFORE_RE, _named_old
from .mention import Mention
from .units import (
    _PERSON_MEASURES,
    _counted,
    _label_before,
    _leading_number,
    _period,
    _unit_after,
    _unit_match,
)
from .words import (
    _CLAUSE_BREAK_RE,
    _SENTENCE_BREAK_RE,
    CAPACITY_RE,
    CAPACITY_WORD,
    WEEKDAY_WORDS,
    _header_words,
    _open_plain_brackets,
    _spans,
    subject_words,
)

if TYPE_CHECKING:
    from ..name_mentions import NameSpan

__all__ = ["MIN_CONTEXT", "Mention", "find_mentions"]

# Words that name the kind of a date or time, not what it is for.
WHEN_WORDS = frozenset({"dat", "tim", "时间", "日期", "时候"})

# ASCII bounds: Chinese text glues codes to its words ("血球仪迈瑞BC-5000Vet", "换SM-503三层").
_IDENT_RE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+"
    r"(?![A-Za-z0-9_-])"
    # a code of capitals and digits: flight TP1363, train G7362, booking QX7841
    r"|(?<![A-Za-z0-9_.-])[A-Z]{1,3}\d{3,6}[A-Z]?(?![A-Za-z0-9_-])"
)

MIN_CONTEXT = 2  # a clause with fewer subject words borrows its neighbour's

# A price word just before a bare whole number: Chinese amounts often leave 元 unsaid ("单价可以降到 352,000
# 一台", "报价 46800"). Only whole numbers of four or more digits: "单价 3 个" is no amount.
_PRICE_BEFORE_RE = re.compile(
    r"(?:单价|价格|报价|售价|总价|成交价|底价|费用|成本|租金|预算)[^\d，。；,;]{0,6}$"
)

# A text without digits may still state a value: a weekday ("actually it's Thursday", "改成周四").
_WEEKDAY_HINT_RE = re.compile(r"(?i:day)|Mon|Tue|Wed|Thu|Fri|Sat|Sun|周|星期|礼拜")
# An amount, a head count or a clock time in Chinese numerals ("四万", "三十人", "六点四十"):
# capture/values.py types it.
_CN_AMOUNT_HINT_RE = re.compile(
    r"[一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*\s*[万亿元块人名位点]"
)


def find_mentions(text: str, names: Sequence[NameSpan] = ()) -> tuple[Mention, ...]:
    """Every value in `text`, left to right, with `names` (name_mentions.py) as values of type "name"."""
    if not text or not (
        names or re.search(r"\d", text) or _WEEKDAY_HINT_RE.search(text) or _CN_AMOUNT_HINT_RE.search(text)
    ):
        return ()
    values = []
    for v in find_values(text):
        if v.key.startswith("rel:") or (
            v.type == "time"
            and not re.search(r"\d[:.]\d|点|\d\s*[ap]m|half|quarter|o['’]clock", v.raw, re.IGNORECASE)
        ):
            continue
        digits = re.sub(r"\D", "", v.raw) or re.sub(r"\D", "", v.key)  # "三十人" counts 30
        if v.type == "count" and re.search(r"\d\s*[万千]", v.raw):
            digits = v.key  # "3 万人" counts 30000
        if v.type in ("number", "count") and len(digits) < 2 and not _counted(text, v.end):
            continue  # "2 spare", "3 of them": too common to be anyone's value; "3个小区", "5 gateways" are
        start = v.start
        if v.type == "date":
            # "Wednesday, March 4" is one date: its mention (and a rewrite) covers the day too
            day = WEEKDAY_BEFORE_DATE_RE.search(text, max(0, start - 16), start)
            start = day.start() if day else start
        kind, key = v.type, v.key
        if (
            kind == "number"
            and _PRICE_BEFORE_RE.search(text, max(0, v.start - 10), v.start)
            and len(digits) >= 4
        ):
            kind, key = "money", f"cny:{int(digits)}"  # "单价可以降到 352,000 一台": 元 left unsaid
        values.append((start, v.end, text[start : v.end] if start != v.start else v.raw, kind, key))
    taken = [(s, e) for s, e, *_ in values]
    for m in _IDENT_RE.finditer(text):
        if any(m.start() < e and s < m.end() for s, e in taken):
            # An identifier that contains a found value ("h100-spot-2") replaces it.
            values = [v for v in values if not (m.start() <= v[0] and v[1] <= m.end())]
            if any(m.start() < v[1] and v[0] < m.end() for v in values):
                continue
        values.append((m.start(), m.end(), m.group(0), "ident", "ident=" + m.group(0).lower()))
    # A name is negated when its correction names it as the old one, and the object of the change
    # when it names it as the new one (name_mentions.py reads that; _named_old reads numbers).
    name_roles: dict[int, str] = {}
    for n in names:
        if not any(n.start < v[1] and v[0] < n.end for v in values):
            values.append((n.start, n.end, n.raw, "name", n.key))
            name_roles[n.start] = n.role
    if not values:
        return ()
    values.sort()
    clauses = _spans(_open_plain_brackets(text, values), _CLAUSE_BREAK_RE)
    sentences = _spans(text, _SENTENCE_BREAK_RE)
    header = _header_words(text)
    # Subject words come from the text around the values, not from the values ("11 August" is no subject).
    blank = list(text)
    for start, end, *_ in values:
        blank[start:end] = " " * (end - start)
    for start, end, _raw, kind, _key in values:
        if kind in ("weekday", "date"):
            # The day a thing happens on tells things apart ("the get-in on the Monday", "Tuesday and
            # Thursday evenings"): a weekday word stays a subject word of its clause, also inside
            # a date ("Monday 10 November"); a weekday mention leaves its own day out (below).
            for d in WEEKDAY_WORD_RE.finditer(text, start, end):
                blank[d.start() : d.end()] = text[d.start() : d.end()]
    bare = "".join(blank)
    clause_words = [subject_words(bare[s:e]) for s, e in clauses]
    followed = [any(w[0] >= v[1] and compatible(w[3], v[3]) for w in values) for v in values]
    # A clause whose only values are weekdays ("3月12日，周四上午", "Monday evening") lends its words
    # to a value of another kind, as it did before weekdays were values: the day is said about
    # that value, it is no other item of a list. Weekdays keep apart from each other.
    clause_has_value, clause_has_weekday = (
        [
            any(
                s <= v[0] < e
                and (v[3] == "weekday") == weekday
                and not (
                    name_roles.get(v[0]) == "old"
                    if v[3] == "name"
                    else _named_old(text, v[0], v[1], replaced_later=f, kind=v[3])
                )
                for v, f in zip(values, followed, strict=True)
            )
            for s, e in clauses
        ]
        for weekday in (False, True)
    )
    sentence_words = [
        frozenset().union(*(w for (cs, _), w in zip(clauses, clause_words, strict=True) if s <= cs < e))
        | header
        for s, e in sentences
    ]
    value_starts = [v[0] for v in values]
    out = []
    for (start, end, raw, kind, key), replaced_later in zip(values, followed, strict=True):
        ci = next((i for i, (s, e) in enumerate(clauses) if s <= start < e), len(clauses) - 1)
        si = next((i for i, (s, e) in enumerate(sentences) if s <= start < e), len(sentences) - 1)
        words = set(clause_words[ci])
        if kind == "weekday":
            # A day modifies the words next to it ("add a Sunday matinee", "the Thursday opening"):
            # its words are those between the values around it in its clause, not the words of
            # another value of that clause ("Opening is Friday 14 November now and we add a Sunday
            # matinee": the matinee is on Sunday, the opening is not).
            cs, ce = clauses[ci]
            lo = max([e for s_, e, *_ in values if cs <= e <= start] or [cs])
            hi = min([s_ for s_, e, *_ in values if end <= s_ < ce] or [ce])
            words = set(subject_words(bare[lo:start] + " " + bare[end:hi]))
        said_of = sentence_words[si] if si < len(sentence_words) else frozenset(words)
        if kind in ("date", "time", "weekday"):
            words -= _reference_words(bare, end, clauses[ci][1], words, value_starts)
            if si < len(sentences):
                said_of -= _reference_words(bare, end, sentences[si][1], set(said_of), value_starts)
        # A short clause borrows a neighbour's words, unless that neighbour states a value of its
        # own: another item of a list ("early-bird £140, student £70": "student" is not about
        # early-bird). A neighbour naming the old value ("800人作废，按950人准备") is the same subject.
        for i in (ci - 1, ci + 1):
            if (
                len(words) < MIN_CONTEXT
                and 0 <= i < len(clauses)
                and not clause_has_value[i]
                and not (kind == "weekday" and clause_has_weekday[i])
            ):
                words |= clause_words[i]
        words |= header
        if kind == "weekday":
            words -= WEEKDAY_WORDS
        if kind in ("date", "time", "weekday"):
            words -= WHEN_WORDS  # "时间", "date": the kind of value, no subject ("开始时间" / "申报时间")
        if kind == "count":
            # The noun of a count is what it counts: "240 seats" is about seats (the value span
            # hides it from the clause words), as "the seated limit is 196" is.
            words |= subject_words(re.sub(r"[\d.,\s]+[万千]?", " ", raw))
        if kind in ("number", "count") and CAPACITY_RE.search(text, *clauses[ci]):
            # "fits 180 guests", "capacity is 150", "能坐180人", "可容纳150人": one subject family.
            words.add(CAPACITY_WORD)
        if kind == "name":
            negated, changed_to = name_roles[start] == "old", name_roles[start] == "new"
        else:
            negated = _named_old(text, start, end, replaced_later=replaced_later, kind=kind)
            changed_to = bool(_CHANGED_TO_RE.search(text[max(0, start - 40) : start]))
        share = bool(
            _SHARE_AFTER_RE.search(text[end : end + 40])
            or _SHARE_BEFORE_RE.search(text[max(0, start - 48) : start])
        )
        unit = unit_text = ""
        if kind == "number":
            unit = _unit_after(text, end)
            if unit.isascii():
                unit = noun_family(unit)  # "14 actors" and "12 performers" count the same people
            if unit:  # the unit as written, for markers that name the value ("72张", "12 performers")
                um = _unit_match(text, end)
                unit_text = (
                    um.group(0)[: len(um.group(0)) - len(um.group(um.lastindex or 1))]
                    + um.group(um.lastindex or 1)[: len(unit)]
                    if um
                    else ""
                )
                if um and not ("\u4e00" <= unit[0] <= "\u9fff"):
                    unit_text = um.group(0)
        elif kind == "count":  # its own noun ("48 seats" -> seat, "800人" -> 人)
            noun = re.sub(r"^[\d.,\s]+[万千]?\s*", "", raw).lower()
            unit = (
                "人"
                if noun[:1] in _PERSON_MEASURES
                else noun[:1]
                if noun[:1] >= "\u4e00"
                else noun_family(stem(noun))  # "14 actors" and "12 performers" count the same people
            )
        out.append(
            Mention(
                start=start,
                end=end,
                raw=raw,
                type=kind,
                key=key,
                # "1.2万人" counts 12000 people (its key), not 1.2
                number=key if kind == "count" and re.search(r"\d\s*[万千]", raw) else _leading_number(raw),
                unit=unit,
                unit_text=unit_text,
                label=_label_before(text, start) if kind == "number" else "",
                period=_period(text, start, end) if kind == "money" else "",
                changed_to=changed_to,
                share=share,
                context=frozenset(words),
                sentence=si,
                negated=negated,
                sentence_words=said_of - (WEEKDAY_WORDS if kind == "weekday" else frozenset()),
                previous_words=(sentence_words[si - 1] if 0 < si <= len(sentence_words) else frozenset())
                - (WEEKDAY_WORDS if kind == "weekday" else frozenset()),
                question=si < len(sentences)
                and text[sentences[si][0] : sentences[si][1]].rstrip().endswith(("?", "？")),
            )
        )
    return _pair_day_and_time(text, out)


# The words that may sit between a weekday and the time on it: "Thursday at 15:40", "Wed, 8:30am", "周四下午3点".
_DAY_TIME_GAP_RE = re.compile(
    r"\s*(?:,|，|at|@|the)?\s*(?:morning|afternoon|evening|上午|下午|早上|晚上|中午|傍晚|凌晨)?\s*(?:at)?\s*",
    re.IGNORECASE,
)


# "Priya on 3 November gives you three weeks before the soft launch": what follows the date after
# before / after / until is the point it is measured from, not what happens on it.
REFERENCE_KEEP_WORDS = 3
_REFERENCE_CUE_RE = re.compile(
    r"\b(?:before|after|until|till|ahead of|prior to|in time for|in the run-up to)\b"
    r"|(?:赶在|在)(?=[^，。；,;]{1,15}(?:之前|以前|之后|以后))",
    re.I,
)


def _reference_words(
    bare: str, end: int, clause_end: int, words: set[str], starts: Sequence[int]
) -> frozenset[str]:
    """The words of the reference point after a date or time in its clause, when the words before
    the cue still name what the value is about (at least REFERENCE_KEEP_WORDS of them). Not a span's
    end ("from Saturday 8am until Monday"): a value after the cue is its own."""
    cue = _REFERENCE_CUE_RE.search(bare, end, clause_end)
    if cue is None or any(cue.end() <= s < clause_end for s in starts):
        return frozenset()
    after = subject_words(bare[cue.start() : clause_end])
    return after if len(words - after) >= REFERENCE_KEEP_WORDS else frozenset()


def _pair_day_and_time(text: str, mentions: list[Mention]) -> tuple[Mention, ...]:
    """A weekday and the time on it are one appointment ("it was Wednesday 08:30 and now it's Thursday
    at 15:40"): each takes the other's subject words, and a day named as the old one names its time
    too. Said alone, a time's clause often holds no subject word but the day."""
    out = list(mentions)
    for i in range(len(out) - 1):
        day, time = out[i], out[i + 1]
        if day.type != "weekday" or time.type != "time" or day.sentence != time.sentence:
            continue
        gap = _DAY_TIME_GAP_RE.fullmatch(text, day.end, time.start)
        if gap is None:
            continue
        words = day.context | time.context
        out[i] = replace(day, context=words - WEEKDAY_WORDS, negated=day.negated or time.negated)
        out[i + 1] = replace(time, context=words, negated=day.negated or time.negated)
    return tuple(out)
