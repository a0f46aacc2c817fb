"""What a bare number says beside its digits: its unit ("12 pages"), the period of a rate ("$310/month"), its
label ("gate 12"), whether a one-digit number counts something ("3个小区"), and its leading number."""

from __future__ import annotations

import re

from ..lexical import EN_EXTRA_STOPWORDS, ZH_STOPWORDS
from ..text import CJK_STOP_CHARS, STOPWORDS, stem

_UNIT_AFTER_RE = re.compile(r"\s*([A-Za-z]{2,}|[\u4e00-\u9fff]{1,2})")
# A word between a number and its plural noun modifies the noun ("6 LoRa gateways", "40 oak chairs"),
# unless it is a measure of its own ("30 day trials", "250 GB drives", "5,000 mAh ones").
_MODIFIED_NOUN_RE = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s+([a-z]{2,}[a-rt-z]s)\b")
_MEASURE_WORDS = frozenset(
    "second minute hour day week month year night metre meter mile inch foot page seat person".split()
)

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
        if word[0] == "个":
            # The most common measure word says nothing of what is counted: the character after it
            # does ("8个点" of a royalty is not "9个工作日" of a schedule nor "3个博主").
            if word == "个人":
                return "人"
            return word if len(word) == 2 and word[1] not in CJK_STOP_CHARS else "个"
        word = word[:2] if word[0] in _CJK_UNIT_PREFIXES and len(word) > 1 else word[:1]
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
