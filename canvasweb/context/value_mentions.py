"""Value mentions in chat text: where a typed value is said, about what, and whether it is named as the old one.

A *mention* is one occurrence of a value (a port, a date, a sum of money, a
count, a version, a duration, a percentage, an identifier such as
`h100-spot-2`) in a message, with its span (so the value alone can be
rewritten later), its comparison key (values.py: "四十万元" = "40万元"), and
the words of the clause around it, its *subject context* (English stems and
jieba words, numbers left out). A short clause borrows the words of the
clause before it and of the message's topic header ("infra: …", "预算这边，…").

A mention is *negated* when the text names it as the value being replaced:
"not 4840", "instead of 5433", "from 140 to …", "8443 停用了", "不是 22%",
"99.2 is too loose", "4月9日走不了". Names that a correction frames (name_mentions.py) are
passed in and become mentions of type "name", negated when named as the old one. The
ledger (value_ledger/) decides which values are retired; this module only reads text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .capture.values import compatible, find_values
from .capture.weekdays import WEEKDAY_BEFORE_DATE_RE, WEEKDAY_WORD_RE
from .lexical import EN_EXTRA_STOPWORDS, ZH_STOPWORDS, tokenize
from .text import CJK_STOP_CHARS, STOPWORDS, stem

if TYPE_CHECKING:
    from .name_mentions import NameSpan

# A clause ends at these (not inside "31,750", "17:00" or "0.9.412").
_CLAUSE_BREAK_RE = re.compile(r"[。！？!?；;，,：:\n()（）—–]|\.(?=\s|$)")
_SENTENCE_BREAK_RE = re.compile(r"[。！？!?\n]|\.(?=\s|$)")
_IDENT_RE = re.compile(
    r"(?<![\w.-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])"
    # a code of capitals and digits: flight TP1363, train G7362, booking QX7841
    r"|(?<![\w.-])[A-Z]{1,3}\d{3,6}[A-Z]?(?![\w-])"
)

# Text right before a value that names it as the replaced one.
_OLD_BEFORE_RE = re.compile(
    r"(?:\bnot|\bno longer|\binstead of|\brather than|\bold|\bprevious(?:ly)?|\bformer|"
    r"不是|而不是|并非|原来的?|原先的?|之前的?|以前的?|旧的?|不再[按用是要]?)\s*(?:the\s+|是\s*)?[$€£¥]?\s*$",
    re.IGNORECASE,
)
# Text right after a value that names it as the replaced one.
_OLD_AFTER_RE = re.compile(
    r"^\s*(?:[A-Za-z%]+\s+|[\u4e00-\u9fff]{1,2}(?=太|也|已|都|不|停|作|走|赶|来|取|错|撤|失|废|过|那))?(?:已经?|都|被|也)?(?:is gone|is getting (?:decommissioned|retired|shut down|turned off)|is being (?:decommissioned|retired)|is deprecated|was gone|is dead|is too\b|was too\b|are too\b|too (?:few|many|low|high|late|early|"
    r"loose|tight|much|little)|is out\b|was used|is no longer|no longer|won'?t work|doesn'?t work|is off|was wrong|"
    r"is wrong|was a mistake|got cancell?ed|is cancell?ed|"
    r"那个|那个[\u4e00-\u9fff]{0,4}(?:跟|和|不|冲突)|停用|作废|不行|不用了|不对|走不了|赶不上|来不及|太多|太少|太高|太低|"
    r"太保守|太松|太紧|取消|也不行|不够|错了|撤了|失效|废了|过期)",
    re.IGNORECASE,
)

# A change verb whose object is the value: "moved us to 5434", "bumped it up to 12", "改成 7点".
_CHANGED_TO_RE = re.compile(
    r"\b(?:mov|chang|switch|push|bump|rais|lower|increas|reduc|updat|adjust|shift)\w*"
    r"(?:\s+[\w'-]+){0,3}?\s+to\s+(?:the\s+)?[$€£¥]?\s*$"
    r"|(?:改成|改为|改到|调整为|调整到|换成|提高到|降到|延到|推迟到|提前到|变成|更新为)\s*$",
    re.IGNORECASE,
)
# A share or multiple of another quantity: "€7,600, half of the new total", "the deposit is a third
# of the fee: £900", "定金是总价的一半，1.5 万". Such a value belongs to its own subject (the deposit),
# never to the quantity it is a share of.
_SHARE_WORDS = (
    r"(?:half|a third|one third|two thirds|a quarter|one quarter|three quarters|a fifth|a tenth|"
    r"twice|double|triple|\d+(?:\.\d+)?\s*%|\d+ per ?cent)"
)
_SHARE_OF = r"\s+(?:of\s+(?!it\b|that\b|this\b|which\b|them\b)|the\b|our\b|their\b|what\b)"
_CJK_SHARE = r"的(?:一半|三分之[一二]|四分之[一三]|[两二三]倍|[一二三四五六七八九]成)"
_SHARE_AFTER_RE = re.compile(
    r"^\s*(?:then\s*)?[,:(\u2013\u2014-]\s*(?:(?:that's|that is|which is|i\.e\.|so|about|roughly|exactly|just)\s+)?"
    + _SHARE_WORDS
    + _SHARE_OF
    + r"|^\s*[，,]?\s*(?:是|为|占|即|相当于)[^。！？；，,\n]{0,8}"
    + _CJK_SHARE,
    re.IGNORECASE,
)
_SHARE_BEFORE_RE = re.compile(
    r"\b" + _SHARE_WORDS + _SHARE_OF + r"[^.,;!?\n]{0,24}$" + r"|" + _CJK_SHARE + r"[^。！？；\n]{0,6}$",
    re.IGNORECASE,
)
_UNIT_AFTER_RE = re.compile(r"\s*([A-Za-z]{2,}|[\u4e00-\u9fff]{1,2})")
# A word between a number and its plural noun modifies the noun ("6 LoRa gateways", "40 oak chairs"),
# unless it is a measure of its own ("30 day trials", "250 GB drives", "5,000 mAh ones").
_MODIFIED_NOUN_RE = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s+([a-z]{2,}[a-rt-z]s)\b")
_MEASURE_WORDS = frozenset(
    "second minute hour day week month year night metre meter mile inch foot page seat person".split()
)
MIN_CONTEXT = 2  # a clause with fewer subject words borrows its neighbour's


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    raw: str
    type: str  # values.py types, plus "ident"
    key: str
    number: str  # the leading number as written, without separators ("31750"); "" if none
    context: frozenset[str]
    sentence: int  # index of its sentence in the message
    negated: bool
    sentence_words: frozenset[str] = frozenset()  # the whole sentence's (and the header's) subject words
    question: bool = False  # said in a sentence that asks ("I said 10 November last time, right?")
    # the sentence before's subject words ("Not X any more. It's Y.")
    previous_words: frozenset[str] = frozenset()
    unit: str = ""  # the word after a bare number ("12 pages" -> "page", "20 个服" -> "个服")
    changed_to: bool = False  # the object of a change verb ("moved us to 5434", "调整为72张")
    share: bool = False  # a share or multiple of another quantity ("half of the new total")
    unit_text: str = ""  # that unit as written, for markers that name the value (" performers", "张")
    label: str = ""  # the word right before a bare number ("ICE 599" -> "ice", "gate 12" -> "gate")
    # the period of a rate, as a subject word ("$310/month", "£90 a night" -> "month", "night"; "每月 3200 元" -> "每月")
    period: str = ""


# A text without digits may still state a value: a weekday ("actually it's Thursday", "改成周四").
_CN_NUMERAL_WORD_RE = re.compile(r"[零〇一二两三四五六七八九十百千万亿]+")
# An amount or head count in Chinese numerals ("四万", "三十人"): capture/values.py types it.
_CN_AMOUNT_HINT_RE = re.compile(
    r"[一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿]*\s*[万亿元块人名位]"
)
_WEEKDAY_HINT_RE = re.compile(r"(?i:day)|Mon|Tue|Wed|Thu|Fri|Sat|Sun|周|星期|礼拜")


def _weekday_words() -> frozenset[str]:
    days = "monday tuesday wednesday thursday friday saturday sunday"
    spellings = (
        days.split() + [d + "s" for d in days.split()] + "Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun".split()
    )
    spellings += [p + c for p in ("周", "星期", "礼拜") for c in "一二三四五六日"] + ["星期天", "礼拜天"]
    return frozenset().union(*(subject_words(w) for w in spellings))


_BRACKETED_RE = re.compile(r"[(（][^()（）\n]*[)）]")


def _open_plain_brackets(text: str, values: Sequence[tuple[int, int, str, str, str]]) -> str:
    """`text` with the brackets of value-free asides blanked (same length): "Block A (the
    Chardonnay on the clay) opens below 22%" is one clause whose words say which block; an aside
    that states a value ("£140 (student £70)") stays a clause of its own."""
    chars = list(text)
    for m in _BRACKETED_RE.finditer(text):
        if not any(m.start() < v[0] < m.end() for v in values):
            chars[m.start()] = chars[m.end() - 1] = " "
    return "".join(chars)


def _spans(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in pattern.finditer(text):
        if (
            m.group(0) in ",，:：."
            and 0 < m.start() < len(text) - 1
            and text[m.start() - 1].isdigit()
            and text[m.start() + 1].isdigit()
        ):
            continue
        out.append((start, m.end()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return [(s, e) for s, e in out if text[s:e].strip()]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of `text` as find_mentions numbers them (Mention.sentence)."""
    return _spans(text, _SENTENCE_BREAK_RE)


