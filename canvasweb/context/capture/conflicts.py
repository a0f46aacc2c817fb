"""A new message against the canvas's constraints: a date outside an agreed range, an amount over a cap,
an action on a forbidden weekday. The product says so instead of letting the model pick one silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import split_sentences
from ..types import NodeData
from .matching import subject_terms
from .patterns import _HYPOTHETICAL_RE
from .values import TypedValue, arabic_numerals, find_values


@dataclass(frozen=True, slots=True)
class Conflict:
    node: NodeData
    sentence: str  # the clause of the message that conflicts
    value: str  # the conflicting value as said ("Friday", "$65k", "5月20日")
    reason: str  # weekday | date_range | cap


_WEEKDAYS = {
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
}
_WEEKDAY_RE = re.compile(
    r"\b(?P<en>mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?s?\b|(?:周|星期|礼拜)(?P<zh>[一二三四五六日天])",
    re.IGNORECASE,
)
_RULE_RE = re.compile(
    r"\b(?:never|no|don't|do not|must not|mustn't|not on|avoid)\b|不要|不能|禁止|不得|严禁|不准|不许|别|不",
    re.IGNORECASE,
)
_NEGATED_RE = re.compile(r"\b(?:never|not|no|don't|do not|won't|avoid)\b|不要|不能|禁止|不|别", re.IGNORECASE)
_CAP_RE = re.compile(
    r"\b(?:cap|capped|at most|no more than|max(?:imum)?|limit|ceiling|must not exceed|up to|under)\b|"
    r"不超过|不得超过|上限|封顶|最多|以内",
    re.IGNORECASE,
)
_UPPER_RE = re.compile(
    r"\b(?:by|no later than|before|latest|deadline|due)\b|不晚于|之前|以前|最晚|截止", re.IGNORECASE
)
_LOWER_RE = re.compile(r"\b(?:no earlier than|not before|after|from)\b|不早于|之后|以后", re.IGNORECASE)
_RANGE_SEP_RE = re.compile(r"\s*(?:-|–|—|~|～|to|through|until|and|至|到)\s*", re.IGNORECASE)
_MONEY_CONTEXT = frozenset({"@budget", "@cost"})


def _weekday(m: re.Match[str]) -> int:
    if m.group("en"):
        return next(i for name, i in _WEEKDAYS.items() if name.startswith(m.group("en").lower()[:3]))
    return "一二三四五六日".find(m.group("zh")) if m.group("zh") != "天" else 6


def _date_ord(v: TypedValue) -> int | None:
    if v.type != "date" or v.key.startswith(("rel:", "dom:")):
        return None
    parts = v.key.split("-")
    month, day = int(parts[-2]), int(parts[-1])
    return month * 40 + day


def _money(v: TypedValue) -> tuple[str, float] | None:
    if v.type != "money":
        return None
    cur, amount = v.key.split(":")
    return cur, float(amount)


def find_conflicts(*, text: str, nodes: Sequence[NodeData]) -> list[Conflict]:
    """Constraint nodes (live, visible ones the caller passes) that a statement in `text` breaks."""
    out: list[Conflict] = []
    seen: set[str] = set()
    for raw in split_sentences(text):
        if raw.rstrip().endswith(("?", "？")) or _HYPOTHETICAL_RE.search(raw):
            continue
        sentence = arabic_numerals(raw)
        terms = subject_terms(sentence)
        values = find_values(sentence)
        for node in nodes:
            if node.superseded_by or node.archived or node.id in seen:
                continue
            found = _conflict(sentence, terms, values, node)
            if found:
                seen.add(node.id)
                out.append(Conflict(node=node, sentence=raw.strip(), value=found[0], reason=found[1]))
    return out


def _conflict(
    sentence: str, terms: frozenset[str], values: list[TypedValue], node: NodeData
) -> tuple[str, str] | None:
    content = arabic_numerals(node.content)
    node_terms = subject_terms(content)
    shared = (terms & node_terms) - {t for t in terms if len(t) == 1 and not t.isascii()}
    # "Never deploy on Fridays" vs "let's deploy Friday": the same action on the forbidden day, not negated.
    rule_days = {_weekday(m) for m in _WEEKDAY_RE.finditer(content)} if _RULE_RE.search(content) else set()
    if rule_days:
        for m in _WEEKDAY_RE.finditer(sentence):
            if (
                _weekday(m) in rule_days
                and "@launch" in terms & node_terms
                and not _NEGATED_RE.search(sentence)
            ):
                return m.group(0), "weekday"
    node_values = find_values(content)
    # A budget cap: an amount over it, in the same currency, about money.
    cap_candidates = (
        [_money(v) for v in node_values if v.type == "money"]
        if _CAP_RE.search(content) or "@budget" in node_terms
        else []
    )
    caps = [c for c in cap_candidates if c]
    if caps and (terms & _MONEY_CONTEXT or shared):
        for v in values:
            money = _money(v)
            if money and any(money[0] == cur and money[1] > cap for cur, cap in caps):
                return v.raw, "cap"
    # A date range ("between May 1 and May 15", "5月1日到5月15日") or a bound ("no later than June 30").
    dates = [(v, _date_ord(v)) for v in node_values if _date_ord(v) is not None]
    if dates and shared:
        low = high = None
        if len(dates) >= 2 and _RANGE_SEP_RE.fullmatch(content[dates[0][0].end : dates[1][0].start]):
            low, high = dates[0][1], dates[1][1]
        elif len(dates) == 1 and _UPPER_RE.search(content[: dates[0][0].start + 1]):
            high = dates[0][1]
        elif len(dates) == 1 and _LOWER_RE.search(content[: dates[0][0].start + 1]):
            low = dates[0][1]
        for v in values:
            when = _date_ord(v)
            if when is not None and ((low is not None and when < low) or (high is not None and when > high)):
                return v.raw, "date_range"
    return None


def conflict_note(conflict: Conflict, *, handle: str | None = None) -> str:
    """The short note the chat shows ("Friday conflicts with [n3]: Never deploy on Fridays")."""
    ref = f"[{handle}] " if handle else ""
    text = " ".join(conflict.node.content.split())
    text = text if len(text) <= 80 else text[:79] + "…"
    zh = bool(re.search(r"[\u4e00-\u9fff]", conflict.sentence))
    return (
        f"“{conflict.value}”与 {ref}“{text}”冲突"
        if zh
        else f"“{conflict.value}” conflicts with {ref}“{text}”"
    )
