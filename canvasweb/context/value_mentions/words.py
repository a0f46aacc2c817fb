"""The words a value is said with: subject words, the clause and sentence spans, a message's topic header."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..capture.values import find_values
from ..lexical import tokenize
from ..text import stem

# A clause ends at these (not inside "31,750", "17:00" or "0.9.412").
_CLAUSE_BREAK_RE = re.compile(r"[。！？!?；;，,：:\n()（）—–]|\.(?=\s|$)")
_SENTENCE_BREAK_RE = re.compile(r"[。！？!?\n]|\.(?=\s|$)")
# A run of Chinese numerals (三万, 五千) is a number, not a subject word.
# a number, or a number and its measure word ("两个", "几位"): no subject
_CN_NUMERAL_WORD_RE = re.compile(r"[零〇一二两三四五六七八九十百千万亿几]+[个位名只张件次]?")


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
        and t not in _EN_NUMBER_STEMS  # "the three late ones": a count, not a subject
    )


_EN_NUMBER_STEMS = frozenset(
    stem(w)
    for w in "two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred "
    "thousand dozen half couple".split()
)


WEEKDAY_WORDS = _weekday_words()  # the subject words a weekday is said with ("tuesday", "周三", "wed")


_SPEAKER_RE = re.compile(r"[A-Z][a-z]+(?:\s+(?:again|here))?")
_NO_TOPIC_RE = re.compile(
    r"(?:(?i:hi|hello|hey|morning|evening|afternoon|ok|okay|right|so|sorry|thanks|all)\s*)?"
    r"(?:[A-Z][a-z]+(?:\s+(?:again|here))?(?:\s*\([^)]{1,20}\))?)?|"
    r"(?i:(?:a\s+)?(?:long|quick|short|brief)\s+(?:one|update|note|message|question))|"
    r"(?:你好|您好|在吗|哈喽|嗨|早|早上好|大家好|各位)?\s*(?:[\u4e00-\u9fff]{1,3}(?:老师|总|工|姐|哥|经理|医生))?"
)


def _header_words(text: str) -> frozenset[str]:
    """The topic a chat message opens with: "infra: …", "price talk with X. …", "预算这边，…"."""
    m = re.match(r"\s*([^:：。.!?！？\n]{1,40})[:：]", text) or re.match(
        r"\s*([^。.!?！？\n]{1,40}?)[。.!?！？\n]", text
    )
    if not m or re.search(r"\d", m.group(1)) or any(v.type == "weekday" for v in find_values(m.group(1))):
        return frozenset()  # a value is no topic ("Actually it's Thursday.")
    if _SPEAKER_RE.fullmatch(m.group(1).strip()):
        return frozenset()  # who is typing ("Daniel.", "Clare again,", "Raj here:") is no topic
    # Nor is a greeting, a name called or what kind of message follows ("Hi, Helen here (events)",
    # "Helen, long one", "你好，王老师"): only the rest of the opening names a topic.
    topic = [part for part in re.split(r"[,，、]", m.group(1)) if not _NO_TOPIC_RE.fullmatch(part.strip())]
    if not topic:
        return frozenset()
    words = subject_words(" ".join(topic))
    return words if len(words) <= 4 else frozenset()


# Words that say how many a place or a vehicle takes: a count said with any of them is about its
# capacity, whatever the other words ("the venue fits 180 guests" / "capacity is down to 150").
CAPACITY_RE = re.compile(
    r"\b(?:fits?|holds?|seats?|seating|sleeps?|accommodates?|capacity|occupancy)\b|容纳|容量|能坐|可坐|坐得下|座位",
    re.IGNORECASE,
)
CAPACITY_WORD = "capacity"