def subject_words(text: str) -> frozenset[str]:
    """Words that say what a text is about: ranking tokens without numbers."""
    return frozenset(
        t
        for t in tokenize(text)
        if not t[0].isdigit()
        and not t.startswith("字:")
        and not (len(t) == 1 and "\u3400" <= t <= "\u9fff")  # 改, 到: no subject
        and not _CN_NUMERAL_WORD_RE.fullmatch(t)  # 三万, 五千: a number, not a subject
    )


WEEKDAY_WORDS = _weekday_words()  # the subject words a weekday is said with ("tuesday", "周三", "wed")


# 人, 名, 位 and 个人 all count people: "800人" and "800名" are one value.
_PERSON_MEASURES = frozenset("人名位个")
_CJK_UNIT_PREFIXES = frozenset("千百万兆毫厘微公平立小")


def _counted(text: str, end: int) -> bool:
    """A one-digit number is a value when a noun follows it as its unit ("3个小区", "9 gateways");
    not when it modifies the next word ("2 spare", "5 more")."""
    unit = _unit_after(text, end)
    if not unit:
        return False
    if "\u4e00" <= unit[0] <= "\u9fff":
        return True
    um = _unit_match(text, end)
    return um is not None and um.group(um.lastindex or 1).lower().endswith("s")  # a plural noun: "9 gateways"


