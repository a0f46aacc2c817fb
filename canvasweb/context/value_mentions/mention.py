"""A value mention (`Mention`) and when two mentions are the same value (`same_value`)."""

from __future__ import annotations

from dataclasses import dataclass


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


_NOT_A_BARE_NUMBER = frozenset({"version", "date", "time"})
# Types whose unit is part of the value: a bare number counting a noun of its own is none of them.
_UNIT_BUILT_IN = frozenset({"money", "duration", "percent", "temperature", "size"})


def same_value(a: Mention, b: Mention) -> bool:
    """The same value, also when one side is written without its unit ("99.2" and "99.2%", "412" is not "0.9.412").

    A date or a time is never a bare number written without its unit: "4" (shops) is not "4 May",
    "10" is not "10:30"; nor is a money amount, a duration or a percentage a number that counts a
    noun of its own ("20 个服" is not "20 万", "15 rooms" is not "15%")."""
    if _counts_other_nouns(a, b):
        return False  # "24 hl" through the line is not "24 cans" to a tray
    if a.key == b.key:
        return True
    if a.type == "date" == b.type and (a.key.startswith("dom:") or b.key.startswith("dom:")):
        # "the 23rd" is the day of "23 March" or "3月23日"
        return a.key[-2:] == b.key[-2:] and not (a.key.startswith("rel:") or b.key.startswith("rel:"))
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


def distinct_units(a: str, b: str) -> bool:
    """Two units that say different things are counted. A bare "个" names no noun ("定11个。"), so it
    may count what "8个插座" counts."""
    if not (a and b and a != b):
        return False
    return not ("个" in (a, b) and a[0] == b[0])


def _counts_other_nouns(a: Mention, b: Mention) -> bool:
    """Two bare numbers that count different nouns (units that are no synonyms of each other)."""
    if not distinct_units(a.unit, b.unit) or not {a.type, b.type} <= {"number", "count"}:
        return False
    from ..synonyms import noun_family  # synonyms imports the lexical layer: import late

    return noun_family(a.unit) != noun_family(b.unit)