def _unit_match(text: str, end: int) -> re.Match[str] | None:
    """The word after a number that may be its unit; its last group is that word."""
    mm = _MODIFIED_NOUN_RE.match(text, end)
    if mm:
        modifier = mm.group(1)
        if not (
            len(modifier) <= 3  # a unit of its own: "5,000 mAh ones", "250 GB drives"
            or mm.group(2) in ("ones", "others")
            or modifier.lower().endswith("s")
            or stem(modifier.lower()) in _MEASURE_WORDS
            or modifier.lower() in STOPWORDS
            or modifier.lower() in EN_EXTRA_STOPWORDS
        ):
            return mm
    return _UNIT_AFTER_RE.match(text, end)


def _unit_after(text: str, end: int) -> str:
    """The word after a bare number, as its unit ("12 pages" -> "page"); a function word is no unit
    ("196 once they …", "60 for the workshops", "15 而是"), nor is a CJK run that starts with a
    function character."""
    um = _unit_match(text, end)
    if not um:
        return ""
    word = um.group(um.lastindex or 1).lower()
    if "\u4e00" <= word[0] <= "\u9fff":
        # A Chinese unit is one measure character ("180件算了" -> 件), two when the first is a
        # prefix of a compound unit (千瓦, 平方米, 公斤, 小时).
        word = word[:2] if word[0] in _CJK_UNIT_PREFIXES and len(word) > 1 else word[:1]
        if word.startswith("个"):  # the most common measure word (个 is also a stop character)
            return word
    if (
        word in STOPWORDS
        or word in EN_EXTRA_STOPWORDS
        or word in ZH_STOPWORDS
        or word[0] in CJK_STOP_CHARS
        or word in _NEVER_UNITS
    ):
        return ""
    return stem(word)


# Adverbs that follow a value in a correction ("on 1120 instead", "5434 now"): they count nothing.
_NEVER_UNITS = frozenset(
    "instead now then anymore again too already either today tomorrow tonight yesterday".split()
)


# The period of an amount said as a rate: "$4,200/month", "£90 per night", "€12 a head", "每月 3200 元".
_PERIOD_AFTER_RE = re.compile(
    r"^\s*(?:/\s*|per\s+|an?\s+|each\s+)(month|year|week|day|night|hour|head|person)\b", re.IGNORECASE
)
_PERIOD_BEFORE_RE = re.compile(r"(每(?:月|年|周|天|晚|人|小时))[^，。；,;\d]{0,6}$")


def _period(text: str, start: int, end: int) -> str:
    after = _PERIOD_AFTER_RE.match(text[end : end + 16])
    if after:
        return stem(after.group(1).lower())
    before = _PERIOD_BEFORE_RE.search(text[max(0, start - 10) : start])
    return before.group(1) if before else ""


_LABEL_RE = re.compile(r"(?<![A-Za-z])([A-Za-z]{2,})\s*$")


def _label_before(text: str, start: int) -> str:
    """The word a bare number is the number of ("ICE 599", "Gate 12", "room 104"), lowercased; ""
    after a function word ("at 599", "to 1003")."""
    m = _LABEL_RE.search(text[max(0, start - 24) : start])
    word = m.group(1).lower() if m else ""
    return "" if word in STOPWORDS or word in EN_EXTRA_STOPWORDS else word


def _leading_number(raw: str) -> str:
    m = re.search(r"\d+(?:[.,]\d+)*", raw)
    return m.group(0).replace(",", "") if m else ""


def _header_words(text: str) -> frozenset[str]:
    """The topic a chat message opens with: "infra: …", "price talk with X. …", "预算这边，…"."""
    m = re.match(r"\s*([^:：。.!?！？\n]{1,40})[:：]", text) or re.match(
        r"\s*([^。.!?！？\n]{1,40}?)[。.!?！？\n]", text
    )
    if not m or re.search(r"\d", m.group(1)) or any(v.type == "weekday" for v in find_values(m.group(1))):
        return frozenset()  # a value is no topic ("Actually it's Thursday.")
    words = subject_words(m.group(1))
    return words if len(words) <= 4 else frozenset()


# "was" before a value names it as the old one only when the message goes on to a value of the
# same kind ("it was Wednesday 08:30 and now it's Thursday 15:40"); alone it is a plain statement
# in the past tense ("the bill was £240").
_WAS_BEFORE_RE = re.compile(r"\bwas\s*(?:the\s+)?[$€£¥]?\s*$", re.IGNORECASE)
# "from 140 to 160", "从180万追加到210万" name the old value; alone, "from" states it ("a
# starter from 1962", "从2019年起").
_FROM_BEFORE_RE = re.compile(r"(?:\bfrom|从)\s*(?:the\s+)?[$€£¥]?\s*$", re.IGNORECASE)
_FROM_TO_AFTER_RE = re.compile(r"^[^。！？!?；;\n]{0,40}?(?:\bto\b|→|->|到|成|为)\s*(?:the\s+)?[$€£¥]?\s*\d")


def _named_old(text: str, start: int, end: int, *, replaced_later: bool = True) -> bool:
    """The value at start:end is named as the replaced one ("not 7442", "800人作废"); with
    `replaced_later`, a value of its kind follows it in the message."""
    before = text[max(0, start - 16) : start]
    return bool(
        _OLD_BEFORE_RE.search(before)
        or (replaced_later and _WAS_BEFORE_RE.search(before))
        or (_FROM_BEFORE_RE.search(before) and _FROM_TO_AFTER_RE.match(text[end : end + 48]))
        or _OLD_AFTER_RE.match(text[end : end + 24])
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
            v.type == "time" and not re.search(r"\d:\d|点|\d\s*[ap]m", v.raw, re.IGNORECASE)
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
        values.append((start, v.end, text[start : v.end] if start != v.start else v.raw, v.type, v.key))
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
                    else _named_old(text, v[0], v[1], replaced_later=f)
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
        if kind == "count":
            # The noun of a count is what it counts: "240 seats" is about seats (the value span
            # hides it from the clause words), as "the seated limit is 196" is.
            words |= subject_words(re.sub(r"[\d.,\s]+[万千]?", " ", raw))
        if kind in ("number", "count") and _CAPACITY_RE.search(text, *clauses[ci]):
            # "fits 180 guests", "capacity is 150", "能坐180人", "可容纳150人": one subject family.
            words.add(CAPACITY_WORD)
        if kind == "name":
            negated, changed_to = name_roles[start] == "old", name_roles[start] == "new"
        else:
            negated = _named_old(text, start, end, replaced_later=replaced_later)
            changed_to = bool(_CHANGED_TO_RE.search(text[max(0, start - 40) : start]))
        share = bool(
            _SHARE_AFTER_RE.search(text[end : end + 40])
            or _SHARE_BEFORE_RE.search(text[max(0, start - 48) : start])
        )
        unit = unit_text = ""
        if kind == "number":
            unit = _unit_after(text, end)
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
            unit = "人" if noun[:1] in _PERSON_MEASURES else noun[:1] if noun[:1] >= "\u4e00" else stem(noun)
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
                sentence_words=(sentence_words[si] if si < len(sentence_words) else frozenset(words))
                - (WEEKDAY_WORDS if kind == "weekday" else frozenset()),
                previous_words=(sentence_words[si - 1] if 0 < si <= len(sentence_words) else frozenset())
                - (WEEKDAY_WORDS if kind == "weekday" else frozenset()),
                question=si < len(sentences)
                and text[sentences[si][0] : sentences[si][1]].rstrip().endswith(("?", "？")),
            )
        )
    return tuple(out)


# Words that say how many a place or a vehicle takes: a count said with any of them is about its
# capacity, whatever the other words ("the venue fits 180 guests" / "capacity is down to 150").
_CAPACITY_RE = re.compile(
    r"\b(?:fits?|holds?|seats?|seating|sleeps?|accommodates?|capacity|occupancy)\b|容纳|容量|能坐|可坐|坐得下|座位",
    re.IGNORECASE,
)
CAPACITY_WORD = "capacity"

_NOT_A_BARE_NUMBER = frozenset({"version", "date", "time"})
# Types whose unit is part of the value: a bare number counting a noun of its own is none of them.
_UNIT_BUILT_IN = frozenset({"money", "duration", "percent", "temperature", "size"})


def same_value(a: Mention, b: Mention) -> bool:
    """The same value, also when one side is written without its unit ("99.2" and "99.2%", "412" is not "0.9.412").

    A date or a time is never a bare number written without its unit: "4" (shops) is not "4 May",
    "10" is not "10:30"; nor is a money amount, a duration or a percentage a number that counts a
    noun of its own ("20 个服" is not "20 万", "15 rooms" is not "15%")."""
    if a.key == b.key:
        return True
    bare = a if a.type == "number" else b
    if (
        bare.type == "number"
        and bare.unit
        and bare.unit[0] not in "万亿千"  # "30 万太多了" is still the amount
        and (b if bare is a else a).type in _UNIT_BUILT_IN
    ):
        return False  # "20 个服" counts servers: it is not the amount "20 万" nor "20%"
    if (
        "number" in (a.type, b.type)
        and a.number
        and a.number == b.number
        and _NOT_A_BARE_NUMBER.isdisjoint((a.type, b.type))
    ):
        return True
    return False
